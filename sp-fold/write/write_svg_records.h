/*
 * write_svg_records.h: the SVG flame graph of a record stream: each entry's
 * folded stack with the sources of its names, so tooltips show file:line, for
 * the graph here and the flame chart of write_chart.h.
 */
#ifndef SP_FOLD_WRITE_WRITE_SVG_RECORDS_H
#define SP_FOLD_WRITE_WRITE_SVG_RECORDS_H

#include <stdio.h>

#include "common/buf.h"
#include "sp-fold/model/profile.h"
#include "sp-fold/model/model_opts.h"
#include "sp-fold/write/write_svg.h"

/*
 * Each entry of a record stream's profile as a line to draw: lines[i] is entry
 * i, with stack NULL when the frame filters drop it.  The names are in `names`,
 * the source pointers in `srcs`; the sources themselves belong to the
 * profile's model, which must outlive the lines.
 */
struct fold_svg_records {
	struct fold_svg_line *lines;
	struct sp_buf names, srcs;
};

/*
 * Fills `s` from the profile's entries, named as `o` says; returns 0 or
 * -ENOMEM.
 * fold_svg_records_release is due after either.
 */
int fold_svg_records_build(struct fold_svg_records *s,
			   const struct fold_profile *p,
			   const struct fold_name_opts *o);
void fold_svg_records_release(struct fold_svg_records *s);
/*
 * --format svg of a record stream's profile, its frames named as `name`
 * says and drawn as `svg` says; returns 0 or -ENOMEM.  Write errors are
 * left to the caller's check of `out`.
 */
int fold_write_svg_records(FILE *out, const struct fold_profile *p,
			   const struct fold_name_opts *name,
			   const struct fold_svg_opts *svg);

#endif
