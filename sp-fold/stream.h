/*
 * stream.h: the state of sp-fold reading a record stream, shared by the
 * reader (stream.c) and the writers that need more than folded stacks:
 * perf script text (pscript.c), speedscope (speedscope.c) and pprof.
 */
#ifndef SP_FOLD_STREAM_H
#define SP_FOLD_STREAM_H

#include <stdint.h>
#include <stdio.h>

#include "common/htab.h"
#include "sp-fold/foldset.h"
#include "sp-fold/meta.h"
#include "sp-fold/model.h"
#include "sp-fold/opts.h"

/* Samples of one thread name, process, thread and stack. */
struct fold_entry {
	uint32_t name; /* interned comm */
	int32_t pid;
	uint64_t tid;
	uint32_t stack; /* SP_NONE for an empty stack */
	uint64_t count; /* samples, or nanoseconds with --weight */
};

/* One sample for a timeline: its entry and time. */
struct fold_tick {
	uint32_t entry;
	uint64_t ts;
};

struct fold_reader {
	const char *name;
	uint64_t lineno;
	const struct fold_opts *o;
	struct fold_model m;
	struct fold_meta *meta;
	struct sp_htab *agg; /* struct agg_key -> entries index */
	struct fold_entry *ents;
	size_t nents, aents;
	struct fold_tick *ticks; /* speedscope only */
	size_t nticks, aticks;
	uint64_t lost, samples;
	bool have_first;
	uint64_t first_ts, last_ts;
	FILE *out;
	struct sp_buf tmp; /* scratch */
};

/*
 * Reads the record stream of sp-dump/sp-symbolize.  --format speedscope
 * and perf-script are written while reading; the other formats are left
 * to the caller, from `set`.  Returns 0, or 1 after a diagnostic
 * prefixed with `name` ("'FILE': ", or "" for standard input).
 */
int fold_records(FILE *in, const char *name, const struct fold_opts *o,
		 struct fold_set *set, struct fold_meta *meta);

/* Writes one sample as `perf script` would print it. */
int fold_pscript_sample(const struct fold_reader *r, const char *comm,
			int32_t pid, uint64_t tid, uint64_t ts, uint32_t stack);
/* Writes the speedscope JSON file of the ticks. */
int fold_speedscope_write(const struct fold_reader *r);
/* Writes the pprof profile of the entries, with mappings and lines. */
int fold_pprof_records(const struct fold_reader *r);
/* The period of one sample in nanoseconds (1 ms when unknown). */
uint64_t fold_period_ns(const struct fold_reader *r);

#endif
