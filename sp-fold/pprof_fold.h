/* pprof_fold.h: --format pprof from a folded set (perf script input). */
#ifndef SP_FOLD_PPROF_FOLD_H
#define SP_FOLD_PPROF_FOLD_H

#include <stdio.h>

#include "sp-fold/foldset.h"
#include "sp-fold/meta.h"
#include "sp-fold/opts.h"

/*
 * Writes the gzip-compressed profile to `out`: a second value, the
 * time, when meta->period_ns is known.  Returns 0, or 1 after a
 * diagnostic (a write error or out of memory).
 */
int fold_write_pprof(FILE *out, struct fold_set *set, const struct fold_opts *o,
		     const struct fold_meta *meta);

#endif
