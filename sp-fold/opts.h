/*
 * opts.h: sp-fold's options, as args.c sets them from the command line.
 * The model's (naming, counting), the filters' and the writers' own
 * structs are members, so each part is handed only its own.  The other parts
 * only read them; the id and comm lists and the compiled patterns belong to
 * args.c, which frees them.
 */
#ifndef SP_FOLD_OPTS_H
#define SP_FOLD_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp-fold/model/model_opts.h"
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
	bool process_name; /* the process name, not the thread's */
	bool context;      /* perf script --inline: with file:line */
	bool all;          /* --all: every annotation */
	bool srcline;      /* perf script -F+srcline: a source line each */
	struct fold_name_opts name;   /* --pid ... --show-hidden, filters */
	struct fold_count_opts count; /* --view, --weight, --event-filter */
	const char *output;           /* -o FILE, or NULL for standard output */
	uint64_t interval_ns;         /* --interval: one output per interval */
	bool live;                    /* --live: a top view on the terminal */
	uint64_t window_ns;           /* --window: what --live counts (10 s) */
	bool diff;                    /* --diff BEFORE AFTER */
	bool normalize;      /* --normalize: scale BEFORE to AFTER's total */
	bool strip_hex;      /* --strip-hex: 0x... for hex numbers */
	bool weight_samples; /* perf script: 1 a sample, not its period */
	bool no_wait_state;  /* --no-wait-state: no "[sleep]" frames */
	struct fold_ids pids, tids;
	const char **comms;
	size_t ncomms, acomms;
	bool has_time;
	double time_from, time_to; /* seconds from the first sample */
	bool flamechart; /* records: samples in time order, x is time */
	struct fold_svg_opts svg;
	struct fold_top_opts top;
};

#endif
