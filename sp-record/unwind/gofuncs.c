/*
 * gofuncs.c: the functions of a Go module, from its symbol table
 * (gofuncs.h).
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/htab.h"
#include "common/search.h"
#include "sp-record/unwind/mapped.h"
#include "sp-record/unwind/gofuncs.h"
#include "sp-record/unwind/gopclntab.h"
#include "common/banned.h"

struct gofunc {
	uint64_t start, end;
	enum rec_gofuncs_kind kind;
};

struct rec_gofuncs {
	struct gofunc *v; /* sorted by start */
	size_t n, alloc;
	bool go; /* a runtime function of special[] was seen */
};

/* The value a file that is no Go program gets in rec_gofuncs_mods. */
#define NOT_GO 1

struct rec_gofuncs_mods {
	struct sp_htab
	    *files; /* file pointer -> struct rec_gofuncs *, NOT_GO */
};

/* The runtime functions Go's traceback treats apart, by name. */
static const struct {
	const char *name;
	enum rec_gofuncs_kind kind;
} special[] = {
	{ "runtime.systemstack", REC_GOFUNC_SYSTEMSTACK },
	{ "runtime.morestack", REC_GOFUNC_MORESTACK },
	{ "runtime.morestack_noctxt", REC_GOFUNC_MORESTACK },
	{ "runtime.mcall", REC_GOFUNC_ROOT },
	{ "runtime.goexit", REC_GOFUNC_ROOT },
	{ "runtime.mstart", REC_GOFUNC_ROOT },
	{ "runtime.rt0_go", REC_GOFUNC_ROOT },
	{ "runtime.sigtramp", REC_GOFUNC_ROOT },
	{ "runtime.sigreturn", REC_GOFUNC_ROOT },
	{ "runtime.sigreturn__sigaction", REC_GOFUNC_ROOT },
	{ "runtime.clone", REC_GOFUNC_CLONE },
};

/* The kind of function `name` (of `len` bytes), with or without ".abi0". */
static enum rec_gofuncs_kind
kind_of(const char *name, size_t len)
{
	size_t i, k;

	if (len > 5 && memcmp(name + len - 5, ".abi0", 5) == 0)
		len -= 5;
	for (i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		k = strlen(special[i].name);
		if (k == len && memcmp(name, special[i].name, k) == 0)
			return special[i].kind;
	}
	return REC_GOFUNC_OTHER;
}

static int
by_start(const void *a, const void *b)
{
	const struct gofunc *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Adds function `name` (`len` bytes) at [start, end); end 0: unknown. */
static int
add_func(void *arg, uint64_t start, uint64_t end, const char *name, size_t len)
{
	struct rec_gofuncs *fs = arg;

	if (SP_GROW(fs->v, fs->alloc, fs->n + 1) < 0)
		return -ENOMEM;
	fs->v[fs->n].start = start;
	fs->v[fs->n].end = end;
	fs->v[fs->n].kind = kind_of(name, len);
	if (fs->v[fs->n].kind != REC_GOFUNC_OTHER)
		fs->go = true;
	fs->n++;
	return 0;
}

/* Adds the function symbol `s` whose name is at strtab offset st_name. */
static int
add_symbol(struct rec_gofuncs *fs, const Elf64_Sym *s, const char *str,
	   size_t strsz)
{
	const char *name;
	size_t len;

	if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF ||
	    s->st_name >= strsz)
		return 0;
	name = str + s->st_name;
	len = strnlen(name, strsz - s->st_name);
	if (len == strsz - s->st_name)
		return -EBADMSG;
	return add_func(fs, s->st_value, s->st_value + s->st_size, name, len);
}

/* Reads the symbol table whose section header is `sh`. */
static int
read_symtab(struct rec_gofuncs *fs, const uint8_t *img, size_t size,
	    const Elf64_Shdr *shdrs, size_t shnum, const Elf64_Shdr *sh)
{
	const Elf64_Shdr *strh;
	Elf64_Sym sym;
	uint64_t i, count;
	int r;

	if (sh->sh_link >= shnum || sh->sh_entsize != sizeof(Elf64_Sym))
		return -EBADMSG;
	strh = &shdrs[sh->sh_link];
	if (sh->sh_offset > size || sh->sh_size > size - sh->sh_offset ||
	    strh->sh_offset > size || strh->sh_size > size - strh->sh_offset)
		return -EBADMSG;
	count = sh->sh_size / sizeof(Elf64_Sym);
	for (i = 0; i < count; i++) {
		memcpy(&sym, img + sh->sh_offset + i * sizeof(sym),
		       sizeof(sym));
		r = add_symbol(fs, &sym, (const char *)img + strh->sh_offset,
			       strh->sh_size);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * The section named `want` among the `n` headers `sh` (names in section
 * `strndx`), or NULL.
 */
static const Elf64_Shdr *
section_named(const uint8_t *img, size_t size, const Elf64_Shdr *sh, size_t n,
	      size_t strndx, const char *want)
{
	size_t i, k = strlen(want) + 1;
	const Elf64_Shdr *str;

	if (strndx >= n)
		return NULL;
	str = &sh[strndx];
	if (str->sh_offset > size || str->sh_size > size - str->sh_offset)
		return NULL;
	for (i = 0; i < n; i++)
		if (sh[i].sh_name < str->sh_size &&
		    str->sh_size - sh[i].sh_name >= k &&
		    memcmp(img + str->sh_offset + sh[i].sh_name, want, k) == 0)
			return &sh[i];
	return NULL;
}

/* Reads the function table of .gopclntab, for a program without symbols. */
static int
read_pclntab(struct rec_gofuncs *fs, const uint8_t *img, size_t size,
	     const Elf64_Shdr *sh, size_t n, size_t strndx)
{
	const Elf64_Shdr *tab, *text;

	tab = section_named(img, size, sh, n, strndx, ".gopclntab");
	text = section_named(img, size, sh, n, strndx, ".text");
	if (!tab || !text)
		return -ENOENT;
	if (tab->sh_type == SHT_NOBITS || tab->sh_offset > size ||
	    tab->sh_size > size - tab->sh_offset)
		return -EBADMSG;
	return rec_gopclntab_each(img + tab->sh_offset, tab->sh_size,
				  text->sh_addr, add_func, fs);
}

/*
 * Finds the section headers and reads the first SHT_SYMTAB, or without
 * one the .gopclntab.
 */
static int
read_symbols(struct rec_gofuncs *fs, const uint8_t *img, size_t size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Shdr *shdrs;
	size_t i;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -EBADMSG;
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
	    eh->e_shoff % 8 != 0 ||
	    eh->e_shnum > (size - eh->e_shoff) / sizeof(Elf64_Shdr))
		return -EBADMSG;
	shdrs = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (shdrs[i].sh_type == SHT_SYMTAB)
			return read_symtab(fs, img, size, shdrs, eh->e_shnum,
					   &shdrs[i]);
	return read_pclntab(fs, img, size, shdrs, eh->e_shnum, eh->e_shstrndx);
}

struct rec_gofuncs *
rec_gofuncs_new(const uint8_t *img, size_t size)
{
	struct rec_gofuncs *fs = calloc(1, sizeof(*fs));
	size_t i;
	int r;

	if (!fs)
		return NULL;
	r = read_symbols(fs, img, size);
	if (r == 0 && !fs->go)
		r = -ENOENT;
	if (r < 0) {
		rec_gofuncs_free(fs);
		errno = -r;
		return NULL;
	}
	qsort(fs->v, fs->n, sizeof(fs->v[0]), by_start);
	/* a symbol without size ends where the next one starts */
	for (i = 0; i < fs->n; i++)
		if (fs->v[i].end == fs->v[i].start)
			fs->v[i].end = i + 1 < fs->n ? fs->v[i + 1].start
						     : fs->v[i].start + 1;
	return fs;
}

void
rec_gofuncs_free(struct rec_gofuncs *fs)
{
	if (!fs)
		return;
	free(fs->v);
	free(fs);
}

bool
rec_gofuncs_find(const struct rec_gofuncs *fs, uint64_t vaddr, uint64_t *start,
		 uint64_t *end, enum rec_gofuncs_kind *kind)
{
	size_t i = SP_SEARCH_LAST_LE(fs->v, fs->n, start, vaddr);

	if (i == SIZE_MAX || vaddr >= fs->v[i].end)
		return false;
	*start = fs->v[i].start;
	*end = fs->v[i].end;
	*kind = fs->v[i].kind;
	return true;
}

struct rec_gofuncs_mods *
rec_gofuncs_mods_new(void)
{
	struct rec_gofuncs_mods *m = calloc(1, sizeof(*m));

	if (m && !(m->files = sp_htab_new())) {
		free(m);
		return NULL;
	}
	return m;
}

void
rec_gofuncs_mods_free(struct rec_gofuncs_mods *m)
{
	size_t pos = 0, klen;
	const void *key;
	uint64_t val;

	if (!m)
		return;
	while (sp_htab_next(m->files, &pos, &key, &klen, &val))
		if (val != NOT_GO)
			rec_gofuncs_free((struct rec_gofuncs *)(uintptr_t)val);
	sp_htab_free(m->files);
	free(m);
}

const struct rec_gofuncs *
rec_gofuncs_mods_get(struct rec_gofuncs_mods *m, const struct rec_mapped *f)
{
	struct rec_gofuncs *fs;
	uint64_t *slot;
	bool inserted;

	slot = sp_htab_slot(m->files, &f, sizeof(f), 0, &inserted);
	if (!slot)
		return NULL;
	if (inserted) {
		fs = rec_gofuncs_new(f->img, f->size);
		*slot = fs ? (uint64_t)(uintptr_t)fs : NOT_GO;
	}
	return *slot == NOT_GO ? NULL
			       : (const struct rec_gofuncs *)(uintptr_t)*slot;
}
