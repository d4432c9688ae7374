/*
 * profile.h: what the writers take, a value the readers make and no
 * writer changes.  A record stream gives its model and its samples per
 * entry (in time order too when kept), which the *_records writers,
 * speedscope and the flame chart read; main folds the entries into a set
 * for the folded and top writers.  Text input gives only a folded set;
 * --diff gives the lines of both sides.  What a profile points to
 * belongs to whoever made it and must outlive it.
 */
#ifndef SP_FOLD_MODEL_PROFILE_H
#define SP_FOLD_MODEL_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sp-fold/model/diff.h"
#include "sp-fold/model/foldset.h"
#include "sp-fold/model/meta.h"
#include "sp-fold/model/model.h"
#include "sp-fold/model/model_opts.h"

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

struct fold_profile {
	/* A record stream's; m is NULL for text input. */
	const struct fold_model *m;
	const struct fold_entry *ents;
	size_t nents;
	const struct fold_tick *ticks; /* in stream order, when kept */
	size_t nticks;
	uint64_t first_ts; /* of the stream's first sample */
	struct fold_meta meta;
	/* Folded stacks, or NULL; writers may sort the set's lines. */
	struct fold_set *set;
	/* --diff: both counts of each stack. */
	const struct fold_diff_line *diff;
	size_t ndiff;
};

/*
 * One sample as the streaming writers see it, for the formats and views
 * whose reader keeps no samples (perf script text, --live).
 */
struct fold_sample {
	const char *comm; /* NULL when unknown */
	int32_t pid;
	uint64_t tid, ts;
	uint32_t stack;    /* SP_NONE for an empty stack */
	uint64_t weight;   /* what it counts in the view: 1, events or ns */
	const char *event; /* its event's name, or NULL when unnamed */
};

/*
 * A streaming writer: called for each sample kept, with the model the
 * sample's ids index (as read so far).  Returns 0 or -ENOMEM, which the
 * reader reports with the input's line.
 */
typedef int fold_sample_fn(void *ctx, const struct fold_model *m,
			   const struct fold_sample *s);

/*
 * Adds each entry of a record stream's profile to `set`, folded as `o`
 * says; returns 0 or -ENOMEM.
 */
int fold_profile_fold(const struct fold_profile *p,
		      const struct fold_name_opts *o, struct fold_set *set);
/*
 * A qsort_r order of tick indexes: by thread, then in the stream's order
 * (time).  `profile` is the fold_profile the ticks are of.
 */
int fold_profile_tick_cmp(const void *a, const void *b, void *profile);

#endif
