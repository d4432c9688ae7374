/* filter.h: --include, --exclude and --max-depth on a folded stack. */
#ifndef SP_FOLD_MODEL_FILTER_H
#define SP_FOLD_MODEL_FILTER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The frame filters: --include and --exclude (compiled by args.c, which
 * frees them) and --max-depth.
 */
struct fold_filter_opts {
	bool has_include, has_exclude;
	regex_t include, exclude;
	unsigned max_depth; /* 0: no limit */
};

/*
 * Returns whether a folded stack of *len bytes passes `f`'s --include
 * and --exclude, matched against every frame but the comm (the first
 * frame when `comm`, that is unless --no-comm); cuts it to --max-depth
 * frames below the comm by shortening *len.  The bytes are not changed.
 */
bool fold_filter_frames(const struct fold_filter_opts *f, bool comm,
			char *stack, size_t *len);

#endif
