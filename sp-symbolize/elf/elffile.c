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

#include "sp-symbolize/elf/elffile.h"
#include "common/hex.h"
#include "common/openreg.h"
#include "common/banned.h"

/*
 * A .gnu_debuglink candidate is checked by the CRC of all its bytes; one
 * larger than this is no debug file (the largest real ones are a few
 * GiB), and reading it would take minutes (a sparse file of 50 GiB).
 */
#define SYM_DEBUGLINK_MAX_SIZE (4ull << 30)

/* A section at least this large is checked for holes. */
#define SYM_SECTION_SPARSE_MIN (1u << 20)

/*
 * The bytes of [off, end) of `fd` that are data, not holes; all of them
 * where the file system cannot tell.
 */
static uint64_t
data_bytes(int fd, uint64_t off, uint64_t end)
{
	uint64_t n = 0;
	off_t d, h;

	while (off < end) {
		d = lseek(fd, (off_t)off, SEEK_DATA);
		if (d < 0)
			return errno == ENXIO ? n : n + (end - off);
		if ((uint64_t)d >= end)
			break;
		h = lseek(fd, d, SEEK_HOLE);
		if (h <= d || (uint64_t)h > end)
			h = (off_t)end;
		n += (uint64_t)(h - d);
		off = (uint64_t)h;
	}
	return n;
}

/* Whether the file of `f`, `size` bytes long, holds the data of `sh`. */
static bool
plausible(const struct sym_elffile *f, const GElf_Shdr *sh, uint64_t size)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0)
		return true;
	if (sh->sh_offset > size || sh->sh_size > size - sh->sh_offset)
		return false;
	return sh->sh_size < SYM_SECTION_SPARSE_MIN ||
	       data_bytes(f->fd, sh->sh_offset, sh->sh_offset + sh->sh_size) >=
		   sh->sh_size / 2;
}

/* Hides section `scn` (header `sh`), noting the first one hidden. */
static void
hide(struct sym_elffile *f, Elf_Scn *scn, GElf_Shdr *sh, const char *name)
{
	if (f->nhidden++ == 0) {
		snprintf(f->hidden_name, sizeof(f->hidden_name), "%s",
			 name ? name : "?");
		f->hidden_size = sh->sh_size;
	}
	sh->sh_type = SHT_NOBITS;
	sh->sh_size = 0;
	gelf_update_shdr(scn, sh);
}

/* Hides the sections whose data is not in the file (elffile.h). */
static void
hide_implausible(struct sym_elffile *f, uint64_t size)
{
	Elf_Scn *scn = NULL, *str = NULL;
	size_t shstrndx = 0;
	GElf_Shdr sh, lsh;

	/* The section names first: naming the others reads them. */
	if (elf_getshdrstrndx(f->elf, &shstrndx) == 0 &&
	    (str = elf_getscn(f->elf, shstrndx)) && gelf_getshdr(str, &sh) &&
	    !plausible(f, &sh, size))
		hide(f, str, &sh, ".shstrtab");
	while ((scn = elf_nextscn(f->elf, scn)) != NULL)
		if (scn != str && gelf_getshdr(scn, &sh) &&
		    !plausible(f, &sh, size))
			hide(f, scn, &sh,
			     elf_strptr(f->elf, shstrndx, sh.sh_name));
	while (f->nhidden && (scn = elf_nextscn(f->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) &&
		    (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) &&
		    (str = elf_getscn(f->elf, sh.sh_link)) &&
		    gelf_getshdr(str, &lsh) && lsh.sh_type == SHT_NOBITS &&
		    lsh.sh_size == 0)
			hide(f, scn, &sh,
			     elf_strptr(f->elf, shstrndx, sh.sh_name));
}

int
sym_elffile_open(struct sym_elffile *f, const char *path)
{
	struct stat st;
	int fd;

	*f = (struct sym_elffile)SYM_ELFFILE_INIT;
	elf_version(EV_CURRENT);
	/* A FIFO or a device a record or a debug link names is not opened. */
	fd = sp_open_regular(AT_FDCWD, path, false, &st);
	if (fd < 0)
		return fd;
	f->fd = fd;
	/* Not mapped: a file truncated under us must not raise SIGBUS. */
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		sym_elffile_close(f);
		return -ENOEXEC;
	}
	hide_implausible(f, (uint64_t)st.st_size);
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

int
sym_elffile_reopen(const struct sym_elffile *f, struct sym_elffile *out)
{
	struct stat st;

	*out = (struct sym_elffile)SYM_ELFFILE_INIT;
	if (f->fd < 0)
		out->elf = elf_memory(f->mem, f->memlen);
	else if ((out->fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 0)) < 0)
		return -errno;
	else if (fstat(out->fd, &st) == 0)
		out->elf = elf_begin(out->fd, ELF_C_READ, NULL);
	if (!out->elf || elf_kind(out->elf) != ELF_K_ELF) {
		sym_elffile_close(out);
		return -ENOEXEC;
	}
	if (out->fd >= 0)
		hide_implausible(out, (uint64_t)st.st_size);
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

bool
sym_elf_has_code(Elf *elf)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) && ph.p_filesz > 0)
			return true;
	return false;
}

/* Whether `elf` has a symbol table or DWARF to lend a module. */
static bool
has_debug_data(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    sh.sh_size == 0)
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			return true;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (strcmp(name, ".debug_info") == 0 ||
			     strcmp(name, ".zdebug_info") == 0))
			return true;
	}
	return false;
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

/* What sym_debug_find() looks for while it walks the candidates. */
struct want {
	const char *self;
	const uint8_t *id;
	size_t idlen;
	uint32_t crc;
	struct sym_elffile *out;
	struct sym_elffile copy; /* the first module file's copy with names */
};

/*
 * A build id candidate with code is a module file's copy, not a debug
 * file: it is kept aside, and the walk goes on for a real one.
 */
static bool
try_want(void *ctx, const char *cand, bool by_id)
{
	struct want *w = ctx;

	if (!try_candidate(cand, by_id ? NULL : w->self, w->id, w->idlen,
			   !by_id, w->crc, w->out))
		return false;
	if (!by_id || !sym_elf_has_code(w->out->elf))
		return true;
	if (!w->copy.elf && has_debug_data(w->out->elf)) {
		w->copy = *w->out;
		*w->out = (struct sym_elffile)SYM_ELFFILE_INIT;
	} else {
		sym_elffile_close(w->out);
	}
	return false;
}

/* Formats a candidate and hands it to `fn`; false when out of memory. */
static bool
offer(sym_debug_fn *fn, void *ctx, bool by_id, const char *fmt, const char *a,
      const char *b, const char *c)
{
	char *cand;
	bool ok;

	if (asprintf(&cand, fmt, a, b, c) < 0)
		return false;
	ok = fn(ctx, cand, by_id);
	free(cand);
	return ok;
}

static bool
each_link(const char *path, const char *link, char *const *roots, size_t nroots,
	  sym_debug_fn *fn, void *ctx)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	bool ok;
	size_t i;

	dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	if (!dir)
		return false;
	ok = offer(fn, ctx, false, "%s/%s%s", dir, link, "") ||
	     offer(fn, ctx, false, "%s/.debug/%s%s", dir, link, "");
	for (i = 0; !ok && i <= nroots; i++) {
		const char *root =
		    i < nroots ? roots[i] : SYM_DEFAULT_DEBUG_ROOT;

		ok = offer(fn, ctx, false, "%s%s/%s", root, dir, link) ||
		     offer(fn, ctx, false, "%s/%s%s", root, link, "");
	}
	free(dir);
	return ok;
}

bool
sym_debug_each(const char *path, Elf *elf, char *const *roots, size_t nroots,
	       sym_debug_fn *fn, void *ctx)
{
	const uint8_t *id = NULL;
	size_t idlen = sym_elf_buildid(elf, &id), i;
	char hex[2 * 64 + 1];
	GElf_Word crc = 0;
	const char *link;

	if (idlen >= 2 && idlen <= 64) {
		sp_hex_encode(id, idlen, hex);
		for (i = 0; i <= nroots; i++)
			if (offer(fn, ctx, true, "%s/.build-id/%.2s/%s.debug",
				  i < nroots ? roots[i]
					     : SYM_DEFAULT_DEBUG_ROOT,
				  hex, hex + 2))
				return true;
	}
	link = path ? dwelf_elf_gnu_debuglink(elf, &crc) : NULL;
	if (!link || strchr(link, '/'))
		return false;
	return each_link(path, link, roots, nroots, fn, ctx);
}

int
sym_debug_find(const char *path, Elf *elf, char *const *roots, size_t nroots,
	       struct sym_elffile *out)
{
	struct want w = { .self = path, .out = out };
	GElf_Word crc = 0;

	*out = (struct sym_elffile)SYM_ELFFILE_INIT;
	w.copy = (struct sym_elffile)SYM_ELFFILE_INIT;
	w.idlen = sym_elf_buildid(elf, &w.id);
	if (path)
		dwelf_elf_gnu_debuglink(elf, &crc);
	w.crc = crc;
	if (sym_debug_each(path, elf, roots, nroots, try_want, &w)) {
		sym_elffile_close(&w.copy);
		return 0;
	}
	*out = w.copy;
	return out->elf ? 0 : -ENOENT;
}
