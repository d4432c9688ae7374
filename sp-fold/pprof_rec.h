/*
 * pprof_rec.h: writes the pprof profile of a record stream, with its
 * mappings (modules, build ids) and source lines, which folded stacks do
 * not carry.
 */
#ifndef SP_FOLD_PPROF_REC_H
#define SP_FOLD_PPROF_REC_H

#include <stdio.h>

#include "sp-fold/stream.h"

/* Returns 0 or < 0 after a message. */
int fold_pprof_records(FILE *out, const struct fold_reader *r);

#endif
