/*
 * outname.h: the format an output file's name asks for, so that
 * `sp-fold -o x.svg` writes an SVG flame graph as `perf report`-era
 * users expect of a file name, not folded text under an .svg name.
 */
#ifndef SP_FOLD_OUTNAME_H
#define SP_FOLD_OUTNAME_H

#include <stdbool.h>

#include "sp-fold/opts.h"

/*
 * Whether `path`'s name says a format: *.svg svg, *.pb.gz, *.pprof and
 * *.pb pprof, *.json speedscope, *.folded folded; sets *format then.
 */
bool fold_format_of_name(const char *path, enum fold_format *format);

#endif
