/* top.h: --format top, the functions of a folded set in a table. */
#ifndef SP_FOLD_TOP_H
#define SP_FOLD_TOP_H

#include <stdio.h>

#include "sp-fold/foldset.h"
#include "sp-fold/opts.h"

/*
 * Writes the table to `out`.  Returns 0, or 1 after a diagnostic; write
 * errors are left to the caller's check of `out`.
 */
int fold_write_top(FILE *out, struct fold_set *set, const struct fold_opts *o);

#endif
