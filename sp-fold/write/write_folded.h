/*
 * write_folded.h: folded text, "STACK COUNT" a line as every collapser
 * writes it, and --diff's "STACK BEFORE AFTER", as flamegraph.pl reads
 * two-column input.
 */
#ifndef SP_FOLD_WRITE_WRITE_FOLDED_H
#define SP_FOLD_WRITE_WRITE_FOLDED_H

#include <stdio.h>

#include "sp-fold/model/profile.h"

/*
 * Writes the lines of the profile's folded set sorted bytewise.  Returns
 * 0 or -ENOMEM; write errors are left to the caller's check of `out`.
 */
int fold_write_folded(FILE *out, const struct fold_profile *p);
/* Writes the profile's diff lines; returns 0. */
int fold_write_diff_folded(FILE *out, const struct fold_profile *p);

#endif
