/*
 * runs.h: sp-dump --runs: samples gathered into runs (sp-records(5)),
 * one per distinct (pid, tid, stack, event, weight, state) with a count,
 * the first sample's time and the latest, for readers that need no time
 * of each sample.
 * Runs are written in the order of their first samples, so a reader
 * meets each stack, thread and process in the order the samples gave.
 */
#ifndef SP_DUMP_RUNS_H
#define SP_DUMP_RUNS_H

#include <stdio.h>

#include "common/records.h"

/*
 * The most runs held before they are written: memory stays bounded
 * whatever the spool, at the cost of a run split in two.
 */
#define DUMP_RUNS_MAX 65536

struct dump_runs;

/* A table writing to `out` (not owned); NULL with errno on failure. */
struct dump_runs *dump_runs_new(FILE *out);
/* Frees the table; runs not flushed are lost.  NULL is allowed. */
void dump_runs_free(struct dump_runs *r);
/*
 * Counts sample `s` (kind SP_REC_SAMPLE, without a Python stack) into
 * its run; writes every run first when DUMP_RUNS_MAX are held.  Returns
 * 0 or -ENOMEM.
 */
int dump_runs_add(struct dump_runs *r, const struct sp_rec *s);
/*
 * Writes the runs held, in the order of their first samples, and
 * empties the table.  Due before any record that changes what a later
 * line means (a name, a forgotten process) or that must follow the
 * samples before it, and at the end.
 */
void dump_runs_flush(struct dump_runs *r);

#endif
