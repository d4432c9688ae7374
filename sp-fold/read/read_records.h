/*
 * read_records.h: sp-fold's reader of the record stream (docs/sp-records.5).
 * It calls no writer: what it read becomes a fold_profile (profile.h)
 * that main hands to one, or each sample goes to a callback as it is
 * read (perf script text, --live).
 */
#ifndef SP_FOLD_READ_READ_RECORDS_H
#define SP_FOLD_READ_READ_RECORDS_H

#include <stdint.h>
#include <stdio.h>

#include "common/htab.h"
#include "common/records.h"
#include "sp-fold/model/events.h"
#include "sp-fold/model/foldset.h"
#include "sp-fold/model/meta.h"
#include "sp-fold/model/model.h"
#include "sp-fold/model/profile.h"
#include "sp-fold/model/pymerge.h"
#include "sp-fold/model/pytab.h"
#include "sp-fold/opts.h"

/*
 * Called when a sample falls in a later interval than the samples before
 * it (--interval), with the interval's profile: writes it, and the reader
 * then forgets its samples.  Returns 0, or 1 after a message (reading
 * stops).
 */
typedef int fold_interval_fn(void *ctx, const struct fold_profile *p);

/*
 * What the reader keeps of a stream: the model, and either the samples
 * aggregated per entry (and in time order when `keep_ticks`), or nothing
 * when `on_sample` takes each sample as it is read.  Writers never see
 * it: they take a fold_profile.  --live's table, drawn while the reader
 * reads, is the one part that reads it (livetab.h).
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
	struct fold_pymerge pm;
	uint64_t py_native_only; /* samples whose Python part did not fit */
	int32_t *gone; /* --interval: forgotten, pframes dropped at its end */
	size_t ngone, agone;
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
/*
 * Sets *p to what `r` read: its model, entries, ticks and meta, which
 * stay `r`'s (valid until it reads on or is released); no set.
 */
void fold_reader_profile(const struct fold_reader *r, struct fold_profile *p);

#endif
