/* write_svg_records.c: the SVG flame graph of a record stream
 * (write_svg_records.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp-fold/model/expand.h"
#include "sp-fold/write/write_svg_records.h"
#include "common/banned.h"

/* Where an entry's stack and sources start in the arenas. */
struct at {
	size_t name, src;
};

/*
 * Appends entry i's stack and sources to the arenas and sets lines[i]
 * but for its pointers, which wait for the arenas to stop moving.
 */
static int
add_entry(struct fold_svg_records *s, const struct fold_profile *p,
	  const struct fold_name_opts *o, size_t i, struct sp_buf *tmp,
	  struct sp_buf *srcs, struct at *at)
{
	const struct fold_entry *e = &p->ents[i];
	bool keep;

	if (fold_model_sourced(
		p->m, o, e->name == UINT32_MAX ? NULL : p->m->strs[e->name],
		e->pid, e->tid, e->stack, tmp, srcs, NULL, &keep))
		return -ENOMEM;
	if (!keep)
		return 0;
	at[i] = (struct at){ s->names.len, s->srcs.len };
	s->lines[i] = (struct fold_svg_line){
		.len = tmp->len,
		.count = e->count,
		.nsrcs = srcs->len / sizeof(const char *),
	};
	if (sp_buf_add(&s->names, tmp->data, tmp->len) ||
	    sp_buf_add(&s->srcs, srcs->data, srcs->len) ||
	    sp_buf_addc(&s->names, 0)) /* so a kept empty stack has data */
		return -ENOMEM;
	s->lines[i].stack = ""; /* kept; set below */
	return 0;
}

int
fold_svg_records_build(struct fold_svg_records *s, const struct fold_profile *p,
		       const struct fold_name_opts *o)
{
	struct sp_buf tmp = SP_BUF_INIT, srcs = SP_BUF_INIT;
	struct at *at = calloc(p->nents + 1, sizeof(*at));
	struct fold_svg_line *l;
	size_t i;
	int rc = 0;

	*s = (struct fold_svg_records){ .names = SP_BUF_INIT,
					.srcs = SP_BUF_INIT };
	s->lines = calloc(p->nents + 1, sizeof(*s->lines));
	if (!s->lines || !at)
		rc = -ENOMEM;
	for (i = 0; !rc && i < p->nents; i++)
		rc = add_entry(s, p, o, i, &tmp, &srcs, at);
	for (i = 0; !rc && i < p->nents; i++) {
		l = &s->lines[i];
		if (!l->stack)
			continue;
		l->stack = (const char *)s->names.data + at[i].name;
		l->srcs = l->nsrcs
			      ? (const char *const *)(s->srcs.data + at[i].src)
			      : NULL;
	}
	free(at);
	sp_buf_release(&tmp);
	sp_buf_release(&srcs);
	return rc;
}

void
fold_svg_records_release(struct fold_svg_records *s)
{
	free(s->lines);
	sp_buf_release(&s->names);
	sp_buf_release(&s->srcs);
}

/*
 * The title when none was given: the name of the thread with the most
 * samples, so that a flame graph says what it is of ("Flame Graph:
 * demo"), as flamegraph.pl's cannot; NULL when the entries have none.
 */
static const char *
busiest_name(const struct fold_profile *p)
{
	uint64_t best = 0, *sums = calloc(p->m->nstrs + 1, sizeof(*sums));
	const char *name = NULL;
	size_t i;

	if (!sums)
		return NULL;
	for (i = 0; i < p->nents; i++) {
		uint32_t k = p->ents[i].name;

		if (k >= p->m->nstrs)
			continue;
		sums[k] += p->ents[i].count;
		if (sums[k] > best) {
			best = sums[k];
			name = p->m->strs[k];
		}
	}
	free(sums);
	return name;
}

int
fold_write_svg_records(FILE *out, const struct fold_profile *p,
		       const struct fold_name_opts *names,
		       const struct fold_svg_opts *svg)
{
	struct fold_svg_opts titled = *svg;
	struct fold_svg_records s;
	struct fold_svg_line *kept = NULL;
	const char *name = svg->title || svg->inverted ? NULL : busiest_name(p);
	char title[160];
	size_t i, n = 0;
	int rc = -ENOMEM;

	if (name) {
		snprintf(title, sizeof(title), "Flame Graph: %s", name);
		titled.title = title;
	}
	if (!fold_svg_records_build(&s, p, names) &&
	    (kept = calloc(p->nents + 1, sizeof(*kept)))) {
		for (i = 0; i < p->nents; i++)
			if (s.lines[i].stack)
				kept[n++] = s.lines[i];
		rc = fold_svg_draw_lines(out, kept, n, &titled);
	}
	free(kept);
	fold_svg_records_release(&s);
	return rc;
}
