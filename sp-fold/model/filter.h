/* filter.h: --include, --exclude and --max-depth on a folded stack. */
#ifndef SP_FOLD_MODEL_FILTER_H
#define SP_FOLD_MODEL_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "sp-fold/opts.h"

/*
 * Returns whether a folded stack of *len bytes passes --include and
 * --exclude, matched against every frame but the comm (unless
 * --no-comm); cuts it to --max-depth frames below the comm by shortening
 * *len.  The bytes are not changed.
 */
bool fold_filter_frames(const struct fold_opts *o, char *stack, size_t *len);

#endif
