/*
 * events.c: a stream's events and the samples a view counts (events.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp-fold/model/events.h"
#include "common/banned.h"

int
fold_events_add(struct fold_events *e, const struct sp_rec *rec)
{
	uint32_t i = rec->u.event.index; /* the decoder checked the order */
	char *name = strndup(rec->u.event.name, rec->u.event.name_len);

	if (!name || i >= SP_EXT_EVENTS_MAX) {
		free(name);
		return name ? 0 : -ENOMEM;
	}
	free(e->names[i]);
	e->names[i] = name;
	e->periods[i] = rec->u.event.period;
	if (i >= e->n)
		e->n = i + 1;
	return 0;
}

void
fold_events_release(struct fold_events *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->names[i]);
	memset(e, 0, sizeof(*e));
}

/* A stream without event records is one time-sampled event. */
static bool
is_time(const char *name)
{
	return !name || !strcmp(name, "cpu-clock") ||
	       !strcmp(name, "task-clock");
}

/* The first view: one event, counted as --weight says. */
static bool
one_event(const struct fold_events *e, const struct fold_count_opts *o,
	  uint32_t ev, uint64_t w, uint64_t period_ns, uint64_t *add)
{
	const char *name = ev < e->n ? e->names[ev] : NULL;

	if (o->event_filter ? !name || strcmp(name, o->event_filter) : ev != 0)
		return false;
	if (o->weight_period)
		*add = w ? w : ev < e->n && e->periods[ev] ? e->periods[ev] : 1;
	else if (o->weight_time)
		*add = w && is_time(name) ? w : period_ns;
	else
		*add = 1;
	return true;
}

bool
fold_events_weight(const struct fold_events *e, const struct fold_count_opts *o,
		   const struct sp_rec *s, uint64_t period_ns, uint64_t *add)
{
	uint32_t ev = s->u.sample.has_event ? s->u.sample.event : 0;
	uint64_t w = s->u.sample.has_event ? s->u.sample.weight : 0;
	const char *name = ev < e->n ? e->names[ev] : NULL;
	bool off = name && !strcmp(name, "off-cpu");

	switch (o->view) {
	case FOLD_VIEW_OFFCPU:
		*add = w;
		return off;
	case FOLD_VIEW_WALL:
		*add = off || w ? w : period_ns;
		return off || is_time(name);
	default:
		return one_event(e, o, ev, w, period_ns, add);
	}
}

const char *
fold_events_name(const struct fold_events *e, const struct sp_rec *s)
{
	uint32_t ev = s->u.sample.has_event ? s->u.sample.event : 0;

	return ev < e->n ? e->names[ev] : NULL;
}

const char *
fold_events_kind(const struct fold_count_opts *o)
{
	return o->view == FOLD_VIEW_OFFCPU ? "off_cpu"
	       : o->view == FOLD_VIEW_WALL ? "wall"
					   : "cpu";
}
