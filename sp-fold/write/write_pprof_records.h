/*
 * write_pprof_records.h: writes the pprof profile of a record stream, with its
 * mappings (modules, build ids) and source lines, which folded stacks do
 * not carry.
 */
#ifndef SP_FOLD_WRITE_WRITE_PPROF_RECORDS_H
#define SP_FOLD_WRITE_WRITE_PPROF_RECORDS_H

#include <stdio.h>

#include "sp-fold/model/profile.h"
#include "sp-fold/model/model_opts.h"

/*
 * Writes the profile of a record stream to `out`, gzip-compressed, its
 * frames named as `name` says and its values what `count` says; returns
 * 0, -EIO on a write error, or -ENOMEM.
 */
int fold_write_pprof_records(FILE *out, const struct fold_profile *p,
			     const struct fold_name_opts *name,
			     const struct fold_count_opts *count);

#endif
