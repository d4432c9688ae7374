/*
 * ptrace_run.h: the --ptrace driver: spawns or attaches through ptrace.h
 * and turns its samples and exec reports into spool records through the
 * handlers (handlers.h), which it borrows with the parts they hold.
 */
#ifndef SP_RECORD_PTRACE_RUN_H
#define SP_RECORD_PTRACE_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sp-record/handlers.h"
#include "sp-record/ptrace/ptrace.h"
#include "sp-record/opts.h"

struct rec_ptrace_run;

/*
 * A driver sampling at cfg's rate through `h` (borrowed; it must outlive
 * the driver).  Returns NULL with errno set.
 */
struct rec_ptrace_run *rec_ptrace_run_new(const struct rec_config *cfg,
					  struct rec_handlers *h);
/* Detaches from what is left and frees the driver. */
void rec_ptrace_run_free(struct rec_ptrace_run *d);

/*
 * Launches argv (when not NULL; its pid in *child) or attaches to `pid`,
 * then tracks it with its maps and thread names.  Returns 0 or an exit
 * status for sp-record, after printing why.
 */
int rec_ptrace_run_start(struct rec_ptrace_run *d, char **argv, int32_t pid,
			 pid_t *child);
/* As rec_recorder_ptrace_run() (recorder.h); then detaches. */
int rec_ptrace_run_run(struct rec_ptrace_run *d, double seconds,
		       volatile sig_atomic_t *stop);
/* Whether the launched command exited while traced, with its status. */
bool rec_ptrace_run_child_exited(const struct rec_ptrace_run *d, int *status);
/* The sampler's pauses and failures, once run. */
const struct rec_ptrace_summary *
rec_ptrace_run_summary(const struct rec_ptrace_run *d);

/*
 * ptrace_why.c: says why attaching to `pid` (named `who` in messages)
 * failed with `rc` when privilege is not the reason; false when it has
 * nothing better to say than the usual advice.
 */
bool rec_ptrace_why_explain(const char *who, int32_t pid, int rc);

#endif
