/*
 * elfsym.c: function symbol tables of ELF files (see elfsym.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sp-symbolize/elf/elfsym.h"
#include "sp-symbolize/elf/symname.h"
#include "common/buf.h"
#include "common/search.h"
#include "common/banned.h"

/* Nested functions are rare: look this far back for an enclosing one. */
#define SYM_ELFSYMS_BACKSCAN 16

struct sym_elfsym {
	uint64_t start;
	uint64_t end;    /* exclusive; start when the size is 0 */
	uint64_t secend; /* end of its section: caps a size-0 symbol */
	size_t name;     /* offset into names */
	const char *str; /* the name itself, set once the names are all in */
	unsigned rank;   /* binding preference: higher wins */
	unsigned under;  /* leading underscores of the name */
	size_t len;      /* the name's length without its version */
	bool label;      /* STT_NOTYPE */
	size_t seq;      /* insertion order, for a stable sort */
};

struct sym_elfsyms {
	struct sym_elfsym *v;
	size_t n;
	size_t alloc;
	struct sp_buf names;
};

struct sym_elfsyms *
sym_elfsyms_new(void)
{
	struct sym_elfsyms *t = calloc(1, sizeof(*t));

	if (t)
		t->names = (struct sp_buf)SP_BUF_INIT;
	return t;
}

void
sym_elfsyms_free(struct sym_elfsyms *t)
{
	if (!t)
		return;
	free(t->v);
	sp_buf_release(&t->names);
	free(t);
}

/* Preference between aliases: functions over labels, then binding. */
static unsigned
sym_rank(const GElf_Sym *sym)
{
	unsigned typed = GELF_ST_TYPE(sym->st_info) == STT_NOTYPE ? 0 : 4;

	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return typed + 3;
	case STB_WEAK:
		return typed + 2;
	case STB_LOCAL:
		return typed + 1;
	default:
		return typed;
	}
}

static int
push_sym(struct sym_elfsyms *t, const GElf_Sym *sym, const char *name,
	 uint64_t secend)
{
	struct sym_elfsym *s;

	if (t->n == t->alloc) {
		if (SP_GROW(t->v, t->alloc, t->n + 1))
			return -ENOMEM;
	}
	s = &t->v[t->n];
	s->start = sym->st_value;
	s->end = sym->st_value + sym->st_size;
	if (s->end < s->start)
		s->end = UINT64_MAX;
	s->secend = secend;
	s->rank = sym_rank(sym);
	s->label = GELF_ST_TYPE(sym->st_info) == STT_NOTYPE;
	s->seq = t->n;
	s->under = (unsigned)strspn(name, "_");
	s->len = sym_name_unversioned(name);
	s->name = t->names.len;
	if (sp_buf_add(&t->names, name, strlen(name) + 1))
		return -ENOMEM;
	t->n++;
	return 0;
}

/*
 * Whether `sym` names code: a function, or an assembly label
 * (STT_NOTYPE, like the dynamic loader's _start) in an executable
 * section.  Sets *secend to the end address of its section.
 */
static bool
wanted(Elf *elf, const GElf_Sym *sym, uint64_t *secend)
{
	int type = GELF_ST_TYPE(sym->st_info);
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE ||
	    sym->st_value == 0)
		return false;
	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
		return false;
	scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	*secend = sh.sh_addr + sh.sh_size;
	return type != STT_NOTYPE || (sh.sh_flags & SHF_EXECINSTR);
}

static long
add_section(struct sym_elfsyms *t, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;
	long added = 0;

	if (!data || sh->sh_entsize == 0)
		return -EBADMSG;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		uint64_t secend = 0;

		if (!gelf_getsym(data, (int)i, &sym))
			return -EBADMSG;
		if (!wanted(elf, &sym, &secend))
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || name[0] == '$')
			continue;
		if (push_sym(t, &sym, name, secend))
			return -ENOMEM;
		added++;
	}
	return added;
}

long
sym_elfsyms_add(struct sym_elfsyms *t, Elf *elf, GElf_Word sh_type)
{
	Elf_Scn *scn = NULL;
	long total = 0;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		long added;

		if (!gelf_getshdr(scn, &sh))
			return -EBADMSG;
		if (sh.sh_type != sh_type)
			continue;
		added = add_section(t, elf, scn, &sh);
		if (added < 0)
			return added;
		total += added;
	}
	return total;
}

/* The section named `name`, with its header in *sh; NULL if none. */
static Elf_Scn *
find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL)
		if (gelf_getshdr(scn, sh) &&
		    (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    strcmp(n, name) == 0)
			return scn;
	return NULL;
}

/* Adds "NAME@plt" for the stub at `addr` of relocation `ra`. */
static int
add_stub(struct sym_elfsyms *t, Elf *elf, Elf_Data *dynsym, GElf_Word strtab,
	 const GElf_Rela *ra, uint64_t addr)
{
	GElf_Sym sym, stub;
	const char *name;
	char buf[512];

	if (GELF_R_SYM(ra->r_info) == 0 ||
	    !gelf_getsym(dynsym, (int)GELF_R_SYM(ra->r_info), &sym) ||
	    !(name = elf_strptr(elf, strtab, sym.st_name)) || !*name)
		return 0;
	if ((size_t)snprintf(buf, sizeof(buf), "%s@plt", name) >= sizeof(buf))
		return 0;
	memset(&stub, 0, sizeof(stub));
	stub.st_value = addr;
	stub.st_size = 16;
	stub.st_info = GELF_ST_INFO(STB_LOCAL, STT_FUNC);
	return push_sym(t, &stub, buf, addr + 16) ? -ENOMEM : 1;
}

long
sym_elfsyms_add_plt(struct sym_elfsyms *t, Elf *elf)
{
	GElf_Ehdr eh;
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rel, *plt, *dyn;
	Elf_Data *rdata, *ddata;
	size_t i, n, first = 0;
	long added = 0;
	int rc;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    !(rel = find_section(elf, ".rela.plt", &rsh)) ||
	    rsh.sh_type != SHT_RELA || rsh.sh_entsize == 0)
		return 0;
	plt = find_section(elf, ".plt.sec", &psh);
	if (!plt && (plt = find_section(elf, ".plt", &psh)))
		first = 1; /* skip the PLT header */
	if (!plt || psh.sh_type == SHT_NOBITS ||
	    !(dyn = elf_getscn(elf, rsh.sh_link)) || !gelf_getshdr(dyn, &dsh) ||
	    !(rdata = elf_getdata(rel, NULL)) ||
	    !(ddata = elf_getdata(dyn, NULL)))
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	for (i = 0; i < n && (i + first + 1) * 16 <= psh.sh_size; i++) {
		GElf_Rela ra;

		if (!gelf_getrela(rdata, (int)i, &ra))
			break;
		rc = add_stub(t, elf, ddata, dsh.sh_link, &ra,
			      psh.sh_addr + (i + first) * 16);
		if (rc < 0)
			return rc;
		added += rc;
	}
	return added;
}

bool
sym_elf_has_symbols(Elf *elf, GElf_Word sh_type)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == sh_type &&
		    sh.sh_entsize && sh.sh_size / sh.sh_entsize > 1)
			return true;
	}
	return false;
}

/*
 * Orders by address; at one address the preferred alias comes first:
 * the name a user knows the function by.  glibc gives a function
 * several (malloc, __libc_malloc, __GI___libc_malloc; puts, _IO_puts);
 * its internal ones start with underscores, so fewer leading
 * underscores win, then global over weak over local binding, then a
 * sized symbol, a shorter name, and the byte order of names: the table's
 * order never decides.  See elfsym.h.
 */
static int
cmp_sym(const void *pa, const void *pb)
{
	const struct sym_elfsym *a = pa, *b = pb;
	int c;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->label != b->label)
		return a->label ? 1 : -1;
	if (a->under != b->under)
		return a->under < b->under ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
	if ((a->end > a->start) != (b->end > b->start))
		return a->end > a->start ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	if ((c = strcmp(a->str, b->str)) != 0)
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* A size-0 symbol extends to the next one, but not past its section. */
static void
size_zero(struct sym_elfsym *s, const struct sym_elfsym *next)
{
	uint64_t end = s->secend;

	if (next && next->start < end)
		end = next->start;
	s->end = end > s->start ? end : s->start + 1;
}

/* Drops labels inside a function: the function names their code. */
static void
drop_inner_labels(struct sym_elfsyms *t)
{
	uint64_t covered = 0;
	size_t i, n = 0;

	for (i = 0; i < t->n; i++) {
		if (t->v[i].label && t->v[i].start < covered)
			continue;
		if (!t->v[i].label && t->v[i].end > covered)
			covered = t->v[i].end;
		t->v[n++] = t->v[i];
	}
	t->n = n;
}

void
sym_elfsyms_finish(struct sym_elfsyms *t)
{
	size_t i, n = 0;

	if (t->n == 0)
		return;
	for (i = 0; i < t->n; i++)
		t->v[i].str = (const char *)t->names.data + t->v[i].name;
	qsort(t->v, t->n, sizeof(*t->v), cmp_sym);
	for (i = 0; i < t->n; i++) {
		if (n > 0 && t->v[n - 1].start == t->v[i].start) {
			/* An alias bound as strongly says the size too. */
			if (t->v[n - 1].end < t->v[i].end &&
			    (t->v[n - 1].rank <= t->v[i].rank ||
			     t->v[n - 1].end == t->v[n - 1].start))
				t->v[n - 1].end = t->v[i].end;
			continue;
		}
		t->v[n++] = t->v[i];
	}
	t->n = n;
	drop_inner_labels(t);
	for (i = 0; i < t->n; i++)
		if (t->v[i].end == t->v[i].start)
			size_zero(&t->v[i], i + 1 < t->n ? &t->v[i + 1] : NULL);
}

size_t
sym_elfsyms_count(const struct sym_elfsyms *t)
{
	return t->n;
}

/* Index of the last symbol starting at or below vaddr, or n. */
static size_t
last_at_or_below(const struct sym_elfsyms *t, uint64_t vaddr)
{
	size_t i = SP_SEARCH_LAST_LE(t->v, t->n, start, vaddr);

	return i == SIZE_MAX ? t->n : i;
}

bool
sym_elfsyms_lookup(const struct sym_elfsyms *t, uint64_t vaddr,
		   const char **name, uint64_t *start)
{
	size_t i = last_at_or_below(t, vaddr), k;

	if (i == t->n)
		return false;
	for (k = 0; k <= SYM_ELFSYMS_BACKSCAN && k <= i; k++) {
		const struct sym_elfsym *s = &t->v[i - k];

		if (vaddr < s->end) {
			*name = (const char *)t->names.data + s->name;
			*start = s->start;
			return true;
		}
	}
	return false;
}
