/*
 * write_svg_color.h: the colors of sp-fold's SVG flame graphs: flamegraph.pl's
 * palettes (hot, mem, io, wakeup, chain, java, js, perl and the plain
 * colors), each frame's shade stable for its name, and the red and blue
 * of differential graphs.
 */
#ifndef SP_FOLD_WRITE_WRITE_SVG_COLOR_H
#define SP_FOLD_WRITE_WRITE_SVG_COLOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The fill of a frame named name[0..len) in `palette` (--colors; NULL: hot). */
void fold_svg_color(const char *palette, const char *name, size_t len,
		    int rgb[3]);
/* White for no change, redder as delta grows to max, bluer as it shrinks;
 * --negate swaps. */
void fold_svg_color_delta(bool negate, int64_t delta, uint64_t max, int rgb[3]);
/* Whether --colors names a palette. */
bool fold_svg_palette_ok(const char *name);

#endif
