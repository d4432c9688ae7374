/*
 * fuzz_symfilter.c: libFuzzer harness for sp-symbolize's record filter:
 * arbitrary text goes through the stream parser and the resolver (perf
 * maps, kallsyms, fallback names); it must be passed through or stopped
 * with an error, never crash.  The same bytes are also read as a
 * kallsyms file and as a perf map.
 *
 * The parser and resolver are sp-symbolize's own objects, taken from its
 * archive; only the three files that open module files are stubbed here
 * (image/image.c, elf/elffile.c and cache/fileid.c: every file is
 * missing), so that a run reads nothing of the host's and each input
 * costs the same everywhere.  Defining their functions here keeps the
 * linker from pulling those objects in; a call to one of their
 * functions not stubbed here pulls its object and fails the link with
 * duplicate symbols, rather than reading files unnoticed.
 *
 * tool: sp-symbolize
 * libs: -liberty
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "sp-symbolize/cache/fileid.h"
#include "sp-symbolize/elf/elffile.h"
#include "sp-symbolize/filter.h"
#include "sp-symbolize/image/image.h"
#include "sp-symbolize/jit/perfmap.h"
#include "sp-symbolize/kernel/kallsyms.h"
#include "sp-symbolize/resolve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stubs: every file is missing. */
struct sym_image *
sym_image_open(const char *path, const struct sym_symopts *opts,
	       struct sp_buf *err)
{
	(void)path;
	(void)opts;
	if (err)
		sp_buf_adds(err, "No such file or directory");
	errno = ENOENT;
	return NULL;
}

struct sym_image *
sym_image_open_mem(void *mem, size_t len, const struct sym_symopts *opts,
		   struct sp_buf *err)
{
	(void)len;
	(void)opts;
	free(mem);
	if (err)
		sp_buf_adds(err, "not an ELF file");
	errno = ENOEXEC;
	return NULL;
}

void
sym_image_free(struct sym_image *img)
{
	(void)img;
}

const char *
sym_image_buildid(const struct sym_image *img)
{
	(void)img;
	return NULL;
}

const char *
sym_image_warning(const struct sym_image *img)
{
	(void)img;
	return NULL;
}

bool
sym_image_stripped(const struct sym_image *img)
{
	(void)img;
	return false;
}

int
sym_image_resolve(struct sym_image *img, uint64_t rel_ip, struct sym_res *out)
{
	(void)img;
	(void)rel_ip;
	(void)out;
	return 0;
}

size_t
sym_image_dwarf_bytes(const struct sym_image *img)
{
	(void)img;
	return 0;
}

bool
sym_image_dwarf_held(const struct sym_image *img)
{
	(void)img;
	return false;
}

void
sym_image_drop_dwarf(struct sym_image *img)
{
	(void)img;
}

int
sym_elffile_open(struct sym_elffile *f, const char *path)
{
	(void)path;
	*f = (struct sym_elffile)SYM_ELFFILE_INIT;
	return -ENOENT;
}

void
sym_elffile_close(struct sym_elffile *f)
{
	*f = (struct sym_elffile)SYM_ELFFILE_INIT;
}

size_t
sym_elf_buildid(Elf *elf, const uint8_t **id)
{
	(void)elf;
	(void)id;
	return 0;
}

bool
sym_elf_has_code(Elf *elf)
{
	(void)elf;
	return false;
}

int
sym_fileid_read(const char *path, const struct sym_symopts *opts,
		const char *tool, struct sym_fileid *id)
{
	(void)path;
	(void)opts;
	(void)tool;
	(void)id;
	return -ENOENT;
}

int
sym_fileid_kernel(const char *tool, struct sym_fileid *id)
{
	(void)tool;
	(void)id;
	return -ENOENT;
}

void
sym_fileid_stat(const struct stat *st, struct sym_filestat *out)
{
	(void)st;
	memset(out, 0, sizeof(*out));
}

int
sym_fileid_hash(const char *path, const struct sym_filestat *want,
		uint64_t *hash)
{
	(void)path;
	(void)want;
	(void)hash;
	return -ENOENT;
}

int
sym_image_fstat(const struct sym_image *img, struct stat *st)
{
	(void)img;
	(void)st;
	return -ENOENT;
}

static void
read_as_tables(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");

	if (f) {
		sym_kallsyms_free(sym_kallsyms_read(f, NULL));
		fclose(f);
	}
	f = fmemopen((void *)data, size, "r");
	if (f) {
		sym_perfmap_free(sym_perfmap_read(f));
		fclose(f);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sym_resolver_opts o = {
		.sym = { .demangle = true, .inlines = true, .params = true },
		.no_kallsyms = true,
		.perf_map_dir = "/nonexistent",
	};
	struct sym_resolver *r;
	struct sp_buf err = SP_BUF_INIT;
	FILE *in, *out;

	if (size == 0)
		return 0;
	read_as_tables(data, size);
	r = sym_resolver_new(&o, NULL);
	in = fmemopen((void *)data, size, "r");
	out = fopen("/dev/null", "w");
	if (r && in && out)
		sym_filter_run(r, in, out, false, &err, NULL);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	sp_buf_release(&err);
	sym_resolver_free(r);
	return 0;
}
