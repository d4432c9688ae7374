/*
 * dwarf.c: DWARF lines and inline chains (see dwarf.h).  The scopes at
 * an address, innermost first, come from dwarf_getscopes(); inlined
 * subroutines carry their call site as DW_AT_call_file/DW_AT_call_line.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "sp-symbolize/demangle.h"
#include "sp-symbolize/dwarf.h"
#include "common/banned.h"

/* Deeper inline chains than this are cut at the outermost frames. */
#define SP_DWARF_MAX_DEPTH 64

struct sp_dwarf {
	Dwarf *dw;
};

/* The inlined subroutines and their subprogram, innermost first. */
struct chain {
	Dwarf_Die die[SP_DWARF_MAX_DEPTH];
	size_t n;
};

struct sp_dwarf *
sp_dwarf_open(Elf *elf)
{
	struct sp_dwarf *d;
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);

	if (!dw)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d) {
		dwarf_end(dw);
		return NULL;
	}
	d->dw = dw;
	return d;
}

void
sp_dwarf_free(struct sp_dwarf *d)
{
	if (!d)
		return;
	dwarf_end(d->dw);
	free(d);
}

static const char *
die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s;

	s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name,
						  &a));
	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(
			die, DW_AT_MIPS_linkage_name, &a));
	if (!s)
		s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name,
							  &a));
	return s;
}

/*
 * Collects the inlined subroutines and the enclosing subprogram.  The
 * scopes dwarf_getscopes() gives past an inlined subroutine are those of
 * its abstract definition, so the walk continues from the concrete
 * instance's own parents, as eu-addr2line does.  Frees `scopes`.
 */
static void
collect(Dwarf_Die *scopes, int nscopes, bool inlines, struct chain *c)
{
	Dwarf_Die *parents = NULL;
	int i = 0;

	c->n = 0;
	while (i < nscopes && c->n < SP_DWARF_MAX_DEPTH) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_subprogram) {
			c->die[c->n++] = scopes[i];
			break;
		}
		if (tag != DW_TAG_inlined_subroutine) {
			i++;
			continue;
		}
		if (inlines)
			c->die[c->n++] = scopes[i];
		nscopes = dwarf_getscopes_die(&scopes[i], &parents);
		free(scopes);
		scopes = parents;
		parents = NULL;
		i = 1;
	}
	free(scopes);
}

static int
add_frame(struct sp_symres *out, const char *name, bool demangle,
	  const char *file, int line, bool inlined)
{
	char *dm = demangle ? sp_demangle(name) : NULL;
	struct sp_sym *s = sp_symres_add(out, dm ? dm : name);

	free(dm);
	if (!s)
		return -ENOMEM;
	if (inlined)
		s->flags |= SP_SYM_INLINED;
	if (file && sp_sym_set_file(s, file, line > 0 ? (unsigned)line : 0))
		return -ENOMEM;
	return 0;
}

/* The call site of an inlined subroutine, as a file name and line. */
static void
call_site(Dwarf_Die *cu, Dwarf_Die *die, const char **file, int *line)
{
	Dwarf_Attribute a;
	Dwarf_Word idx, ln;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &idx) ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || idx >= nfiles)
		return;
	*file = dwarf_filesrc(files, idx, NULL, NULL);
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &ln) == 0)
		*line = (int)ln;
}

static int
emit_chain(Dwarf_Die *cu, struct chain *c, const char *outer,
	   const char *file, int line, bool demangle, struct sp_symres *out)
{
	size_t j;
	int rc;

	for (j = c->n; j-- > 0;) {
		const char *name = j == c->n - 1 && outer ? outer :
							    die_name(&c->die[j]);
		const char *f = file;
		int l = line;

		if (j > 0)
			call_site(cu, &c->die[j - 1], &f, &l);
		rc = add_frame(out, name ? name : "??", demangle && !(
				       j == c->n - 1 && outer),
			       f, l, j != c->n - 1);
		if (rc)
			return rc;
	}
	return (int)c->n;
}

int
sp_dwarf_frames(struct sp_dwarf *d, uint64_t vaddr, const char *outer,
		bool inlines, bool demangle, struct sp_symres *out)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Line *ln;
	const char *file = NULL;
	int line = 0, nscopes, rc;
	struct chain c;

	if (!dwarf_addrdie(d->dw, vaddr, &cu))
		return 0;
	ln = dwarf_getsrc_die(&cu, vaddr);
	if (ln) {
		file = dwarf_linesrc(ln, NULL, NULL);
		dwarf_lineno(ln, &line);
	}
	nscopes = dwarf_getscopes(&cu, vaddr, &scopes);
	collect(scopes, nscopes > 0 ? nscopes : 0, inlines, &c);
	if (c.n == 0) {
		if (!outer)
			return 0;
		rc = add_frame(out, outer, false, file, line, false);
		return rc ? rc : 1;
	}
	return emit_chain(&cu, &c, outer, file, line, demangle, out);
}
