/*
 * dwindex.c: per-unit scope index (see dwindex.h).
 *
 * Top-level subprogram ranges are sorted by start for the first step of
 * a lookup.  The scopes of one subprogram's subtree are kept in DIE-tree
 * preorder; each records the index just past its subtree, so a walk can
 * skip a subtree whose ranges miss the address.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/search.h"
#include "sp-symbolize/dwarf/dwindex.h"
#include "common/banned.h"

/* Overlapping top-level ranges are rare: look this far back. */
#define SYM_DWINDEX_BACKSCAN 16
/* Real DIE trees are shallow; deeper (corrupt) ones are cut here. */
#define SYM_DWINDEX_MAX_DEPTH 256

struct range {
	uint64_t lo;
	uint64_t hi;
};

struct scope {
	Dwarf_Die die;
	size_t first; /* its ranges: r[first .. first + nr) */
	size_t nr;
	size_t end; /* index past its subtree */
	int tag;
};

/* A top-level subprogram; its subtree is indexed on first lookup. */
struct sub {
	Dwarf_Die die;
	unsigned depth; /* of the walk that met it */
	bool built;
	struct scope *v; /* its subtree, preorder */
	size_t n, av;
	struct range *r;
	size_t nr, ar;
};

struct top {
	uint64_t lo;
	uint64_t hi;
	size_t sub;
};

struct sym_dwindex {
	struct sub *s;
	size_t ns, as;
	struct top *t;
	size_t nt, at;
	size_t subtrees; /* bytes of the subtrees built so far */
};

/* Grows *p (of *a elements of `size`) to hold n + 1; 0 or -ENOMEM. */
static int
reserve(void **p, size_t *a, size_t n, size_t size)
{
	size_t na;
	void *np;

	if (n < *a)
		return 0;
	na = *a ? 2 * *a : 64;
	np = reallocarray(*p, na, size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*a = na;
	return 0;
}

/* Records a top-level subprogram and its ranges; 0 or -ENOMEM. */
static int
add_top(struct sym_dwindex *x, Dwarf_Die *die, unsigned depth)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	if (reserve((void **)&x->s, &x->as, x->ns, sizeof(*x->s)))
		return -ENOMEM;
	x->s[x->ns] = (struct sub){ .die = *die, .depth = depth };
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (reserve((void **)&x->t, &x->at, x->nt, sizeof(*x->t)))
			return -ENOMEM;
		x->t[x->nt++] = (struct top){ lo, hi, x->ns };
	}
	x->ns++;
	return 0;
}

/*
 * Whether `cu` is C, whose functions are all children of the unit: it
 * has no namespaces or classes to look into, and the type DIEs that
 * make up most of its top level need not be entered.
 */
static bool
flat_unit(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
#ifdef DW_LANG_C17
	case DW_LANG_C17:
#endif
		return true;
	default:
		return false;
	}
}

/*
 * Finds the top-level subprograms under `parent`, without entering
 * them: most of a unit's DIEs are inside functions, and only the few
 * functions that samples hit are walked (by build_sub()).  With `flat`,
 * only the children of `parent` are looked at.
 */
static int
walk_tops(struct sym_dwindex *x, Dwarf_Die *parent, bool flat, unsigned depth)
{
	Dwarf_Die child;

	if (depth > SYM_DWINDEX_MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram) {
			if (add_top(x, &child, depth))
				return -ENOMEM;
		} else if (!flat && dwarf_haschildren(&child) > 0 &&
			   walk_tops(x, &child, false, depth + 1)) {
			return -ENOMEM;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int
add_ranges(struct sub *u, Dwarf_Die *die)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (reserve((void **)&u->r, &u->ar, u->nr, sizeof(*u->r)))
			return -ENOMEM;
		u->r[u->nr++] = (struct range){ lo, hi };
	}
	return 0;
}

static int walk_sub(struct sub *u, Dwarf_Die *parent, unsigned depth);

static int
add_scope(struct sub *u, Dwarf_Die *die, int tag, unsigned depth)
{
	size_t idx = u->n;
	struct scope *s;

	if (reserve((void **)&u->v, &u->av, u->n, sizeof(*u->v)))
		return -ENOMEM;
	s = &u->v[u->n++];
	s->die = *die;
	s->tag = tag;
	s->first = u->nr;
	if (add_ranges(u, die))
		return -ENOMEM;
	u->v[idx].nr = u->nr - u->v[idx].first;
	if (walk_sub(u, die, depth + 1))
		return -ENOMEM;
	u->v[idx].end = u->n;
	return 0;
}

/* Indexes the subprograms and inlined subroutines under `parent`. */
static int
walk_sub(struct sub *u, Dwarf_Die *parent, unsigned depth)
{
	Dwarf_Die child;

	if (depth > SYM_DWINDEX_MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram ||
		    tag == DW_TAG_inlined_subroutine) {
			if (add_scope(u, &child, tag, depth))
				return -ENOMEM;
		} else if (dwarf_haschildren(&child) > 0 &&
			   walk_sub(u, &child, depth + 1)) {
			return -ENOMEM;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static void
release_sub(struct sub *u)
{
	free(u->v);
	free(u->r);
	u->v = NULL;
	u->r = NULL;
	u->n = u->av = u->nr = u->ar = 0;
}

/* Indexes the subtree of `u` once; false when memory ran out. */
static bool
build_sub(struct sym_dwindex *x, struct sub *u)
{
	if (u->built)
		return true;
	if (walk_sub(u, &u->die, u->depth + 1)) {
		release_sub(u);
		return false;
	}
	u->built = true;
	x->subtrees += u->av * sizeof(*u->v) + u->ar * sizeof(*u->r);
	return true;
}

static int
cmp_top(const void *pa, const void *pb)
{
	const struct top *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->sub < b->sub ? -1 : a->sub > b->sub;
}

struct sym_dwindex *
sym_dwindex_build(Dwarf_Die *cu)
{
	struct sym_dwindex *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	if (walk_tops(x, cu, flat_unit(cu), 0)) {
		sym_dwindex_free(x);
		errno = ENOMEM;
		return NULL;
	}
	if (x->nt)
		qsort(x->t, x->nt, sizeof(*x->t), cmp_top);
	return x;
}

void
sym_dwindex_free(struct sym_dwindex *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->ns; i++)
		release_sub(&x->s[i]);
	free(x->s);
	free(x->t);
	free(x);
}

size_t
sym_dwindex_bytes(const struct sym_dwindex *x)
{
	if (!x)
		return 0;
	return sizeof(*x) + x->as * sizeof(*x->s) + x->at * sizeof(*x->t) +
	       x->subtrees;
}

static bool
holds(const struct sub *u, const struct scope *s, uint64_t addr)
{
	size_t i;

	for (i = s->first; i < s->first + s->nr; i++)
		if (u->r[i].lo <= addr && addr < u->r[i].hi)
			return true;
	return false;
}

/* The top-level subprogram holding addr, or SIZE_MAX. */
static size_t
find_top(const struct sym_dwindex *x, uint64_t addr)
{
	size_t i = SP_SEARCH_LAST_LE(x->t, x->nt, lo, addr), k;

	for (k = 0; i != SIZE_MAX && k <= i && k < SYM_DWINDEX_BACKSCAN; k++)
		if (addr < x->t[i - k].hi)
			return x->t[i - k].sub;
	return SIZE_MAX;
}

size_t
sym_dwindex_chain(struct sym_dwindex *x, uint64_t addr, bool inlines,
		  Dwarf_Die *die, size_t max)
{
	size_t chain[64], n = 0, i, end, top = find_top(x, addr);
	struct sub *u;

	if (top == SIZE_MAX || max == 0)
		return 0;
	u = &x->s[top];
	if (inlines && !build_sub(x, u))
		return 0;
	end = u->n;
	for (i = 0; inlines && i < end && n < 63;) {
		const struct scope *s = &u->v[i];

		if (s->tag == DW_TAG_inlined_subroutine && holds(u, s, addr)) {
			chain[n++] = i;
			end = s->end;
			i++;
		} else {
			i = s->end;
		}
	}
	/* die[] gets the innermost first and the subprogram last. */
	if (n + 1 > max)
		n = max - 1;
	for (i = 0; i < n; i++)
		die[i] = u->v[chain[n - 1 - i]].die;
	die[n] = u->die;
	return n + 1;
}
