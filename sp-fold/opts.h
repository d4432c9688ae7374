/*
 * opts.h: sp-fold's options, as args.c sets them from the command line.
 * The filters' and the writers' own structs are members, so each is
 * handed only its own.  The other parts only read them; the id and comm
 * lists and the compiled patterns belong to args.c, which frees them.
 */
#ifndef SP_FOLD_OPTS_H
#define SP_FOLD_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp-fold/model/filter.h"
#include "sp-fold/write/write_opts.h"

enum fold_format {
	FOLD_FOLDED,
	FOLD_TOP,
	FOLD_SVG,
	FOLD_PPROF,
	FOLD_SPEEDSCOPE,
	FOLD_PERF_SCRIPT,
	FOLD_THREADS,
};

/* What sp-fold reads. */
enum fold_input {
	FOLD_IN_RECORDS,
	FOLD_IN_PERF_SCRIPT,
	FOLD_IN_FOLDED,
};

/* What a record stream's samples count (--view). */
enum fold_tally {
	FOLD_VIEW_CPU,    /* one event's samples: the first or --event-filter */
	FOLD_VIEW_OFFCPU, /* the time threads waited, where they waited */
	FOLD_VIEW_WALL,   /* CPU time and waiting time, in nanoseconds */
};

/* A list of ids from --pid=LIST or --tid=LIST. */
struct fold_ids {
	int64_t *v;
	size_t n, alloc;
};

struct fold_opts {
	enum fold_format format;
	bool format_given; /* --format, not from -o's name */
	bool from_given;   /* --from: the input's kind is not told */
	enum fold_input from;
	bool pid, tid;         /* append -PID or -PID/TID to the comm */
	bool process_name;     /* the process name, not the thread's */
	bool no_comm;          /* no comm frame at all */
	bool kernel, jit, inl; /* _[k] _[j] _[i] annotations */
	bool context;          /* perf script --inline: with file:line */
	bool all;              /* --all: every annotation */
	bool addrs;            /* offsets and addresses kept in names */
	bool srcline;          /* perf script -F+srcline: a source line each */
	bool show_hidden;
	bool interpreter_frames; /* keep CPython's glue in merged stacks */
	const char *output;      /* -o FILE, or NULL for standard output */
	uint64_t interval_ns;    /* --interval: one output per interval */
	bool live;               /* --live: a top view on the terminal */
	uint64_t window_ns;      /* --window: what --live counts (10 s) */
	bool diff;               /* --diff BEFORE AFTER */
	bool normalize;      /* --normalize: scale BEFORE to AFTER's total */
	bool strip_hex;      /* --strip-hex: 0x... for hex numbers */
	bool weight_time;    /* count the sampling period, not samples */
	bool weight_samples; /* perf script: 1 a sample, not its period */
	bool weight_period;  /* records: each sample's period (its events) */
	enum fold_tally view;
	bool no_wait_state; /* --no-wait-state: no "[sleep]" frames */
	const char *event_filter;
	struct fold_ids pids, tids;
	const char **comms;
	size_t ncomms, acomms;
	bool has_time;
	double time_from, time_to; /* seconds from the first sample */
	struct fold_filter_opts filter;
	bool flamechart; /* records: samples in time order, x is time */
	struct fold_svg_opts svg;
	struct fold_top_opts top;
};

#endif
