/*
 * args.h: sp-fold's command line.  Usage errors print the synopsis on
 * stderr and exit 2.
 */
#ifndef SP_FOLD_ARGS_H
#define SP_FOLD_ARGS_H

#include "sp-fold/opts.h"

/*
 * Fills `o` from the options of argv and checks that they go together;
 * returns the index of the first file operand.
 */
int fold_args_parse(int argc, char **argv, struct fold_opts *o);
/* Frees what fold_args_parse allocated in `o`. */
void fold_args_release(struct fold_opts *o);

#endif
