/*
 * write_perfscript.h: writes samples of a record stream as `perf script` prints
 * them, one sample at a time, as the reader streams them.  A streaming
 * writer, not one of a fold_profile: the reader keeps no samples for
 * this format, so memory does not grow with the recording.
 */
#ifndef SP_FOLD_WRITE_WRITE_PERFSCRIPT_H
#define SP_FOLD_WRITE_WRITE_PERFSCRIPT_H

#include <stdio.h>

#include "sp-fold/model/model.h"
#include "sp-fold/model/profile.h"
#include "sp-fold/model/model_opts.h"

/* What fold_write_perfscript_sample writes to, and how. */
struct fold_perfscript_out {
	FILE *out;
	const struct fold_name_opts *name;   /* --show-hidden, --max-depth */
	const struct fold_count_opts *count; /* --weight */
};

/*
 * A fold_sample_fn; `ctx` is a struct fold_perfscript_out.  Returns 0 or
 * -ENOMEM; write errors are left to the caller's check of the FILE.
 */
int fold_write_perfscript_sample(void *ctx, const struct fold_model *m,
				 const struct fold_sample *s);

#endif
