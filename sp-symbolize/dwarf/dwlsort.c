/*
 * dwlsort.c: the order libdw gives a unit's rows (see dwline_impl.h),
 * reached by moving whole sequences where it can.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sp-symbolize/dwarf/dwline_impl.h"
#include "common/banned.h"

/* libdw's order: by address, a sequence's end first, then as written. */
struct srow {
	struct row r;
	size_t idx;
};

static int
cmp_rows(const struct row *a, size_t ia, const struct row *b, size_t ib)
{
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (row_end(a) != row_end(b))
		return row_end(a) ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

static int
cmp_srow(const void *pa, const void *pb)
{
	const struct srow *a = pa, *b = pb;

	return cmp_rows(&a->r, a->idx, &b->r, b->idx);
}

/* A run of rows in order (a sequence, as the program wrote it). */
struct seq {
	size_t start, n;
};

/* Runs in the order of their first rows; `rows` is the unit's. */
static int
cmp_seq(const void *pa, const void *pb, void *rows)
{
	const struct seq *a = pa, *b = pb;
	const struct row *r = rows;

	return cmp_rows(&r[a->start], a->start, &r[b->start], b->start);
}

/*
 * A sequence's end often shares its address with the row before it
 * (and maybe more): libdw puts the end first, so that those rows cover
 * the address.  Moves the end at `i` before the rows at its address,
 * from `start` on; returns false when a row before it is out of order
 * in another way.
 */
static bool
end_before_rows(struct row *rows, size_t start, size_t i)
{
	struct row end = rows[i];
	size_t k = i;

	while (k > start && rows[k - 1].addr == end.addr &&
	       !row_end(&rows[k - 1]))
		k--;
	if (k == i || (k > start && rows[k - 1].addr > end.addr))
		return false;
	memmove(rows + k + 1, rows + k, (i - k) * sizeof(*rows));
	rows[k] = end;
	return true;
}

/*
 * Splits the rows into ordered runs; returns their count, or 0 when a
 * run is out of order or memory ran out (the rows are then sorted one
 * by one).
 */
static size_t
split_runs(struct sym_dwline *l, struct seq **out)
{
	struct seq *v = NULL;
	size_t n = 0, a = 0, i, start = 0;

	for (i = 0; i < l->nrows; i++) {
		/* Before end_before_rows() moves the end away from i. */
		bool ends = row_end(&l->rows[i]);

		if (i > start &&
		    cmp_rows(&l->rows[i - 1], i - 1, &l->rows[i], i) > 0 &&
		    !end_before_rows(l->rows, start, i))
			goto unordered;
		if (!ends && i + 1 < l->nrows)
			continue;
		if (SP_GROW(v, a, n + 1))
			goto unordered;
		v[n++] = (struct seq){ start, i + 1 - start };
		start = i + 1;
	}
	*out = v;
	return n;
unordered:
	free(v);
	return 0;
}

/*
 * Puts ordered runs in address order, whole, when no two overlap.
 * Returns 0, 1 when they overlap (nothing moved), or -ENOMEM.
 */
static int
concat_runs(struct sym_dwline *l, struct seq *v, size_t n)
{
	struct row *rows;
	size_t i, last, at = 0;
	bool moved = false;

	qsort_r(v, n, sizeof(*v), cmp_seq, l->rows);
	for (i = 1; i < n; i++) {
		last = v[i - 1].start + v[i - 1].n - 1;
		if (cmp_rows(&l->rows[last], last, &l->rows[v[i].start],
			     v[i].start) > 0)
			return 1;
		moved |= v[i].start < v[i - 1].start;
	}
	if (!moved)
		return 0;
	if (!(rows = malloc(l->nrows * sizeof(*rows))))
		return -ENOMEM;
	for (i = 0; i < n; at += v[i].n, i++)
		memcpy(rows + at, l->rows + v[i].start, v[i].n * sizeof(*rows));
	free(l->rows);
	l->rows = rows;
	l->arows = l->nrows;
	return 0;
}

static int
sort_each_row(struct sym_dwline *l)
{
	struct srow *t = malloc(l->nrows * sizeof(*t));
	size_t i;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < l->nrows; i++)
		t[i] = (struct srow){ l->rows[i], i };
	qsort(t, l->nrows, sizeof(*t), cmp_srow);
	for (i = 0; i < l->nrows; i++)
		l->rows[i] = t[i].r;
	free(t);
	return 0;
}

/*
 * libdw's table: sorted, the last row an end of sequence whatever the
 * program said.  Programs usually hold a few sequences, each in order
 * and apart from the others, so moving whole runs is enough.
 */
int
sym_dwl_sort_rows(struct sym_dwline *l)
{
	struct seq *v = NULL;
	size_t n = split_runs(l, &v);
	int rc = n ? concat_runs(l, v, n) : 1;

	free(v);
	if (rc > 0)
		rc = sort_each_row(l);
	if (!rc && l->nrows)
		l->rows[l->nrows - 1].file_end |= ROW_END;
	return rc;
}
