/* filter.c: --include, --exclude and --max-depth on folded stacks. */
#include <string.h>

#include "common/buf.h"
#include "sp-fold/model/filter.h"
#include "common/banned.h"

static bool
frame_matches(const regex_t *re, const char *s, size_t from, size_t to)
{
	struct sp_buf b = SP_BUF_INIT;
	bool m;

	if (sp_buf_add(&b, s + from, to - from))
		return false;
	m = regexec(re, b.data ? (char *)b.data : "", 0, NULL, 0) == 0;
	sp_buf_release(&b);
	return m;
}

/*
 * Returns whether a stack passes the frame filters; may shorten it to
 * --max-depth frames below the comm.  The comm frame itself is never
 * matched against the patterns.
 */
bool
fold_filter_frames(const struct fold_filter_opts *f, bool comm, char *stack,
		   size_t *len)
{
	bool inc = !f->has_include, exc = false;
	size_t from = 0, to, depth = 0;

	if (!f->has_include && !f->has_exclude && !f->max_depth)
		return true;
	for (; from <= *len; from = to + 1) {
		to = from;
		while (to < *len && stack[to] != ';')
			to++;
		if (depth++ == 0 && comm)
			continue;
		if (f->max_depth && depth - comm > f->max_depth) {
			*len = from - 1;
			break;
		}
		if (f->has_include && !inc)
			inc = frame_matches(&f->include, stack, from, to);
		if (f->has_exclude && !exc)
			exc = frame_matches(&f->exclude, stack, from, to);
	}
	return inc && !exc;
}
