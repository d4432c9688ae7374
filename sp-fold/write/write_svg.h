/* write_svg.h: --format svg, a flame graph of a folded set. */
#ifndef SP_FOLD_WRITE_WRITE_SVG_H
#define SP_FOLD_WRITE_WRITE_SVG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sp-fold/write/write_opts.h"

struct fold_profile;

/*
 * A folded stack to draw, `count` wide, and the source of each of its
 * names in stack order ("file:line", "file" or NULL; `srcs` NULL for a
 * stack without any), which a frame's tooltip shows on a second line.
 */
struct fold_svg_line {
	const char *stack; /* not NUL-terminated */
	size_t len;
	uint64_t count;
	const char *const *srcs;
	size_t nsrcs;
};

/*
 * Each function here writes an SVG document to `out`, drawn as `o` says, and
 * returns 0 or -ENOMEM; write errors are left to the caller's check of `out`.
 */
/* The flame graph of the profile's folded set. */
int fold_write_svg(FILE *out, const struct fold_profile *p,
		   const struct fold_svg_opts *o);
/* The flame graph of `lines` (any order), with their sources. */
int fold_svg_draw_lines(FILE *out, const struct fold_svg_line *lines, size_t n,
			const struct fold_svg_opts *o);
/*
 * A flame chart: `lines` in time order, each merged into the one before
 * where their stacks begin alike, so x is time (--flamechart).
 */
int fold_svg_draw_chart(FILE *out, const struct fold_svg_line *lines, size_t n,
			const struct fold_svg_opts *o);
/*
 * A differential flame graph of the profile's diff lines, as
 * flamegraph.pl draws two-column input: frames as wide as their after
 * counts, colored by the change of the stacks that end in them (red
 * grew, blue shrank; --negate swaps).
 */
int fold_write_diff_svg(FILE *out, const struct fold_profile *p,
			const struct fold_svg_opts *o);

#endif
