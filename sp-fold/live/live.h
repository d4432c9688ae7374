/*
 * live.h: --live, a top view of a running pipeline on the terminal:
 * the hottest functions (self and total) or call stacks of the last
 * --window seconds, redrawn once a second; keys s, t, c and q.
 */
#ifndef SP_FOLD_LIVE_LIVE_H
#define SP_FOLD_LIVE_LIVE_H

#include <stdio.h>

#include "sp-fold/opts.h"

/*
 * Reads the record stream `in` until its end or q; standard output must
 * be a terminal and /dev/tty readable for keys.  Returns 0, or 1 after a
 * diagnostic prefixed with `name`.
 */
int fold_live(FILE *in, const char *name, const struct fold_opts *o);

#endif
