/*
 * fold.h: the parts of sp-fold: options, the set of folded stacks every
 * reader fills and every writer reads, the readers (perf script text, the
 * record stream) and the writers (folded, top, svg, pprof, speedscope,
 * perf-script).
 */
#ifndef SP_FOLD_H
#define SP_FOLD_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum fold_format {
	FOLD_FOLDED,
	FOLD_TOP,
	FOLD_SVG,
	FOLD_PPROF,
	FOLD_SPEEDSCOPE,
	FOLD_PERF_SCRIPT,
};

/* A list of ids from --pid=LIST or --tid=LIST. */
struct fold_ids {
	int64_t *v;
	size_t n;
};

struct fold_opts {
	enum fold_format format;
	bool pid, tid;         /* append -PID or -PID/TID to the comm */
	bool process_name;     /* the process name, not the thread's */
	bool no_comm;          /* no comm frame at all */
	bool kernel, jit, inl; /* _[k] _[j] _[i] annotations */
	bool all;              /* --all: every annotation */
	bool addrs;            /* offsets and addresses kept in names */
	bool show_hidden;
	bool weight_time; /* count the sampling period, not samples */
	const char *event_filter;
	struct fold_ids pids, tids;
	const char **comms;
	size_t ncomms;
	bool has_time;
	double time_from, time_to; /* seconds from the first sample */
	bool has_include, has_exclude;
	regex_t include, exclude;
	unsigned max_depth; /* 0: no limit */
	/* svg */
	const char *title;
	const char *colors;
	bool reverse, inverted;
	int width;
};

/* ------------------------------------------------------------------ */
/* The set of folded stacks: "frame;frame;leaf" -> count. */

struct fold_set;

struct fold_line {
	const char *stack; /* not NUL-terminated */
	size_t len;
	uint64_t count;
};

/* Returns a new empty set, or NULL. */
struct fold_set *fold_set_new(void);
void fold_set_free(struct fold_set *s);
/* Adds `n` to the count of a stack (copied); returns 0 or -ENOMEM. */
int fold_set_add(struct fold_set *s, const char *stack, size_t len, uint64_t n);
/*
 * Sets *lines to the stacks sorted bytewise, as `sort` in the C locale
 * would; the array and the strings belong to the set and stay valid
 * until the next add or the free.  Returns 0 or -ENOMEM.
 */
int fold_set_lines(struct fold_set *s, const struct fold_line **lines,
                   size_t *n);
/* The sum of all counts. */
uint64_t fold_set_total(const struct fold_set *s);

/*
 * Whether a folded stack passes --include and --exclude (matched against
 * every frame but the comm); cuts it to --max-depth frames below the
 * comm by shortening *len.
 */
bool fold_filter_frames(const struct fold_opts *o, char *stack, size_t *len);

/* What a reader learned about the recording, for the writers. */
struct fold_meta {
	uint64_t period_ns;   /* sampling interval; 0 when unknown */
	uint64_t start_ns;    /* wall-clock start, Unix epoch */
	uint64_t duration_ns; /* first to last sample */
};

/* ------------------------------------------------------------------ */
/*
 * Readers: return 0, or 1 after printing a diagnostic.  `name` prefixes
 * their messages: "'FILE': ", or "" for standard input.
 */

int fold_perf_script(FILE *in, const char *name, const struct fold_opts *o,
                     struct fold_set *set);
/*
 * Reads the record stream of sp-dump/sp-symbolize.  --format speedscope
 * and perf-script are written while reading; the other formats are left
 * to the caller, from `set`.
 */
int fold_records(FILE *in, const char *name, const struct fold_opts *o,
                 struct fold_set *set, struct fold_meta *meta);

/* ------------------------------------------------------------------ */
/* Writers: return 0, or 1 after printing a diagnostic. */

int fold_write_folded(FILE *out, struct fold_set *set);
int fold_write_top(FILE *out, struct fold_set *set, const struct fold_opts *o);
int fold_write_svg(FILE *out, struct fold_set *set, const struct fold_opts *o);
/* Whether --colors names a palette the SVG writer knows. */
bool fold_svg_palette_ok(const char *name);
int fold_write_pprof(FILE *out, struct fold_set *set, const struct fold_opts *o,
                     const struct fold_meta *meta);

#endif
