/*
 * write_threads.c: --format threads (write_threads.h).  The entries of a
 * profile are (name, process, thread, stack) counts; a thread's row sums
 * its entries, so the work follows distinct stacks, not samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/htab.h"
#include "sp-fold/write/write_threads.h"
#include "common/banned.h"

struct thread_row {
	int32_t pid;
	uint64_t tid;
	uint32_t name; /* of its busiest entry's thread name */
	uint64_t count;
};

static int
row_cmp(const void *a, const void *b)
{
	const struct thread_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Sums the entries by (pid, tid) into *rows. */
static int
sum_threads(const struct fold_profile *p, struct thread_row **rows, size_t *n)
{
	struct sp_htab *idx = sp_htab_new();
	size_t alloc = 0, i;
	uint64_t *slot;
	bool fresh;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < p->nents; i++) {
		const struct fold_entry *e = &p->ents[i];
		struct {
			int32_t pid;
			uint32_t pad;
			uint64_t tid;
		} key = { e->pid, 0, e->tid };

		slot = sp_htab_slot(idx, &key, sizeof(key), *n, &fresh);
		if (!slot || (fresh && SP_GROW(*rows, alloc, *n + 1))) {
			sp_htab_free(idx);
			return -ENOMEM;
		}
		if (fresh)
			(*rows)[(*n)++] =
			    (struct thread_row){ e->pid, e->tid, e->name, 0 };
		(*rows)[*slot].count += e->count;
	}
	sp_htab_free(idx);
	return 0;
}

int
fold_write_threads(FILE *out, const struct fold_profile *p,
		   const struct fold_count_opts *o)
{
	struct thread_row *rows = NULL;
	size_t n = 0, i;
	uint64_t all = 0;
	bool ns = o->view != FOLD_VIEW_CPU || o->weight_time;
	const char *unit = ns ? "ms" : o->weight_period ? "events" : "samples";
	int rc = p->m ? sum_threads(p, &rows, &n) : 0;

	if (rc)
		return rc;
	for (i = 0; i < n; i++)
		all += rows[i].count;
	if (n)
		qsort(rows, n, sizeof(*rows), row_cmp);
	fprintf(out, "# %zu thread%s, %.*f %s\n%8s %12s %8s %8s  %s\n", n,
		n == 1 ? "" : "s", ns ? 1 : 0,
		ns ? (double)all / 1e6 : (double)all, unit, "share", unit,
		"pid", "tid", "name");
	for (i = 0; i < n; i++) {
		fprintf(out, "%7.2f%% ",
			100.0 * (double)rows[i].count /
			    (double)(all ? all : 1));
		if (ns)
			fprintf(out, "%12.1f", (double)rows[i].count / 1e6);
		else
			fprintf(out, "%12" PRIu64, rows[i].count);
		/* a thread no comm record named has no name to show */
		fprintf(out, " %8" PRId32 " %8" PRIu64 "  %s\n", rows[i].pid,
			rows[i].tid,
			rows[i].name == UINT32_MAX ? "-"
						   : p->m->strs[rows[i].name]);
	}
	free(rows);
	return 0;
}
