/*
 * write_chart.h: --flamechart, the samples of a record stream in time order,
 * thread by thread, drawn as a flame chart (x is time, not a sum).
 */
#ifndef SP_FOLD_WRITE_WRITE_CHART_H
#define SP_FOLD_WRITE_WRITE_CHART_H

#include <stdio.h>

#include "sp-fold/model/profile.h"
#include "sp-fold/opts.h"

/*
 * Needs a record stream's profile with ticks; returns 0 or -ENOMEM.
 * Write errors are left to the caller's check of `out`.
 */
int fold_write_chart(FILE *out, const struct fold_profile *p,
		     const struct fold_opts *o);

#endif
