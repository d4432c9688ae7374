/*
 * write_speedscope.h: writes a speedscope JSON file of a record stream: one
 * sampled profile per thread, samples in time order.
 */
#ifndef SP_FOLD_WRITE_WRITE_SPEEDSCOPE_H
#define SP_FOLD_WRITE_WRITE_SPEEDSCOPE_H

#include <stdio.h>

#include "sp-fold/model/profile.h"
#include "sp-fold/model/model_opts.h"

/*
 * Needs a record stream's profile with ticks, whose frames are named as
 * `name` says and whose weights `count` says; returns 0 or -ENOMEM.
 * Write errors are left to the caller's check of `out`.
 */
int fold_write_speedscope(FILE *out, const struct fold_profile *p,
			  const struct fold_name_opts *name,
			  const struct fold_count_opts *count);

#endif
