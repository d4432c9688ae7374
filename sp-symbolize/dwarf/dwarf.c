/*
 * dwarf.c: DWARF lines and inline chains (see dwarf.h).  The scopes at
 * an address, innermost first, come from a per-unit index (dwindex.h)
 * built on a unit's first lookup; inlined subroutines carry their call
 * site as DW_AT_call_file/DW_AT_call_line.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "common/grow.h"
#include "common/htab.h"
#include "common/search.h"
#include "sp-symbolize/dwarf/dwarf.h"
#include "sp-symbolize/dwarf/dwindex.h"
#include "sp-symbolize/dwarf/dwline.h"
#include "sp-symbolize/dwarf/inflate.h"
#include "common/banned.h"

/* Deeper inline chains than this are cut at the outermost frames. */
#define SYM_DWARF_MAX_DEPTH 64

/*
 * Real DWARF compresses 3 to 10 times; a section that would inflate to
 * more than 256 MiB and 32 times its stored size is a bomb (a 2 MB file
 * whose .debug_info and .debug_line become 1 GiB each), not read.
 */
#define SYM_DWARF_INFLATE_MIN (256ull << 20)
#define SYM_DWARF_INFLATE_RATIO 32

/* A unit's address range, for files without .debug_aranges. */
struct curange {
	uint64_t lo;
	uint64_t hi;
	Dwarf_Die cu;
};

/* What a unit keeps, built on its first lookup. */
struct unit {
	struct sym_dwindex *scopes; /* NULL where indexing failed */
	struct sym_dwline *lines;   /* NULL: libdw's line table answers */
};

struct sym_dwarf {
	struct sym_elffile file; /* our own handle: what libdw reads */
	size_t bytes; /* its debug sections, read and inflated, and units */
	Dwarf *dw;
	struct sym_dwsects sects;      /* for dwline.c; empty when unusable */
	struct sym_inflated *inflated; /* sections libdw reads, or NULL */
	struct curange *cus;           /* sorted by lo, built on demand */
	size_t ncus;
	bool cus_built;
	struct sp_htab *by_cu; /* unit offset -> index into units */
	struct unit *units;
	size_t nunits, aunits;
};

/* The inlined subroutines and their subprogram, innermost first. */
struct chain {
	Dwarf_Die die[SYM_DWARF_MAX_DEPTH];
	size_t n;
};

/* What follows ".debug_" or ".zdebug_" in a section name, or NULL. */
static const char *
debug_suffix(const char *name)
{
	if (strncmp(name, ".debug_", 7) == 0)
		return name + 7;
	if (strncmp(name, ".zdebug_", 8) == 0)
		return name + 8;
	return NULL;
}

/*
 * Whether `name` is a DWARF section that lines and inline chains never
 * read: location lists, call frame information, macros, name indexes.
 * Plain, GNU-compressed (.zdebug_) and split (.dwo) names count.
 */
static bool
unused_section(const char *name)
{
	static const char *const unused[] = {
		"loc",      "loclists",     "frame",
		"macro",    "macinfo",      "pubnames",
		"pubtypes", "gnu_pubnames", "gnu_pubtypes",
	};
	size_t i, n;

	if (!(name = debug_suffix(name)))
		return false;
	n = strlen(name);
	if (n > 4 && strcmp(name + n - 4, ".dwo") == 0)
		n -= 4;
	for (i = 0; i < sizeof(unused) / sizeof(unused[0]); i++)
		if (strlen(unused[i]) == n && strncmp(name, unused[i], n) == 0)
			return true;
	return false;
}

/*
 * dwarf_begin_elf() reads (and decompresses) every DWARF section it
 * knows, at once: in an optimized library the location lists alone are
 * a sixth to a fifth of the debug data.  Marking the unused ones SHT_NOBITS in
 * our read-only handle's copy of the section headers makes libdw skip them; the
 * file is never written.
 */
static void
hide_unused_sections(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    (sh.sh_flags & SHF_ALLOC))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || !unused_section(name))
			continue;
		sh.sh_type = SHT_NOBITS;
		gelf_update_shdr(scn, &sh);
	}
}

/*
 * The size a section of `elf` decompresses to, or its own size when it
 * is not compressed: ELF compression (SHF_COMPRESSED, with its header)
 * or GNU .zdebug ("ZLIB" and a 64-bit big-endian size).
 */
static uint64_t
inflated_size(Elf_Scn *scn, const GElf_Shdr *sh, const char *name)
{
	GElf_Chdr ch;
	Elf_Data *d;
	const unsigned char *p;
	uint64_t n = 0;
	int i;

	if (sh->sh_flags & SHF_COMPRESSED)
		return gelf_getchdr(scn, &ch) ? ch.ch_size : sh->sh_size;
	if (strncmp(name, ".zdebug_", 8) != 0 ||
	    !(d = elf_rawdata(scn, NULL)) || d->d_size < 12 ||
	    memcmp(d->d_buf, "ZLIB", 4) != 0)
		return sh->sh_size;
	p = (const unsigned char *)d->d_buf + 4;
	for (i = 0; i < 8; i++)
		n = n << 8 | p[i];
	return n;
}

/*
 * True when a DWARF section of `elf` would decompress to an implausible
 * size; sections already hidden do not count.
 */
static bool
dwarf_bomb(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;
	GElf_Shdr sh;
	uint64_t full;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    !debug_suffix(name))
			continue;
		full = inflated_size(scn, &sh, name);
		if (full > SYM_DWARF_INFLATE_MIN &&
		    full / SYM_DWARF_INFLATE_RATIO > sh.sh_size)
			return true;
	}
	return false;
}

/* Which of dwline.c's sections `name` is: 1 to 3, or 0 for none. */
static int
line_section(const char *name)
{
	static const char *const names[] = { "line", "str", "line_str" };
	int i;

	if (!(name = debug_suffix(name)))
		return 0;
	for (i = 0; i < 3; i++)
		if (strcmp(name, names[i]) == 0)
			return i + 1;
	return 0;
}

/*
 * The line program's sections, once dwarf_begin_elf() has inflated
 * them: dwline.c reads the bytes libdw reads.  A section still
 * compressed, or a big-endian file, leaves the lines to libdw.
 */
static void
find_line_sections(struct sym_dwarf *d, Elf *elf)
{
	const unsigned char *id =
	    (const unsigned char *)elf_getident(elf, NULL);
	struct sym_dwsects s = { 0 };
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;
	int which;
	GElf_Shdr sh;
	Elf_Data *data;

	if (!id || id[EI_DATA] != ELFDATA2LSB ||
	    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    !(which = line_section(name)))
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) ||
		    !(data = elf_getdata(scn, NULL)) || !data->d_buf ||
		    (data->d_size >= 4 && memcmp(data->d_buf, "ZLIB", 4) == 0))
			return;
		if (which == 1) {
			s.line = data->d_buf;
			s.line_len = data->d_size;
		} else if (which == 2) {
			s.str = data->d_buf;
			s.str_len = data->d_size;
		} else {
			s.line_str = data->d_buf;
			s.line_str_len = data->d_size;
		}
	}
	d->sects = s;
}

/*
 * The bytes of the debug sections of `elf` that libelf will hold in
 * memory for libdw: as stored, compressed or not.
 */
static size_t
debug_bytes(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, n = 0;
	const char *name;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    debug_suffix(name))
			n += sh.sh_size;
	return n;
}

struct sym_dwarf *
sym_dwarf_open(const struct sym_elffile *f)
{
	struct sym_dwarf *d = calloc(1, sizeof(*d));
	int rc;

	if (!d)
		return NULL;
	if ((rc = sym_elffile_reopen(f, &d->file))) {
		free(d);
		errno = rc == -ENOMEM ? ENOMEM : ENODATA;
		return NULL;
	}
	hide_unused_sections(d->file.elf);
	if (dwarf_bomb(d->file.elf)) {
		sym_dwarf_free(d);
		errno = EFBIG;
		return NULL;
	}
	d->bytes = debug_bytes(d->file.elf);
	d->inflated = sym_inflate_debug(d->file.elf);
	d->bytes += sym_inflated_bytes(d->inflated);
	d->dw = dwarf_begin_elf(d->file.elf, DWARF_C_READ, NULL);
	if (!d->dw || !(d->by_cu = sp_htab_new())) {
		rc = d->dw ? ENOMEM : ENODATA;
		sym_dwarf_free(d);
		errno = rc;
		return NULL;
	}
	find_line_sections(d, d->file.elf);
	return d;
}

size_t
sym_dwarf_bytes(const struct sym_dwarf *d)
{
	return d ? d->bytes : 0;
}

void
sym_dwarf_free(struct sym_dwarf *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->nunits; i++) {
		sym_dwindex_free(d->units[i].scopes);
		sym_dwline_free(d->units[i].lines);
	}
	free(d->units);
	free(d->cus);
	sp_htab_free(d->by_cu);
	dwarf_end(d->dw);
	sym_inflated_free(d->inflated);
	sym_elffile_close(&d->file);
	free(d);
}

static const char *
die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s;

	s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!s)
		s = dwarf_formstring(
		    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	return s;
}

static int
add_frame(struct sym_res *out, const char *name,
	  const struct sym_nameopts *names, const char *file, int line,
	  int start, bool inlined)
{
	char *dm = names ? sym_name_show(name, names) : NULL;
	struct sym_entry *s = sym_res_add(out, dm ? dm : name);

	free(dm);
	if (!s)
		return -ENOMEM;
	if (inlined)
		s->flags |= SP_SYM_INLINED;
	s->start_line = start > 0 ? (unsigned)start : 0;
	if (file && sym_sym_set_file(s, file, line > 0 ? (unsigned)line : 0))
		return -ENOMEM;
	return 0;
}

/*
 * The call site of an inlined subroutine, as a file name and line; the
 * unit's file names from `lines`, or from libdw when it is NULL.
 */
static void
call_site(Dwarf_Die *cu, const struct sym_dwline *lines, Dwarf_Die *die,
	  const char **file, int *line)
{
	Dwarf_Attribute a;
	Dwarf_Word idx, ln;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &idx))
		return;
	if (lines)
		*file = sym_dwline_file(lines, idx);
	else if (dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && idx < nfiles)
		*file = dwarf_filesrc(files, idx, NULL, NULL);
	if (!*file)
		return;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &ln) == 0)
		*line = (int)ln;
}

static int
emit_chain(Dwarf_Die *cu, const struct sym_dwline *lines, struct chain *c,
	   const char *outer, const char *file, int line,
	   const struct sym_nameopts *names, struct sym_res *out)
{
	size_t j;
	int rc;

	for (j = c->n; j-- > 0;) {
		bool top = j == c->n - 1;
		const char *name = top && outer ? outer : die_name(&c->die[j]);
		const char *f = file;
		int l = line, start = 0;

		if (j > 0)
			call_site(cu, lines, &c->die[j - 1], &f, &l);
		/* pprof's Function.start_line; an inlined instance has it
		 * through its abstract origin. */
		if (dwarf_decl_line(&c->die[j], &start))
			start = 0;
		/* `outer` comes shown already. */
		rc = add_frame(out, name ? name : "??",
			       top && outer ? NULL : names, f, l, start, !top);
		if (rc)
			return rc;
	}
	return (int)c->n;
}

static int
cmp_curange(const void *pa, const void *pb)
{
	const struct curange *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Appends the ranges of unit `cu`; returns 0 or -ENOMEM. */
static int
add_unit_ranges(struct sym_dwarf *d, Dwarf_Die *cu, size_t *alloc)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (SP_GROW(d->cus, *alloc, d->ncus + 1))
			return -ENOMEM;
		d->cus[d->ncus++] = (struct curange){ lo, hi, *cu };
	}
	return 0;
}

/*
 * Indexes every unit's ranges, for producers (clang) that write no
 * .debug_aranges, which dwarf_addrdie() needs.
 */
static void
build_unit_ranges(struct sym_dwarf *d)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	size_t alloc = 0;
	uint8_t unit_type;
	Dwarf_Half version;

	d->cus_built = true;
	while (dwarf_get_units(d->dw, cu, &next, &version, &unit_type, &cudie,
			       NULL) == 0) {
		cu = next;
		if (add_unit_ranges(d, &cudie, &alloc))
			break;
	}
	if (d->ncus)
		qsort(d->cus, d->ncus, sizeof(*d->cus), cmp_curange);
}

/* Finds the unit holding `vaddr`; returns false when none does. */
static bool
unit_for(struct sym_dwarf *d, uint64_t vaddr, Dwarf_Die *cu)
{
	size_t i;

	if (dwarf_addrdie(d->dw, vaddr, cu))
		return true;
	if (!d->cus_built)
		build_unit_ranges(d);
	i = SP_SEARCH_LAST_LE(d->cus, d->ncus, lo, vaddr);
	if (i == SIZE_MAX || vaddr >= d->cus[i].hi)
		return false;
	*cu = d->cus[i].cu;
	return true;
}

/*
 * The unit's line table from dwline.c, or NULL to leave it to libdw: a
 * unit of another kind (split, type), or a program dwline.c refuses.
 */
static struct sym_dwline *
read_lines(const struct sym_dwarf *d, Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	Dwarf_Word off;
	uint8_t type, asize;

	if (!d->sects.line ||
	    dwarf_cu_info(cu->cu, NULL, &type, NULL, NULL, NULL, &asize,
			  NULL) ||
	    type != DW_UT_compile ||
	    dwarf_formudata(dwarf_attr(cu, DW_AT_stmt_list, &a), &off))
		return NULL;
	return sym_dwline_read(
	    &d->sects, off, asize,
	    dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a)));
}

/* Unit `cu`'s scope index and lines, built on first use; NULL on ENOMEM. */
static struct unit *
unit_of(struct sym_dwarf *d, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct unit *u;
	uint64_t idx;

	if (sp_htab_get(d->by_cu, &off, sizeof(off), &idx))
		return &d->units[idx];
	if (SP_GROW(d->units, d->aunits, d->nunits + 1))
		return NULL;
	if (sp_htab_put(d->by_cu, &off, sizeof(off), d->nunits))
		return NULL;
	u = &d->units[d->nunits++];
	u->scopes = sym_dwindex_build(cu);
	u->lines = read_lines(d, cu);
	d->bytes += sym_dwindex_bytes(u->scopes) + sym_dwline_bytes(u->lines);
	return u;
}

/* The file and line of `vaddr` in `cu`; false when no row covers it. */
static bool
source_line(struct unit *u, Dwarf_Die *cu, uint64_t vaddr, const char **file,
	    int *line)
{
	Dwarf_Line *ln;

	if (u && u->lines)
		return sym_dwline_find(u->lines, vaddr, file, line);
	if (!(ln = dwarf_getsrc_die(cu, vaddr)))
		return false;
	*file = dwarf_linesrc(ln, NULL, NULL);
	dwarf_lineno(ln, line);
	return true;
}

int
sym_dwarf_frames(struct sym_dwarf *d, uint64_t vaddr, const char *outer,
		 bool inlines, const struct sym_nameopts *names,
		 struct sym_res *out)
{
	Dwarf_Die cu;
	const char *file = NULL;
	int line = 0, rc;
	struct unit *u;
	struct chain c;

	if (!unit_for(d, vaddr, &cu))
		return 0;
	u = unit_of(d, &cu);
	if (!source_line(u, &cu, vaddr, &file, &line)) {
		file = NULL;
		line = 0;
	}
	c.n = 0;
	if (u && u->scopes) {
		size_t before = sym_dwindex_bytes(u->scopes);

		c.n = sym_dwindex_chain(u->scopes, vaddr, inlines, c.die,
					SYM_DWARF_MAX_DEPTH);
		d->bytes += sym_dwindex_bytes(u->scopes) - before;
	}
	if (c.n == 0) {
		if (!outer)
			return 0;
		rc = add_frame(out, outer, NULL, file, line, 0, false);
		return rc ? rc : 1;
	}
	return emit_chain(&cu, u ? u->lines : NULL, &c, outer, file, line,
			  names, out);
}
