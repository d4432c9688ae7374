/*
 * pscript.h: writes samples of a record stream as `perf script` prints
 * them, one sample at a time, as the reader streams them.
 */
#ifndef SP_FOLD_PSCRIPT_H
#define SP_FOLD_PSCRIPT_H

#include "sp-fold/stream.h"

/* A fold_sample_fn; `ctx` is the FILE to write to. */
int fold_pscript_sample(void *ctx, const struct fold_reader *r,
			const struct fold_sample *s);

#endif
