/*
 * argcheck.h: the checks of sp-fold's options that go together, once all
 * are read.  Each exits 2 on a usage error.
 */
#ifndef SP_FOLD_ARGCHECK_H
#define SP_FOLD_ARGCHECK_H

#include "sp-fold/opts.h"

/*
 * Checks the options and the operands, and picks the format -o's name
 * asks for.
 */
void fold_args_check(struct fold_opts *o, char **files, int nfiles);
/*
 * The checks of fold_args_check for text input `from` (folded stacks or
 * perf script), for an input told to be text from its first line (no
 * --from).
 */
void fold_args_check_text(const struct fold_opts *o, enum fold_input from);

#endif
