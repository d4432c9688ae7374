/* chart.c: --flamechart (chart.h). */
#include <err.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "sp-fold/chart.h"
#include "sp-fold/expand.h"
#include "sp-fold/svg.h"
#include "common/banned.h"

#define NO_STACK UINT64_MAX

/* Each entry's folded stack, once, in one arena: offsets, or NO_STACK
 * for an entry the frame filters drop. */
static int
entry_stacks(const struct fold_reader *r, struct sp_buf *arena, uint64_t *off,
	     size_t *len)
{
	struct sp_buf tmp = SP_BUF_INIT;
	const struct fold_entry *e;
	size_t i;
	bool keep;
	int rc = 0;

	for (i = 0; !rc && i < r->nents; i++) {
		e = &r->ents[i];
		rc = fold_model_folded(
		    &r->m, r->o,
		    e->name == UINT32_MAX ? NULL : r->m.strs[e->name], e->pid,
		    e->tid, e->stack, &tmp, &keep);
		off[i] = keep ? arena->len : NO_STACK;
		len[i] = tmp.len;
		if (!rc && keep)
			rc = sp_buf_add(arena, tmp.data, tmp.len);
	}
	sp_buf_release(&tmp);
	return rc;
}

/* The ticks as lines, a run of one entry's ticks as one line. */
static size_t
runs(const struct fold_reader *r, const uint32_t *order,
     const struct sp_buf *arena, const uint64_t *off, const size_t *len,
     struct fold_line *lines)
{
	size_t i, n = 0;
	uint32_t e, last = UINT32_MAX;

	for (i = 0; i < r->nticks; i++) {
		e = r->ticks[order[i]].entry;
		if (off[e] == NO_STACK)
			continue;
		if (e == last) {
			lines[n - 1].count++;
			continue;
		}
		lines[n++] =
		    (struct fold_line){ (const char *)arena->data + off[e],
					len[e], 1 };
		last = e;
	}
	return n;
}

int
fold_write_chart(FILE *out, const struct fold_reader *r)
{
	struct sp_buf arena = SP_BUF_INIT;
	uint32_t *order = calloc(r->nticks + 1, sizeof(*order));
	uint64_t *off = calloc(r->nents + 1, sizeof(*off));
	size_t *len = calloc(r->nents + 1, sizeof(*len)), i, n;
	struct fold_line *lines = calloc(r->nticks + 1, sizeof(*lines));
	int rc = 1;

	if (order && off && len && lines &&
	    !entry_stacks(r, &arena, off, len)) {
		for (i = 0; i < r->nticks; i++)
			order[i] = (uint32_t)i;
		qsort_r(order, r->nticks, sizeof(*order), fold_tick_cmp,
			(void *)r);
		n = runs(r, order, &arena, off, len, lines);
		rc = fold_write_svg_chart(out, lines, n, r->o);
	} else {
		warnx("out of memory");
	}
	free(order);
	free(off);
	free(len);
	free(lines);
	sp_buf_release(&arena);
	return rc;
}
