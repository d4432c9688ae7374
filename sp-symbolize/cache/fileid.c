/*
 * fileid.c: the cache identity of a module file or of the running
 * kernel (see fileid.h).  Of a file, only the ELF header, program
 * headers and notes (the build id) and the section headers (the
 * debuglink) are read: about 3 KB.  The whole file is read only for its
 * content hash, which the cache asks for when it first meets a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/buf.h"
#include "common/htab.h"
#include "common/hex.h"
#include "common/openreg.h"
#include "sp-symbolize/cache/cachefile.h"
#include "sp-symbolize/elf/elffile.h"
#include "sp-symbolize/cache/fileid.h"
#include "sp-symbolize/kernel/hostinfo.h"
#include "common/banned.h"

/* The bytes hashed into a context; `bad` after an allocation failure. */
struct ctxbuf {
	struct sp_buf b;
	bool bad;
};

/* Adds an existing debug file candidate's identity to the context. */
static bool
add_candidate(void *ctx, const char *cand, bool by_id)
{
	struct ctxbuf *c = ctx;
	struct stat st;

	(void)by_id;
	if (stat(cand, &st) == 0 &&
	    sp_buf_addf(&c->b, "%s\n%ju %ju %jd %jd.%ld %jd.%ld\n", cand,
			(uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
			(intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
			st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec,
			st.st_ctim.tv_nsec))
		c->bad = true;
	return false;
}

void
sym_fileid_stat(const struct stat *st, struct sym_filestat *out)
{
	memset(out, 0, sizeof(*out));
	out->dev = (uint64_t)st->st_dev;
	out->ino = (uint64_t)st->st_ino;
	out->size = (uint64_t)st->st_size;
	out->mtime_ns =
	    (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	out->ctime_ns =
	    (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
	out->uid = (uint32_t)st->st_uid;
}

/* Whether the open `fd` is the file `want`. */
static bool
fd_is(int fd, const struct sym_filestat *want)
{
	struct sym_filestat now;
	struct stat st;

	if (fstat(fd, &st))
		return false;
	sym_fileid_stat(&st, &now);
	return sym_filestat_same(&now, want);
}

/* Feeds the bytes of `fd` to `xs`; 0 or a negative errno. */
static int
hash_fd(int fd, XXH3_state_t *xs)
{
	static const size_t chunk = 1 << 16;
	uint8_t *buf = malloc(chunk);
	ssize_t n;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	while (rc == 0 && (n = read(fd, buf, chunk)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || XXH3_64bits_update(xs, buf, (size_t)n) != XXH_OK)
			rc = n < 0 ? -errno : -EIO;
	}
	free(buf);
	return rc;
}

int
sym_fileid_hash(const char *path, const struct sym_filestat *want,
		uint64_t *hash)
{
	XXH3_state_t *xs;
	struct stat st;
	int rc, fd;

	if (want->size > SYM_FILEID_MAX_HASH)
		return -EFBIG;
	xs = XXH3_createState();
	if (!xs)
		return -ENOMEM;
	fd = sp_open_regular(AT_FDCWD, path, false, &st);
	rc = fd < 0 ? fd : 0;
	if (rc == 0 && !fd_is(fd, want))
		rc = -ESTALE;
	if (rc == 0 && XXH3_64bits_reset(xs) != XXH_OK)
		rc = -EIO;
	if (rc == 0)
		rc = hash_fd(fd, xs);
	/* Changed while it was read: the hash is of no one file. */
	if (rc == 0 && !fd_is(fd, want))
		rc = -ESTALE;
	if (rc == 0)
		*hash = XXH3_64bits_digest(xs);
	if (fd >= 0)
		close(fd);
	XXH3_freeState(xs);
	return rc;
}

static void
add_opts(struct ctxbuf *c, const struct sym_symopts *o, const char *tool)
{
	size_t i;

	if (sp_buf_addf(&c->b, "sp-symbolize cache %d %s\n%d%d%d%d%d\n",
			SYM_CACHEFILE_VERSION, tool, o->demangle, o->inlines,
			o->names_only, o->raw_names, o->params))
		c->bad = true;
	for (i = 0; i < o->ndebug_dirs; i++)
		if (sp_buf_addf(&c->b, "debug-dir %s\n", o->debug_dirs[i]))
			c->bad = true;
}

int
sym_fileid_read(const char *path, const struct sym_symopts *opts,
		const char *tool, struct sym_fileid *id)
{
	struct sym_elffile f;
	struct ctxbuf c = { SP_BUF_INIT, false };
	const uint8_t *raw;
	struct stat st;
	size_t len;
	int rc = sym_elffile_open(&f, path);

	if (rc)
		return rc;
	len = sym_elf_buildid(f.elf, &raw);
	if (len < 2 || len > 64 || fstat(f.fd, &st)) {
		sym_elffile_close(&f);
		return -ENOENT;
	}
	sp_hex_encode(raw, len, id->buildid);
	sym_fileid_stat(&st, &id->st);
	add_opts(&c, opts, tool);
	if (sp_buf_addf(&c.b, "size %jd\n", (intmax_t)st.st_size))
		c.bad = true;
	/* Root's own and the user's own files share: nobody else's do. */
	if (st.st_uid != 0 && st.st_uid != geteuid() &&
	    sp_buf_addf(&c.b, "owner %ju\n", (uintmax_t)st.st_uid))
		c.bad = true;
	sym_debug_each(path, f.elf, opts->debug_dirs, opts->ndebug_dirs,
		       add_candidate, &c);
	sym_elffile_close(&f);
	/* A context cut short by ENOMEM must not pass for a whole one. */
	id->ctx = c.bad ? 0 : sp_hash(c.b.data, c.b.len);
	sp_buf_release(&c.b);
	return c.bad ? -ENOMEM : 0;
}

/*
 * Whether /proc/kallsyms shows this process addresses: its first line
 * does not start with zeros (kptr_restrict, perf_event_paranoid and
 * capabilities decide; the kernel prints the first line only).
 */
static bool
kallsyms_visible(void)
{
	char line[64];
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, line, sizeof(line) - 1);
	size_t zeros;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	line[n] = '\0';
	zeros = strspn(line, "0");
	return zeros < strcspn(line, " ");
}

int
sym_fileid_kernel(const char *tool, struct sym_fileid *id)
{
	char *rel = sym_host_release(), *boot = sym_host_bootid(), *s = NULL;
	int rc = -ENOENT;

	if (rel && boot && kallsyms_visible()) {
		rc = asprintf(&s, "%s\n%s\n", rel, boot) < 0 ? -ENOMEM : 0;
		if (rc == 0)
			snprintf(id->buildid, sizeof(id->buildid),
				 "%016" PRIx64, sp_hash(s, strlen(s)));
	}
	free(s);
	free(rel);
	free(boot);
	if (rc)
		return rc;
	if (asprintf(&s, "sp-symbolize cache %d %s\nkernel\n",
		     SYM_CACHEFILE_VERSION, tool) < 0)
		return -ENOMEM;
	id->ctx = sp_hash(s, strlen(s));
	free(s);
	return 0;
}
