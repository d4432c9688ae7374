/*
 * write_threads.h: --format threads, the samples of each thread of a
 * record stream: count, share, process, thread and name, busiest first.
 */
#ifndef SP_FOLD_WRITE_WRITE_THREADS_H
#define SP_FOLD_WRITE_WRITE_THREADS_H

#include <stdio.h>

#include "sp-fold/model/model_opts.h"
#include "sp-fold/model/profile.h"

/*
 * Writes one row a thread, in the unit `o` (--view, --weight) gives the
 * counts.  Returns 0 or -ENOMEM; write errors are left to the caller's
 * check of `out`.
 */
int fold_write_threads(FILE *out, const struct fold_profile *p,
		       const struct fold_count_opts *o);

#endif
