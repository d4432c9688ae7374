/*
 * write_opts.h: each writer's own options, apart from the whole command
 * line (opts.h holds them for args.c to set), so a writer is given only
 * what it reads.
 */
#ifndef SP_FOLD_WRITE_WRITE_OPTS_H
#define SP_FOLD_WRITE_WRITE_OPTS_H

#include <stdbool.h>

/*
 * How the SVG writers draw: the options of --format svg, which args.c
 * sets (and `countname` and `chart` once every option is read).
 */
struct fold_svg_opts {
	const char *title, *subtitle;
	const char *countname; /* the counts' unit in tooltips; NULL: samples */
	const char *nametype, *fonttype;
	int fontsize, frame_height, width;
	double minwidth;     /* pixels (0.1 when not given) */
	double minwidth_pct; /* or a percentage of the width, when > 0 */
	const char *colors;  /* the palette; NULL: hot */
	bool reverse, inverted;
	bool negate; /* --diff: blue for growth, red for shrinking */
	bool chart;  /* --flamechart: x is time */
};

/*
 * What --format top is given: its order (--sort), whether its stacks
 * start with a comm frame, and what the counts are (args.c settles it
 * from --view and --weight).
 */
struct fold_top_opts {
	bool by_total;    /* --sort total: by total, not self */
	bool no_comm;     /* --no-comm: no comm frame to skip */
	const char *unit; /* "samples" (NULL), "nanoseconds off-CPU", ... */
};

#endif
