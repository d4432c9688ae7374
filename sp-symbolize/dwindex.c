/*
 * dwindex.c: per-unit scope index (see dwindex.h).
 *
 * Scopes are kept in DIE-tree preorder; each records the index just past
 * its subtree, so a walk can skip a subtree whose ranges miss the
 * address.  Top-level subprogram ranges are sorted by start for the
 * first step of a lookup.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp-symbolize/dwindex.h"
#include "common/banned.h"

/* Overlapping top-level ranges are rare: look this far back. */
#define SP_DWINDEX_BACKSCAN 16
/* Real DIE trees are shallow; deeper (corrupt) ones are cut here. */
#define SP_DWINDEX_MAX_DEPTH 256

struct range {
	uint64_t lo;
	uint64_t hi;
};

struct scope {
	Dwarf_Die die;
	size_t first;	/* its ranges: r[first .. first + nr) */
	size_t nr;
	size_t end;	/* index past its subtree */
	int tag;
};

struct top {
	uint64_t lo;
	uint64_t hi;
	size_t scope;
};

struct sp_dwindex {
	struct scope *v;
	size_t n, av;
	struct range *r;
	size_t nr, ar;
	struct top *t;
	size_t nt, at;
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

static int
add_ranges(struct sp_dwindex *x, Dwarf_Die *die, bool top, size_t scope)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (lo >= hi)
			continue;
		if (reserve((void **)&x->r, &x->ar, x->nr, sizeof(*x->r)))
			return -ENOMEM;
		x->r[x->nr++] = (struct range){ lo, hi };
		if (!top)
			continue;
		if (reserve((void **)&x->t, &x->at, x->nt, sizeof(*x->t)))
			return -ENOMEM;
		x->t[x->nt++] = (struct top){ lo, hi, scope };
	}
	return 0;
}

static int walk(struct sp_dwindex *x, Dwarf_Die *parent, bool in_sub,
		unsigned depth);

static int
add_scope(struct sp_dwindex *x, Dwarf_Die *die, int tag, bool in_sub,
	  unsigned depth)
{
	size_t idx = x->n;
	struct scope *s;

	if (reserve((void **)&x->v, &x->av, x->n, sizeof(*x->v)))
		return -ENOMEM;
	s = &x->v[x->n++];
	s->die = *die;
	s->tag = tag;
	s->first = x->nr;
	if (add_ranges(x, die, tag == DW_TAG_subprogram && !in_sub, idx))
		return -ENOMEM;
	x->v[idx].nr = x->nr - x->v[idx].first;
	if (walk(x, die, in_sub || tag == DW_TAG_subprogram, depth + 1))
		return -ENOMEM;
	x->v[idx].end = x->n;
	return 0;
}

static int
walk(struct sp_dwindex *x, Dwarf_Die *parent, bool in_sub, unsigned depth)
{
	Dwarf_Die child;

	if (depth > SP_DWINDEX_MAX_DEPTH || dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram ||
		    tag == DW_TAG_inlined_subroutine) {
			if (add_scope(x, &child, tag, in_sub, depth))
				return -ENOMEM;
		} else if (dwarf_haschildren(&child) > 0 &&
			   walk(x, &child, in_sub, depth + 1)) {
			return -ENOMEM;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int
cmp_top(const void *pa, const void *pb)
{
	const struct top *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->scope < b->scope ? -1 : a->scope > b->scope;
}

struct sp_dwindex *
sp_dwindex_build(Dwarf_Die *cu)
{
	struct sp_dwindex *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	if (walk(x, cu, false, 0)) {
		sp_dwindex_free(x);
		errno = ENOMEM;
		return NULL;
	}
	if (x->nt)
		qsort(x->t, x->nt, sizeof(*x->t), cmp_top);
	return x;
}

void
sp_dwindex_free(struct sp_dwindex *x)
{
	if (!x)
		return;
	free(x->v);
	free(x->r);
	free(x->t);
	free(x);
}

static bool
holds(const struct sp_dwindex *x, const struct scope *s, uint64_t addr)
{
	size_t i;

	for (i = s->first; i < s->first + s->nr; i++)
		if (x->r[i].lo <= addr && addr < x->r[i].hi)
			return true;
	return false;
}

/* The top-level subprogram holding addr, or SIZE_MAX. */
static size_t
find_top(const struct sp_dwindex *x, uint64_t addr)
{
	size_t lo = 0, hi = x->nt, k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->t[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = 0; k < SP_DWINDEX_BACKSCAN && k < lo; k++)
		if (addr < x->t[lo - 1 - k].hi)
			return x->t[lo - 1 - k].scope;
	return SIZE_MAX;
}

size_t
sp_dwindex_chain(const struct sp_dwindex *x, uint64_t addr, bool inlines,
		 Dwarf_Die *die, size_t max)
{
	size_t chain[64], n = 0, i, end, top = find_top(x, addr);

	if (top == SIZE_MAX || max == 0)
		return 0;
	chain[n++] = top;
	end = x->v[top].end;
	for (i = top + 1; inlines && i < end && n < 64;) {
		const struct scope *s = &x->v[i];

		if (s->tag == DW_TAG_inlined_subroutine && holds(x, s, addr)) {
			chain[n++] = i;
			end = s->end;
			i++;
		} else {
			i = s->end;
		}
	}
	if (n > max)
		n = max;
	for (i = 0; i < n; i++)
		die[i] = x->v[chain[n - 1 - i]].die;
	return n;
}
