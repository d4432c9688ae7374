/*
 * filter.h: the record stream filter: every input record is passed
 * through unchanged, and each frame and pframe record is followed by the
 * symbol records of its logical frames (docs/sp-records.5).  Symbol
 * records already in the input (a stream symbolized twice) are dropped,
 * so each frame has one set.  A forget record (passed through too) frees
 * what the filter and the resolver kept for its process: its modules,
 * their frames, its perf maps.
 */
#ifndef SP_SYMBOLIZE_FILTER_H
#define SP_SYMBOLIZE_FILTER_H

#include <stdbool.h>
#include <stdio.h>

#include "common/buf.h"
#include "sp-symbolize/resolve.h"

/* What a run kept, for memory checks. */
struct sym_filter_stats {
	size_t forgotten;   /* forget records */
	size_t frames_live; /* frames kept at the end: not retired */
	size_t frames_peak; /* the most kept at once */
};

/*
 * Filters `in` to `out`.  With `flush`, output is flushed whenever no
 * more input is buffered, so a live consumer sees each record as soon as
 * it is complete.  Returns 0, or -EBADMSG (malformed input), -EIO (read
 * error) or -ENOMEM with a message "line N: reason" in *err; everything
 * before the faulty line has been written.  *st (when not NULL) gets
 * the run's figures, on failure too.
 */
int sym_filter_run(struct sym_resolver *r, FILE *in, FILE *out, bool flush,
		   struct sp_buf *err, struct sym_filter_stats *st);

#endif
