/* write_top.h: --format top, the functions of a folded set in a table. */
#ifndef SP_FOLD_WRITE_WRITE_TOP_H
#define SP_FOLD_WRITE_WRITE_TOP_H

#include <stdio.h>

#include "sp-fold/write/write_opts.h"

struct fold_profile;

/*
 * Writes the table of the profile's folded set to `out`.  Returns 0 or
 * -ENOMEM; write errors are left to the caller's check of `out`.
 */
int fold_write_top(FILE *out, const struct fold_profile *p,
		   const struct fold_top_opts *o);

#endif
