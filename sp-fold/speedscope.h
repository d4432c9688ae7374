/*
 * speedscope.h: writes a speedscope JSON file of a record stream: one
 * sampled profile per thread, samples in time order.
 */
#ifndef SP_FOLD_SPEEDSCOPE_H
#define SP_FOLD_SPEEDSCOPE_H

#include <stdio.h>

#include "sp-fold/stream.h"

/* Needs a reader that kept ticks; returns 0 or < 0 after a message. */
int fold_speedscope_write(FILE *out, const struct fold_reader *r);

#endif
