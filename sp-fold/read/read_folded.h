/*
 * read_folded.h: the reader of folded stacks ("frame;frame;leaf COUNT", as
 * every collapser writes them), so files made by other tools get every
 * output format.
 */
#ifndef SP_FOLD_READ_READ_FOLDED_H
#define SP_FOLD_READ_READ_FOLDED_H

#include <stdio.h>

#include "sp-fold/model/foldset.h"
#include "sp-fold/model/model_opts.h"

/*
 * Adds the stacks of `in` to `set`, with --include, --exclude and
 * --max-depth applied.  A line that is no "STACK COUNT" (COUNT a whole
 * number) is skipped and counted; one warning names the first.  Returns
 * 0, or 1 after a diagnostic prefixed with `name` ("'FILE': " or "").
 */
int fold_read_folded(FILE *in, const char *name, const struct fold_name_opts *o,
		     struct fold_set *set);

#endif
