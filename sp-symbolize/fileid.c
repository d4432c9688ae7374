/*
 * fileid.c: the cache identity of a module file or of the running
 * kernel (see fileid.h).  Of a file, only the ELF header, program
 * headers and notes (the build id) and the section headers (the
 * debuglink) are read: about 3 KB.
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

#include "common/buf.h"
#include "common/htab.h"
#include "sp-symbolize/cachefile.h"
#include "sp-symbolize/elffile.h"
#include "sp-symbolize/fileid.h"
#include "sp-symbolize/hostinfo.h"
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
	    sp_buf_addf(&c->b, "%s\n%ju %ju %jd %jd.%ld\n", cand,
			(uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
			(intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
			st.st_mtim.tv_nsec))
		c->bad = true;
	return false;
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
	sym_buildid_hex(raw, len, id->buildid);
	add_opts(&c, opts, tool);
	if (sp_buf_addf(&c.b, "size %jd\n", (intmax_t)st.st_size))
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
