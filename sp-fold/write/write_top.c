/*
 * write_top.c: --format top, the functions of the folded stacks by self and
 * total count with percentages, like the flat views of `perf report
 * --no-children` and `--children` in one table, sorted by self.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/htab.h"
#include "sp-fold/model/foldset.h"
#include "sp-fold/model/profile.h"
#include "sp-fold/write/write_top.h"
#include "common/banned.h"

struct fn {
	const char *name;
	size_t len;
	uint64_t self, total;
	size_t seen; /* last line counted in total, plus one */
};

struct top {
	struct sp_htab *idx;
	struct fn *v;
	size_t n, alloc;
};

static struct fn *
fn_get(struct top *t, const char *name, size_t len)
{
	uint64_t *slot;
	bool inserted = false;

	slot = sp_htab_slot(t->idx, name, len, t->n, &inserted);
	if (!slot)
		return NULL;
	if (inserted) {
		if (SP_GROW(t->v, t->alloc, t->n + 1))
			return NULL;
		t->v[t->n++] = (struct fn){ name, len, 0, 0, 0 };
	}
	return &t->v[*slot];
}

/* Counts one folded line; `line` numbers lines from 1. */
static int
count_line(struct top *t, const struct fold_line *l, size_t line,
	   bool skip_comm)
{
	const char *p = l->stack, *end = l->stack + l->len, *semi;
	struct fn *f = NULL;
	bool first = true;

	for (; p <= end; p = semi + 1) {
		semi = memchr(p, ';', (size_t)(end - p));
		semi = semi ? semi : end;
		if (first && skip_comm) {
			first = false;
			continue;
		}
		if (!(f = fn_get(t, p, (size_t)(semi - p))))
			return -ENOMEM;
		if (f->seen != line)
			f->total += l->count;
		f->seen = line;
	}
	if (f)
		f->self += l->count;
	return 0;
}

/* By self count (or total, with --sort total), the other next, then name. */
static int
fn_cmp(const void *a, const void *b, void *by_total)
{
	const struct fn *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	uint64_t xk = *(bool *)by_total ? x->total : x->self;
	uint64_t yk = *(bool *)by_total ? y->total : y->self;
	uint64_t xo = *(bool *)by_total ? x->self : x->total;
	uint64_t yo = *(bool *)by_total ? y->self : y->total;
	int c;

	if (xk != yk)
		return xk > yk ? -1 : 1;
	if (xo != yo)
		return xo > yo ? -1 : 1;
	c = memcmp(x->name, y->name, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* What the counts are: samples, nanoseconds of a view, or events. */
static const char *
unit_of(const struct fold_top_opts *o)
{
	return o->unit ? o->unit : "samples";
}

static void
print_top(FILE *out, const struct top *t, uint64_t all,
	  const struct fold_top_opts *o)
{
	double scale = all ? 100.0 / (double)all : 0;
	/* Times read as milliseconds: nine-digit nanoseconds do not. */
	bool ms = strstr(unit_of(o), "nanoseconds") != NULL;
	size_t i;

	fprintf(out, "# %" PRIu64 " %s, %zu functions%s\n", all, unit_of(o),
		t->n, ms ? "; self and total in milliseconds" : "");
	fprintf(out, "%8s %8s %12s %12s  %s\n", "self%", "total%",
		ms ? "self ms" : "self", ms ? "total ms" : "total", "function");
	for (i = 0; i < t->n; i++) {
		fprintf(out, "%7.2f%% %7.2f%% ", (double)t->v[i].self * scale,
			(double)t->v[i].total * scale);
		if (ms)
			fprintf(out, "%12.1f %12.1f",
				(double)t->v[i].self / 1e6,
				(double)t->v[i].total / 1e6);
		else
			fprintf(out, "%12" PRIu64 " %12" PRIu64, t->v[i].self,
				t->v[i].total);
		fprintf(out, "  %.*s\n", (int)t->v[i].len, t->v[i].name);
	}
}

int
fold_write_top(FILE *out, const struct fold_profile *p,
	       const struct fold_top_opts *o)
{
	struct fold_set *set = p->set;
	struct top t = { 0 };
	const struct fold_line *l;
	size_t n, i;
	int rc = -ENOMEM;

	t.idx = sp_htab_new();
	if (t.idx && !fold_set_lines(set, &l, &n)) {
		for (rc = 0, i = 0; !rc && i < n; i++)
			rc = count_line(&t, &l[i], i + 1, !o->no_comm);
	}
	if (!rc) {
		if (t.n)
			qsort_r(t.v, t.n, sizeof(*t.v), fn_cmp,
				(void *)&o->by_total);
		print_top(out, &t, fold_set_total(set), o);
	}
	sp_htab_free(t.idx);
	free(t.v);
	return rc ? -ENOMEM : 0;
}
