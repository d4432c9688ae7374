/*
 * meta.h: what a reader learned about the recording besides its samples,
 * for the pprof writers.  Plain values: the record stream gives them,
 * perf script text does not and leaves them zero.
 */
#ifndef SP_FOLD_MODEL_META_H
#define SP_FOLD_MODEL_META_H

#include <stdint.h>

struct fold_meta {
	uint64_t period_ns;   /* sampling interval; 0 when unknown */
	uint64_t start_ns;    /* wall-clock start, Unix epoch */
	uint64_t duration_ns; /* first to last sample */
};

#endif
