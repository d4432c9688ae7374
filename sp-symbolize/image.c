/*
 * image.c: ELF images with their symbol sources (see image.h).
 *
 * Symbols come from the first of: the debug file's .symtab, the file's
 * own .symtab, or else the file's .dynsym merged with the .symtab of its
 * MiniDebugInfo.  DWARF comes from the debug file, else the file itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp-symbolize/demangle.h"
#include "sp-symbolize/dwarf.h"
#include "sp-symbolize/elffile.h"
#include "sp-symbolize/elfsym.h"
#include "sp-symbolize/image.h"
#include "common/htab.h"
#include "common/banned.h"

struct sp_load {
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
};

struct sp_image {
	struct sp_symopts opts;
	struct sp_elffile file;
	struct sp_elffile debug;
	struct sp_elffile mini;
	struct sp_load *loads;
	size_t nloads;
	struct sp_elfsyms *syms;
	struct sp_dwarf *dw;
	char *buildid;
	struct sp_htab *cache;	/* vaddr -> index into results */
	struct sp_symres *results;
	size_t nresults;
	size_t aresults;
};

static int
read_loads(struct sp_image *img)
{
	size_t i, n;

	if (elf_getphdrnum(img->file.elf, &n))
		return -EBADMSG;
	img->loads = calloc(n ? n : 1, sizeof(*img->loads));
	if (!img->loads)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(img->file.elf, (int)i, &ph))
			return -EBADMSG;
		if (ph.p_type != PT_LOAD)
			continue;
		img->loads[img->nloads].offset = ph.p_offset;
		img->loads[img->nloads].vaddr = ph.p_vaddr;
		img->loads[img->nloads].filesz = ph.p_filesz;
		img->nloads++;
	}
	return 0;
}

static void
read_buildid(struct sp_image *img)
{
	const uint8_t *id;
	size_t len = sp_elf_buildid(img->file.elf, &id);

	if (len == 0)
		return;
	img->buildid = malloc(2 * len + 1);
	if (img->buildid)
		sp_buildid_hex(id, len, img->buildid);
}

/* Fills the symbol table from the best source; returns 0 or -errno. */
static int
load_symbols(struct sp_image *img)
{
	Elf *elf = img->file.elf;
	long rc = 0;

	img->syms = sp_elfsyms_new();
	if (!img->syms)
		return -ENOMEM;
	if (img->debug.elf && sp_elf_has_symbols(img->debug.elf, SHT_SYMTAB))
		rc = sp_elfsyms_add(img->syms, img->debug.elf, SHT_SYMTAB);
	else if (sp_elf_has_symbols(elf, SHT_SYMTAB))
		rc = sp_elfsyms_add(img->syms, elf, SHT_SYMTAB);
	else {
		rc = sp_elfsyms_add(img->syms, elf, SHT_DYNSYM);
		if (rc >= 0 && sp_minidebug_open(elf, &img->mini) == 0)
			rc = sp_elfsyms_add(img->syms, img->mini.elf,
					    SHT_SYMTAB);
	}
	if (rc >= 0)
		rc = sp_elfsyms_add_plt(img->syms, elf);
	sp_elfsyms_finish(img->syms);
	return rc < 0 ? (int)rc : 0;
}

static struct sp_image *
setup(struct sp_image *img, const char *path, const char **why)
{
	int rc;

	img->cache = sp_htab_new();
	if (!img->cache || read_loads(img)) {
		*why = img->cache ? "corrupt program headers" :
				    "out of memory";
		sp_image_free(img);
		return NULL;
	}
	read_buildid(img);
	if (path)
		sp_debug_find(path, img->file.elf, img->opts.debug_dirs,
			      img->opts.ndebug_dirs, &img->debug);
	rc = load_symbols(img);
	if (!img->opts.names_only && img->debug.elf)
		img->dw = sp_dwarf_open(img->debug.elf);
	if (!img->opts.names_only && !img->dw)
		img->dw = sp_dwarf_open(img->file.elf);
	if (rc || (sp_elfsyms_count(img->syms) == 0 && !img->dw)) {
		*why = rc == -ENOMEM ? "out of memory" :
		       rc		    ? "corrupt symbol table" :
					      "no symbols";
		sp_image_free(img);
		return NULL;
	}
	return img;
}

static struct sp_image *
new_image(const struct sp_symopts *opts)
{
	struct sp_image *img = calloc(1, sizeof(*img));

	if (!img)
		return NULL;
	img->opts = *opts;
	img->file = (struct sp_elffile)SP_ELFFILE_INIT;
	img->debug = (struct sp_elffile)SP_ELFFILE_INIT;
	img->mini = (struct sp_elffile)SP_ELFFILE_INIT;
	return img;
}

struct sp_image *
sp_image_open(const char *path, const struct sp_symopts *opts,
	      const char **why)
{
	struct sp_image *img = new_image(opts);
	int rc;

	if (!img) {
		*why = "out of memory";
		return NULL;
	}
	rc = sp_elffile_open(&img->file, path);
	if (rc) {
		*why = rc == -ENOEXEC ? "not an ELF file" : strerror(-rc);
		sp_image_free(img);
		return NULL;
	}
	return setup(img, path, why);
}

struct sp_image *
sp_image_open_mem(void *mem, size_t len, const struct sp_symopts *opts,
		  const char **why)
{
	struct sp_image *img = new_image(opts);

	if (!img) {
		free(mem);
		*why = "out of memory";
		return NULL;
	}
	if (sp_elffile_open_mem(&img->file, mem, len)) {
		*why = "not an ELF file";
		sp_image_free(img);
		return NULL;
	}
	return setup(img, NULL, why);
}

void
sp_image_free(struct sp_image *img)
{
	size_t i;

	if (!img)
		return;
	for (i = 0; i < img->nresults; i++)
		sp_symres_release(&img->results[i]);
	free(img->results);
	sp_htab_free(img->cache);
	sp_dwarf_free(img->dw);
	sp_elfsyms_free(img->syms);
	free(img->loads);
	free(img->buildid);
	sp_elffile_close(&img->mini);
	sp_elffile_close(&img->debug);
	sp_elffile_close(&img->file);
	free(img);
}

const char *
sp_image_buildid(const struct sp_image *img)
{
	return img->buildid;
}

bool
sp_image_vaddr(const struct sp_image *img, uint64_t rel_ip, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < img->nloads; i++) {
		const struct sp_load *l = &img->loads[i];

		if (rel_ip >= l->offset && rel_ip - l->offset < l->filesz) {
			*vaddr = rel_ip - l->offset + l->vaddr;
			return true;
		}
	}
	return false;
}

/* Resolves `vaddr` from symbols and DWARF into `out` (empty: none). */
static int
lookup(struct sp_image *img, uint64_t vaddr, struct sp_symres *out)
{
	const char *name = NULL;
	uint64_t start = 0;
	bool have = img->syms && sp_elfsyms_lookup(img->syms, vaddr, &name,
						   &start);
	char *dm = have && img->opts.demangle ? sp_demangle(name) : NULL;
	const char *shown = dm ? dm : name;
	int n = 0;

	if (img->dw)
		n = sp_dwarf_frames(img->dw, vaddr, shown, img->opts.inlines,
				    img->opts.demangle, out);
	if (n == 0 && have)
		n = sp_symres_add(out, shown) ? 1 : -ENOMEM;
	free(dm);
	if (n > 0 && have) {
		out->v[0].offset = vaddr - start;
		out->v[0].has_offset = true;
	}
	return n < 0 ? n : 0;
}

static struct sp_symres *
new_result(struct sp_image *img)
{
	if (img->nresults == img->aresults) {
		size_t a = img->aresults ? 2 * img->aresults : 64;
		struct sp_symres *v = realloc(img->results, a * sizeof(*v));

		if (!v)
			return NULL;
		img->results = v;
		img->aresults = a;
	}
	img->results[img->nresults] = (struct sp_symres)SP_SYMRES_INIT;
	return &img->results[img->nresults];
}

static int
append_copy(struct sp_symres *out, const struct sp_symres *r)
{
	return sp_symres_append(out, r) ? -ENOMEM : (int)r->n;
}

int
sp_image_resolve(struct sp_image *img, uint64_t rel_ip, struct sp_symres *out)
{
	uint64_t vaddr, idx;
	struct sp_symres *r;

	if (!sp_image_vaddr(img, rel_ip, &vaddr))
		return 0;
	if (sp_htab_get(img->cache, &vaddr, sizeof(vaddr), &idx))
		return append_copy(out, &img->results[idx]);
	r = new_result(img);
	if (!r || lookup(img, vaddr, r) ||
	    sp_htab_put(img->cache, &vaddr, sizeof(vaddr), img->nresults)) {
		if (r)
			sp_symres_release(r);
		return -ENOMEM;
	}
	img->nresults++;
	return append_copy(out, r);
}

size_t
sp_image_cached(const struct sp_image *img)
{
	return img->nresults;
}
