/*
 * elffile.c: opening ELF files and finding their debug files (see
 * elffile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <zlib.h>

#include "sp-symbolize/elffile.h"
#include "common/banned.h"

#define SYM_DEFAULT_DEBUG_ROOT "/usr/lib/debug"

/*
 * A .gnu_debuglink candidate is checked by the CRC of all its bytes; one
 * larger than this is no debug file (the largest real ones are a few
 * GiB), and reading it would take minutes (a sparse file of 50 GiB).
 */
#define SYM_DEBUGLINK_MAX_SIZE (4ull << 30)

int
sym_elffile_open(struct sym_elffile *f, const char *path)
{
	struct stat st;

	*f = (struct sym_elffile)SYM_ELFFILE_INIT;
	elf_version(EV_CURRENT);
	/*
	 * Never wait on a FIFO or a device a record or a debug link names:
	 * O_NONBLOCK makes open(2) return at once, and only a regular file
	 * is read.
	 */
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (f->fd < 0)
		return -errno;
	if (fstat(f->fd, &st) || !S_ISREG(st.st_mode)) {
		sym_elffile_close(f);
		return -EINVAL;
	}
	/* Not mapped: a file truncated under us must not raise SIGBUS. */
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		sym_elffile_close(f);
		return -ENOEXEC;
	}
	return 0;
}

int
sym_elffile_open_mem(struct sym_elffile *f, void *mem, size_t len)
{
	*f = (struct sym_elffile)SYM_ELFFILE_INIT;
	elf_version(EV_CURRENT);
	f->mem = mem;
	f->memlen = len;
	f->elf = elf_memory(mem, len);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		sym_elffile_close(f);
		return -ENOEXEC;
	}
	return 0;
}

void
sym_elffile_close(struct sym_elffile *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->mem);
	*f = (struct sym_elffile)SYM_ELFFILE_INIT;
}

size_t
sym_elf_buildid(Elf *elf, const uint8_t **id)
{
	const void *p = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &p);

	if (n <= 0)
		return 0;
	*id = p;
	return (size_t)n;
}

void
sym_buildid_hex(const uint8_t *id, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = hex[id[i] >> 4];
		out[2 * i + 1] = hex[id[i] & 15];
	}
	out[2 * len] = '\0';
}

/* CRC-32 of a whole file, as .gnu_debuglink records it. */
static bool
file_crc(int fd, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0, Z_NULL, 0);
	ssize_t n;

	struct stat st;

	if (fstat(fd, &st) || (uint64_t)st.st_size > SYM_DEBUGLINK_MAX_SIZE ||
	    lseek(fd, 0, SEEK_SET) < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = crc32(c, buf, (uInt)n);
	*crc = (uint32_t)c;
	return n == 0;
}

/*
 * Opens `cand` into *out when it is the debug file wanted: same build
 * id, or (with no build id to compare) the debuglink CRC.
 */
static bool
try_candidate(const char *cand, const char *self, const uint8_t *id,
	      size_t idlen, bool check_crc, uint32_t crc,
	      struct sym_elffile *out)
{
	const uint8_t *cid;
	size_t clen;
	uint32_t c;

	if (self && strcmp(cand, self) == 0)
		return false;
	if (sym_elffile_open(out, cand))
		return false;
	clen = sym_elf_buildid(out->elf, &cid);
	if (idlen) {
		if (clen == idlen && memcmp(cid, id, idlen) == 0)
			return true;
	} else if (!check_crc || (file_crc(out->fd, &c) && c == crc)) {
		return true;
	}
	sym_elffile_close(out);
	return false;
}

static bool
by_buildid(const char *root, const uint8_t *id, size_t len,
	   struct sym_elffile *out)
{
	char hex[2 * 64 + 1], *cand;
	bool ok;

	if (len < 2 || len > 64)
		return false;
	sym_buildid_hex(id, len, hex);
	if (asprintf(&cand, "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2) <
	    0)
		return false;
	ok = try_candidate(cand, NULL, id, len, false, 0, out);
	free(cand);
	return ok;
}

static bool
by_link(const char *fmt, const char *a, const char *b, const char *c,
	const char *self, const uint8_t *id, size_t idlen, uint32_t crc,
	struct sym_elffile *out)
{
	char *cand;
	bool ok;

	if (asprintf(&cand, fmt, a, b, c) < 0)
		return false;
	ok = try_candidate(cand, self, id, idlen, true, crc, out);
	free(cand);
	return ok;
}

static bool
by_debuglink(const char *path, Elf *elf, char *const *roots, size_t nroots,
	     const uint8_t *id, size_t idlen, struct sym_elffile *out)
{
	GElf_Word crc = 0;
	const char *link = dwelf_elf_gnu_debuglink(elf, &crc);
	const char *slash = strrchr(path, '/');
	char *dir;
	bool ok = false;
	size_t i;

	if (!link || strchr(link, '/'))
		return false;
	dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return false;
	ok =
	    by_link("%s/%s%s", dir, link, "", path, id, idlen, crc, out) ||
	    by_link("%s/.debug/%s%s", dir, link, "", path, id, idlen, crc, out);
	for (i = 0; !ok && i <= nroots; i++) {
		const char *root =
		    i < nroots ? roots[i] : SYM_DEFAULT_DEBUG_ROOT;

		ok = by_link("%s%s/%s", root, dir, link, path, id, idlen, crc,
			     out) ||
		     by_link("%s/%s%s", root, link, "", path, id, idlen, crc,
			     out);
	}
	free(dir);
	return ok;
}

int
sym_debug_find(const char *path, Elf *elf, char *const *roots, size_t nroots,
	       struct sym_elffile *out)
{
	const uint8_t *id = NULL;
	size_t idlen = sym_elf_buildid(elf, &id), i;

	*out = (struct sym_elffile)SYM_ELFFILE_INIT;
	for (i = 0; idlen && i <= nroots; i++)
		if (by_buildid(i < nroots ? roots[i] : SYM_DEFAULT_DEBUG_ROOT,
			       id, idlen, out))
			return 0;
	if (path && by_debuglink(path, elf, roots, nroots, id, idlen, out))
		return 0;
	return -ENOENT;
}
