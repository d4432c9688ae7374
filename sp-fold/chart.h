/*
 * chart.h: --flamechart, the samples of a record stream in time order,
 * thread by thread, drawn as a flame chart (x is time, not a sum).
 */
#ifndef SP_FOLD_CHART_H
#define SP_FOLD_CHART_H

#include <stdio.h>

#include "sp-fold/stream.h"

/* Needs a reader that kept ticks; returns 0, or 1 after a message. */
int fold_write_chart(FILE *out, const struct fold_reader *r);

#endif
