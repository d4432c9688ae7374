/*
 * stream.h: sp-fold's reader of the record stream (docs/sp-records.5),
 * and what it read, which the writers that need more than folded stacks
 * take: perf script text (pscript.h), speedscope (speedscope.h) and
 * pprof with mappings (pprof_rec.h).  The reader calls no writer.
 */
#ifndef SP_FOLD_STREAM_H
#define SP_FOLD_STREAM_H

#include <stdint.h>
#include <stdio.h>

#include "common/htab.h"
#include "common/records.h"
#include "sp-fold/foldset.h"
#include "sp-fold/meta.h"
#include "sp-fold/model.h"
#include "sp-fold/opts.h"
#include "sp-fold/events.h"

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
	uint64_t weight; /* what it counts, as fold_sample's */
};

/* One sample as the streaming writers see it. */
struct fold_sample {
	const char *comm; /* NULL when unknown */
	int32_t pid;
	uint64_t tid, ts;
	uint32_t stack;    /* SP_NONE for an empty stack */
	uint64_t weight;   /* what it counts in the view: 1, events or ns */
	const char *event; /* its event's name, or NULL when unnamed */
};

struct fold_reader;
/* A streaming writer: called for each sample kept; returns 0 or < 0. */
typedef int fold_sample_fn(void *ctx, const struct fold_reader *r,
			   const struct fold_sample *s);

/*
 * Called when a sample falls in a later interval than the samples before
 * it (--interval): writes what was aggregated, which the reader then
 * forgets.  Returns 0, or 1 after a message (reading stops).
 */
typedef int fold_interval_fn(const struct fold_reader *r, void *ctx);

/*
 * What the reader keeps of a stream: the model, and either the samples
 * aggregated per entry (and in time order when `keep_ticks`), or nothing
 * when `on_sample` takes each sample as it is read.  The writers read it.
 */
struct fold_reader {
	const char *name; /* "'FILE': " or "" for messages */
	const struct fold_opts *o;
	fold_sample_fn *on_sample; /* set to stream instead of aggregating */
	fold_interval_fn *on_interval; /* set with --interval */
	void *ctx;
	uint64_t interval; /* the current interval's number */
	bool keep_ticks;
	struct fold_model m;
	struct fold_events events; /* the stream's event records */
	struct fold_meta meta;
	struct sp_htab *agg; /* struct agg_key -> entries index */
	struct fold_entry *ents;
	size_t nents, aents;
	struct fold_tick *ticks;
	size_t nticks, aticks;
	uint64_t lost, samples;
	uint64_t code_frames, symbols; /* to tell an unsymbolized stream */
	uint64_t weight_sum; /* of every sample read: kept under 2^64 */
	bool have_first;
	uint64_t first_ts, last_ts;
	struct sp_buf tmp; /* scratch */
};

/*
 * Sets up `r` to read the stream named `name` with `o` (not copied);
 * returns 0 or -ENOMEM.  fold_reader_release is due after either.
 */
int fold_reader_init(struct fold_reader *r, const char *name,
		     const struct fold_opts *o);
void fold_reader_release(struct fold_reader *r);
/*
 * Reads the record stream of sp-dump/sp-symbolize.  Returns 0, or 1 after
 * a diagnostic naming the input and line; what was read before the fault
 * stays in `r`.
 */
int fold_reader_read(struct fold_reader *r, FILE *in);
/*
 * Reads and acts on one record of `d` (a decoder of the stream): returns
 * 1, 0 at the end, or < 0 after a diagnostic.  For readers that do other
 * work between records (--live).
 */
int fold_reader_step(struct fold_reader *r, struct sp_recdec *d);
/* Adds the aggregated entries to `set`; returns 0, or 1 after a message. */
int fold_reader_fold(const struct fold_reader *r, struct fold_set *set);
/*
 * A qsort_r order of tick indexes: by thread, then in the stream's order
 * (time).  `reader` is the fold_reader the ticks are of.
 */
int fold_tick_cmp(const void *a, const void *b, void *reader);
/* The period of one sample in nanoseconds (1 ms when unknown). */
uint64_t fold_period_ns(const struct fold_reader *r);

#endif
