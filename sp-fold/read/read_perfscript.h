/*
 * read_perfscript.h: the reader of `perf script` text, folded with the rules
 * of FlameGraph's stackcollapse-perf.pl.
 */
#ifndef SP_FOLD_READ_READ_PERFSCRIPT_H
#define SP_FOLD_READ_READ_PERFSCRIPT_H

#include <stdio.h>

#include "sp-fold/model/foldset.h"
#include "sp-fold/opts.h"

/*
 * Folds the samples of `in` into `set`.  Returns 0, or 1 after a
 * diagnostic prefixed with `name` ("'FILE': ", or "" for standard
 * input): a read error or out of memory.  Unrecognized lines are
 * reported, the first ten of them, and skipped.
 */
int fold_read_perfscript(FILE *in, const char *name, const struct fold_opts *o,
			 struct fold_set *set);

#endif
