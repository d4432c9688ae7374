/*
 * write_chart.h: --flamechart, the samples of a record stream in time order,
 * thread by thread, drawn as a flame chart (x is time, not a sum).
 */
#ifndef SP_FOLD_WRITE_WRITE_CHART_H
#define SP_FOLD_WRITE_WRITE_CHART_H

#include <stdio.h>

#include "sp-fold/model/profile.h"
#include "sp-fold/model/model_opts.h"
#include "sp-fold/write/write_opts.h"

/*
 * Needs a record stream's profile with ticks, whose frames are named as
 * `name` says, drawn as `svg` says; returns 0 or -ENOMEM.
 * Write errors are left to the caller's check of `out`.
 */
int fold_write_chart(FILE *out, const struct fold_profile *p,
		     const struct fold_name_opts *name,
		     const struct fold_svg_opts *svg);

#endif
