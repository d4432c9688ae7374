/*
 * model_opts.h: what the model is told by the command line, apart from
 * the rest of it (opts.h holds these for args.c to set): how a stack's
 * frames are named and cut, and what a sample counts.  A part is given
 * the one it reads.
 */
#ifndef SP_FOLD_MODEL_MODEL_OPTS_H
#define SP_FOLD_MODEL_MODEL_OPTS_H

#include <stdbool.h>

#include "sp-fold/model/filter.h"

/* What a record stream's samples count (--view). */
enum fold_tally {
	FOLD_VIEW_CPU,    /* one event's samples: the first or --event-filter */
	FOLD_VIEW_OFFCPU, /* the time threads waited, where they waited */
	FOLD_VIEW_WALL,   /* CPU time and waiting time, in nanoseconds */
};

/* How frames become names, and which stacks and frames are kept. */
struct fold_name_opts {
	bool pid, tid;           /* append -PID or -PID/TID to the comm */
	bool no_comm;            /* no comm frame at all */
	bool kernel, jit, inl;   /* _[k] _[j] _[i] annotations */
	bool addrs;              /* offsets and addresses kept in names */
	bool show_hidden;        /* frames flagged hidden kept */
	bool interpreter_frames; /* keep CPython's glue in merged stacks */
	struct fold_filter_opts filter;
};

/* What a sample counts: --view, --weight and --event-filter. */
struct fold_count_opts {
	enum fold_tally view;
	bool weight_time;   /* count the sampling period, not samples */
	bool weight_period; /* records: each sample's period (its events) */
	const char *event_filter;
};

#endif
