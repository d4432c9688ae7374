/* write_pprof.h: --format pprof from a folded set (perf script input). */
#ifndef SP_FOLD_WRITE_WRITE_PPROF_H
#define SP_FOLD_WRITE_WRITE_PPROF_H

#include <stdbool.h>
#include <stdio.h>

#include "sp-fold/model/profile.h"

/*
 * Writes the gzip-compressed profile of the profile's folded set to
 * `out`: a second value, the time, when p->meta.period_ns is known.
 * Its stacks start with a comm frame unless `no_comm` (--no-comm).
 * Returns 0, -EIO on a write error, or -ENOMEM.
 */
int fold_write_pprof(FILE *out, const struct fold_profile *p, bool no_comm);

#endif
