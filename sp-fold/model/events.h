/*
 * events.h: a record stream's events, and which of its samples count, and
 * how much, in the view sp-fold was asked for (--view): one event's samples
 * (the first, or
 * --event-filter's), counted one each, in time or by period; the
 * off-CPU view (the "off-cpu" event, weighted by the time waited); or the
 * wall-clock view (CPU time and off-CPU time together, in nanoseconds).
 */
#ifndef SP_FOLD_MODEL_EVENTS_H
#define SP_FOLD_MODEL_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ext.h"
#include "common/records.h"
#include "sp-fold/model/model_opts.h"

/* The events a stream declared (event records), by index. */
struct fold_events {
	char *names[SP_EXT_EVENTS_MAX];
	uint64_t periods[SP_EXT_EVENTS_MAX]; /* 0: sampled at a frequency */
	size_t n;
};

/* Keeps an event record's name and period; returns 0 or -ENOMEM. */
int fold_events_add(struct fold_events *e, const struct sp_rec *rec);
void fold_events_release(struct fold_events *e);
/*
 * Whether sample record `s` counts in the view of `o`, and how much
 * (*add): 1, its period, or nanoseconds (`period_ns` for a CPU sample
 * that carries no time of its own).
 */
bool fold_events_weight(const struct fold_events *e,
			const struct fold_count_opts *o, const struct sp_rec *s,
			uint64_t period_ns, uint64_t *add);
/* The name of sample record `s`'s event, or NULL when not declared. */
const char *fold_events_name(const struct fold_events *e,
			     const struct sp_rec *s);
/* The view's name for pprof's sample type: "cpu", "off_cpu" or "wall". */
const char *fold_events_kind(const struct fold_count_opts *o);

#endif
