/*
 * diff.h: differential profiles, as FlameGraph's difffolded.pl makes
 * them: every stack of two folded sets with both counts, the first
 * optionally scaled to the second's total, hex numbers optionally
 * replaced so that addresses do not split a stack in two.
 */
#ifndef SP_FOLD_MODEL_DIFF_H
#define SP_FOLD_MODEL_DIFF_H

#include <stdbool.h>
#include <stdio.h>

#include "sp-fold/model/foldset.h"

/* One stack of a differential profile. */
struct fold_diff_line {
	const char *stack; /* not NUL-terminated; owned by a set */
	size_t len;
	uint64_t before, after;
};

/*
 * Sets *lines to the union of the stacks of `before` and `after`, sorted
 * bytewise, with both counts; with `normalize` the before counts are
 * scaled (rounded down) so that their total is the after total.  The
 * array is malloc'd (free it); its strings belong to the sets.  Returns 0
 * or -ENOMEM.
 */
int fold_diff(struct fold_set *before, struct fold_set *after, bool normalize,
	      struct fold_diff_line **lines, size_t *n);
/*
 * Returns a new set of the stacks of `s` with each hex number (0x and
 * hex digits) replaced by "0x...", counts added; NULL when out of memory.
 */
struct fold_set *fold_set_strip_hex(struct fold_set *s);

#endif
