/* chart.c: --flamechart (chart.h). */
#include <err.h>
#include <stdint.h>
#include <stdlib.h>

#include "sp-fold/chart.h"
#include "sp-fold/svgrec.h"
#include "common/banned.h"

/* The ticks as lines, a run of one entry's ticks as one line. */
static size_t
runs(const struct fold_reader *r, const uint32_t *order,
     const struct fold_svgrec *s, struct fold_svg_line *lines)
{
	size_t i, n = 0;
	uint32_t e, last = UINT32_MAX;

	for (i = 0; i < r->nticks; i++) {
		e = r->ticks[order[i]].entry;
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
fold_write_chart(FILE *out, const struct fold_reader *r)
{
	struct fold_svgrec s;
	uint32_t *order = calloc(r->nticks + 1, sizeof(*order));
	struct fold_svg_line *lines = calloc(r->nticks + 1, sizeof(*lines));
	size_t i, n;
	int rc = 1;

	if (!fold_svgrec_build(&s, r) && order && lines) {
		for (i = 0; i < r->nticks; i++)
			order[i] = (uint32_t)i;
		qsort_r(order, r->nticks, sizeof(*order), fold_tick_cmp,
			(void *)r);
		n = runs(r, order, &s, lines);
		rc = fold_write_svg_chart(out, lines, n, r->o);
	} else {
		warnx("out of memory");
	}
	free(order);
	free(lines);
	fold_svgrec_release(&s);
	return rc;
}
