/*
 * image.c: ELF images with their symbol sources (see image.h).
 *
 * Symbols come from the first of: the debug file's .symtab, the file's
 * own .symtab, or else the file's .dynsym merged with the .symtab of its
 * MiniDebugInfo.  DWARF comes from the debug file, else the file itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/grow.h"
#include "common/hex.h"
#include "sp-symbolize/dwarf/dwarf.h"
#include "sp-symbolize/elf/elffile.h"
#include "sp-symbolize/elf/elfsym.h"
#include "sp-symbolize/image/image.h"
#include "sp-symbolize/elf/symname.h"
#include "common/htab.h"
#include "common/banned.h"

struct sym_load {
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
};

struct sym_image {
	struct sym_symopts opts;
	struct sym_elffile file;
	struct sym_elffile debug;
	struct sym_elffile mini;
	struct sym_load *loads;
	size_t nloads;
	struct sym_elfsyms *syms;
	struct sym_dwarf *dw; /* NULL when dropped (or none) */
	/* The file whose DWARF `dw` reads, to open it again; NULL: none. */
	const struct sym_elffile *dwfile;
	size_t dwbytes; /* sym_dwarf_bytes() when last dropped */
	char *buildid;
	const char *warning; /* static, `note`, or NULL */
	bool stripped;       /* names from the dynamic symbols only */
	char note[200];
	struct sp_htab *cache; /* vaddr -> index into results */
	struct sym_res *results;
	size_t nresults;
	size_t aresults;
};

static int
read_loads(struct sym_image *img)
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
	/* A mapped module has loadable segments; none (e_phnum 0xffff
	 * with no count in section 0, say) means the headers lie. */
	return img->nloads ? 0 : -EBADMSG;
}

static void
read_buildid(struct sym_image *img)
{
	const uint8_t *id;
	size_t len = sym_elf_buildid(img->file.elf, &id);

	if (len == 0)
		return;
	img->buildid = malloc(2 * len + 1);
	if (img->buildid)
		sp_hex_encode(id, len, img->buildid);
}

/* Adds MiniDebugInfo's symbols, if any; a bad or bomb image is noted. */
static long
add_minidebug(struct sym_image *img)
{
	int rc = sym_minidebug_open(&img->file, &img->mini);

	if (rc == -EFBIG || rc == -EBADMSG)
		img->warning = rc == -EFBIG
				   ? "MiniDebugInfo (.gnu_debugdata) would "
				     "decompress to an implausible size: not "
				     "read, names from the dynamic symbols only"
				   : "MiniDebugInfo (.gnu_debugdata) is "
				     "corrupt: not read, names from the "
				     "dynamic symbols only";
	if (rc)
		return rc == -ENOMEM ? rc : 0;
	return sym_elfsyms_add(img->syms, img->mini.elf, SHT_SYMTAB);
}

/* Fills the symbol table from the best source; returns 0 or -errno. */
static int
load_symbols(struct sym_image *img)
{
	Elf *elf = img->file.elf;
	long rc = 0;

	img->syms = sym_elfsyms_new();
	if (!img->syms)
		return -ENOMEM;
	if (img->debug.elf && sym_elf_has_symbols(img->debug.elf, SHT_SYMTAB))
		rc = sym_elfsyms_add(img->syms, img->debug.elf, SHT_SYMTAB);
	else if (sym_elf_has_symbols(elf, SHT_SYMTAB))
		rc = sym_elfsyms_add(img->syms, elf, SHT_SYMTAB);
	else {
		rc = sym_elfsyms_add(img->syms, elf, SHT_DYNSYM);
		if (rc >= 0)
			rc = add_minidebug(img);
	}
	if (rc >= 0)
		rc = sym_elfsyms_add_plt(img->syms, elf);
	sym_elfsyms_finish(img->syms);
	return rc < 0 ? (int)rc : 0;
}

/* Opens the DWARF of `f`, unless it is a decompression bomb (noted). */
static void
open_dwarf(struct sym_image *img, const struct sym_elffile *f)
{
	img->dw = sym_dwarf_open(f);
	if (img->dw) {
		img->dwfile = f;
	} else if (errno == EFBIG) {
		img->warning = "debug sections would decompress to an "
			       "implausible size: not read, names from the "
			       "symbol table only";
	}
}

/* Says which section of the file or its debug file was not read. */
static void
note_hidden(struct sym_image *img)
{
	const struct sym_elffile *f =
	    img->file.nhidden ? &img->file : &img->debug;
	unsigned more = img->file.nhidden + img->debug.nhidden - 1;

	if (!f->nhidden)
		return;
	snprintf(img->note, sizeof(img->note),
		 "%ssection '%s' claims %" PRIu64 " bytes the file does not "
		 "hold (past its end, or holes of a sparse file)%s: not read",
		 f == &img->debug ? "the debug file's " : "", f->hidden_name,
		 f->hidden_size, more ? ", nor are others like it" : "");
	img->warning = img->note;
}

/*
 * Fails with `e` (a positive errno) and `msg`, which may point into
 * `img`: it is copied before `img` is freed.
 */
static struct sym_image *
fail(struct sym_image *img, int e, const char *msg, struct sp_buf *err)
{
	if (err)
		sp_buf_adds(err, msg);
	sym_image_free(img);
	errno = e;
	return NULL;
}

static struct sym_image *
setup(struct sym_image *img, const char *path, struct sp_buf *err)
{
	int rc;

	img->cache = sp_htab_new();
	if (!img->cache)
		return fail(img, ENOMEM, "out of memory", err);
	if (read_loads(img))
		return fail(img, EBADMSG, "corrupt program headers", err);
	read_buildid(img);
	sym_debug_find(path, img->file.elf, img->opts.debug_dirs,
		       img->opts.ndebug_dirs, &img->debug);
	rc = load_symbols(img);
	if (!img->opts.names_only && img->debug.elf)
		open_dwarf(img, &img->debug);
	if (!img->opts.names_only && !img->dw)
		open_dwarf(img, &img->file);
	note_hidden(img);
	if (rc == -ENOMEM)
		return fail(img, ENOMEM, "out of memory", err);
	if (rc)
		return fail(img, EBADMSG, "corrupt symbol table", err);
	if (sym_elfsyms_count(img->syms) == 0 && !img->dwfile)
		return img->warning ? fail(img, EFBIG, img->warning, err)
				    : fail(img, ENODATA, "no symbols", err);
	img->stripped = !img->debug.elf && !img->mini.elf && !img->dwfile &&
			!sym_elf_has_symbols(img->file.elf, SHT_SYMTAB);
	return img;
}

static struct sym_image *
new_image(const struct sym_symopts *opts)
{
	struct sym_image *img = calloc(1, sizeof(*img));

	if (!img)
		return NULL;
	img->opts = *opts;
	img->file = (struct sym_elffile)SYM_ELFFILE_INIT;
	img->debug = (struct sym_elffile)SYM_ELFFILE_INIT;
	img->mini = (struct sym_elffile)SYM_ELFFILE_INIT;
	return img;
}

struct sym_image *
sym_image_open(const char *path, const struct sym_symopts *opts,
	       struct sp_buf *err)
{
	struct sym_image *img = new_image(opts);
	int rc;

	if (!img)
		return fail(NULL, ENOMEM, "out of memory", err);
	rc = sym_elffile_open(&img->file, path);
	if (rc)
		return fail(img, -rc,
			    rc == -ENOEXEC  ? "not an ELF file"
			    : rc == -EINVAL ? "not a regular file"
					    : strerror(-rc),
			    err);
	return setup(img, path, err);
}

struct sym_image *
sym_image_open_mem(void *mem, size_t len, const struct sym_symopts *opts,
		   struct sp_buf *err)
{
	struct sym_image *img = new_image(opts);

	if (!img) {
		free(mem);
		return fail(NULL, ENOMEM, "out of memory", err);
	}
	if (sym_elffile_open_mem(&img->file, mem, len))
		return fail(img, ENOEXEC, "not an ELF file", err);
	return setup(img, NULL, err);
}

void
sym_image_free(struct sym_image *img)
{
	size_t i;

	if (!img)
		return;
	for (i = 0; i < img->nresults; i++)
		sym_res_release(&img->results[i]);
	free(img->results);
	sp_htab_free(img->cache);
	sym_dwarf_free(img->dw);
	sym_elfsyms_free(img->syms);
	free(img->loads);
	free(img->buildid);
	sym_elffile_close(&img->mini);
	sym_elffile_close(&img->debug);
	sym_elffile_close(&img->file);
	free(img);
}

bool
sym_image_stripped(const struct sym_image *img)
{
	return img->stripped;
}

int
sym_image_fstat(const struct sym_image *img, struct stat *st)
{
	if (img->file.fd < 0)
		return -ENOENT;
	return fstat(img->file.fd, st) ? -errno : 0;
}

const char *
sym_image_buildid(const struct sym_image *img)
{
	return img->buildid;
}

const char *
sym_image_warning(const struct sym_image *img)
{
	return img->warning;
}

bool
sym_image_vaddr(const struct sym_image *img, uint64_t rel_ip, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < img->nloads; i++) {
		const struct sym_load *l = &img->loads[i];

		if (rel_ip >= l->offset && rel_ip - l->offset < l->filesz) {
			*vaddr = rel_ip - l->offset + l->vaddr;
			return true;
		}
	}
	return false;
}

/* Resolves `vaddr` from symbols and DWARF into `out` (empty: none). */
static int
lookup_at(struct sym_image *img, uint64_t vaddr, struct sym_res *out)
{
	const struct sym_nameopts no = {
		img->opts.raw_names,
		img->opts.demangle,
		img->opts.params,
	};
	const char *name = NULL;
	uint64_t start = 0;
	bool have =
	    img->syms && sym_elfsyms_lookup(img->syms, vaddr, &name, &start);
	char *shown = have ? sym_name_show(name, &no) : NULL;
	int n = 0;

	if (have && !shown)
		return -ENOMEM;
	if (img->dw)
		n = sym_dwarf_frames(img->dw, vaddr, shown, img->opts.inlines,
				     &no, out);
	if (n == 0 && have)
		n = sym_res_add(out, shown) ? 1 : -ENOMEM;
	free(shown);
	if (n > 0 && have) {
		out->v[0].offset = vaddr - start;
		out->v[0].has_offset = true;
	}
	return n < 0 ? n : 0;
}

/*
 * Opens again the DWARF that sym_image_drop_dwarf() dropped; 0, or
 * -ENOMEM.  A file whose DWARF no longer opens (changed in place) is
 * answered from its symbols from then on.
 */
static int
reopen_dwarf(struct sym_image *img)
{
	if (img->dw || !img->dwfile)
		return 0;
	img->dw = sym_dwarf_open(img->dwfile);
	if (img->dw)
		return 0;
	if (errno == ENOMEM)
		return -ENOMEM;
	img->dwfile = NULL;
	img->dwbytes = 0;
	return 0;
}

/*
 * A caller's address is its call site, the return address - 1.  When
 * nothing covers it but the byte after it does, that byte starts a
 * function and the call returned to its first byte: V8 pushes such
 * return addresses (Builtins_InterpreterEnterAtNextBytecode), and the
 * byte before is padding between two functions.  The frame is named
 * from the return address.  A frame does not say whether it is a leaf
 * (the stream shares frames between stacks), but a leaf never runs in
 * padding, so the rule holds for every frame.
 */
static int
lookup(struct sym_image *img, uint64_t vaddr, struct sym_res *out)
{
	int rc = reopen_dwarf(img);

	if (rc == 0)
		rc = lookup_at(img, vaddr, out);
	if (rc == 0 && out->n == 0 && vaddr < UINT64_MAX)
		rc = lookup_at(img, vaddr + 1, out);
	return rc;
}

static struct sym_res *
new_result(struct sym_image *img)
{
	if (img->nresults == img->aresults) {
		if (SP_GROW(img->results, img->aresults, img->nresults + 1))
			return NULL;
	}
	img->results[img->nresults] = (struct sym_res)SYM_RES_INIT;
	return &img->results[img->nresults];
}

static int
append_copy(struct sym_res *out, const struct sym_res *r)
{
	return sym_res_append(out, r) ? -ENOMEM : (int)r->n;
}

int
sym_image_resolve(struct sym_image *img, uint64_t rel_ip, struct sym_res *out)
{
	uint64_t vaddr, idx;
	struct sym_res *r;

	if (!sym_image_vaddr(img, rel_ip, &vaddr))
		return 0;
	if (sp_htab_get(img->cache, &vaddr, sizeof(vaddr), &idx))
		return append_copy(out, &img->results[idx]);
	r = new_result(img);
	if (!r || lookup(img, vaddr, r) ||
	    sp_htab_put(img->cache, &vaddr, sizeof(vaddr), img->nresults)) {
		if (r)
			sym_res_release(r);
		return -ENOMEM;
	}
	img->nresults++;
	return append_copy(out, r);
}

size_t
sym_image_dwarf_bytes(const struct sym_image *img)
{
	return img->dw ? sym_dwarf_bytes(img->dw) : img->dwbytes;
}

bool
sym_image_dwarf_held(const struct sym_image *img)
{
	return img->dw != NULL;
}

void
sym_image_drop_dwarf(struct sym_image *img)
{
	if (img->dw)
		img->dwbytes = sym_dwarf_bytes(img->dw);
	sym_dwarf_free(img->dw);
	img->dw = NULL;
}

size_t
sym_image_cached(const struct sym_image *img)
{
	return img->nresults;
}
