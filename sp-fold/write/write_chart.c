/* write_chart.c: --flamechart (write_chart.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "sp-fold/write/write_chart.h"
#include "sp-fold/write/write_svg_records.h"
#include "common/banned.h"

/* The ticks as lines, a run of one entry's ticks as one line. */
static size_t
runs(const struct fold_profile *p, const uint32_t *order,
     const struct fold_svg_records *s, struct fold_svg_line *lines)
{
	size_t i, n = 0;
	uint32_t e, last = UINT32_MAX;

	for (i = 0; i < p->nticks; i++) {
		e = p->ticks[order[i]].entry;
		if (!s->lines[e].stack)
			continue;
		if (e == last) {
			lines[n - 1].count++;
			continue;
		}
		lines[n] = s->lines[e];
		lines[n++].count = 1;
		last = e;
	}
	return n;
}

int
fold_write_chart(FILE *out, const struct fold_profile *p,
		 const struct fold_name_opts *name,
		 const struct fold_svg_opts *svg)
{
	struct fold_svg_records s;
	uint32_t *order = calloc(p->nticks + 1, sizeof(*order));
	struct fold_svg_line *lines = calloc(p->nticks + 1, sizeof(*lines));
	size_t i, n;
	int rc = -ENOMEM;

	if (!fold_svg_records_build(&s, p, name) && order && lines) {
		for (i = 0; i < p->nticks; i++)
			order[i] = (uint32_t)i;
		qsort_r(order, p->nticks, sizeof(*order), fold_profile_tick_cmp,
			(void *)p);
		n = runs(p, order, &s, lines);
		rc = fold_svg_draw_chart(out, lines, n, svg);
	}
	free(order);
	free(lines);
	fold_svg_records_release(&s);
	return rc;
}
