/*
 * recorder.h: the recording core of sp-record.
 *
 * It owns the sampling events, merges the rings' records in time order
 * (sorter.h), keeps the process, thread and module state those records
 * describe, and writes the spool.  sp-record.c drives it:
 *
 *   r = rec_recorder_new(&cfg, fd);
 *   rec_recorder_launch(r, argv) or rec_recorder_attach(r, pids, n);
 *   while (!stop && !rec_recorder_targets_gone(r) && !rec_recorder_failed(r))
 *       rec_recorder_step(r, 50);
 *   rec_recorder_stop(r);  rec_recorder_summary(r, stderr);
 * rec_recorder_free(r);
 *
 * Functions print their own diagnostics (`sp-record: ...`) and return 0
 * or a negative errno.
 */
#ifndef SP_RECORD_RECORDER_H
#define SP_RECORD_RECORDER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "sp-record/opts.h"
#include "sp-record/stats.h"

struct rec_recorder;

/*
 * Creates a recorder writing to `fd` and writes the spool header and the
 * host record.  Returns NULL after printing why.
 */
struct rec_recorder *rec_recorder_new(const struct rec_config *cfg, int fd);
void rec_recorder_free(struct rec_recorder *r);

/*
 * Launches argv[0] with its events set up before it executes.  Returns 0,
 * or an exit status for sp-record (1: setup failed; 126/127: the command
 * could not be executed), after printing why.
 */
int rec_recorder_launch(struct rec_recorder *r, char **argv);
/*
 * Attaches to every thread of each pid (a thread id stands for its
 * process: pids[] is updated).  Returns 0 or 1, as rec_recorder_launch.
 */
int rec_recorder_attach(struct rec_recorder *r, int32_t *pids, size_t n);

/*
 * -a: samples every process on the chosen CPUs, each one known from its
 * first sample or its fork (maps read then), the recorder excepted; with
 * argv, also launches that command and ends when it exits.  Returns 0 or
 * an exit status, as rec_recorder_launch.
 */
int rec_recorder_system_wide(struct rec_recorder *r, char **argv);
/*
 * -t: samples the threads tids[] only (each one's process is tracked for
 * its modules).  Returns 0 or 1, as rec_recorder_attach.
 */
int rec_recorder_attach_threads(struct rec_recorder *r, const int32_t *tids,
				size_t n);
/*
 * --ptrace: samples one process by interrupting its threads with ptrace(2)
 * (sp-record/ptrace.h) instead of perf events; every copy of registers and
 * stack goes through the DWARF unwinder.  rec_recorder_ptrace_start() launches
 * argv (when not NULL) or attaches to `pid` and returns 0 or an exit status, as
 * rec_recorder_launch() does.  rec_recorder_ptrace_run() samples until
 * `seconds` pass (0: no limit), *stop is set, the target exits or the output
 * fails; then it detaches.  Returns 0 or the write error.
 */
int rec_recorder_ptrace_start(struct rec_recorder *r, char **argv, int32_t pid);
int rec_recorder_ptrace_run(struct rec_recorder *r, double seconds,
			    volatile sig_atomic_t *stop);

/*
 * Waits up to `timeout_ms` for ring data, then drains every ring, writes
 * the records that are ready, checks which processes died and flushes
 * the spool at least every 100 ms.  Returns 0 or the write error.
 */
int rec_recorder_step(struct rec_recorder *r, int timeout_ms);
/* Whether every recorded process has exited (and was written out). */
bool rec_recorder_targets_gone(struct rec_recorder *r);
/* The write error that stopped the recording, or 0. */
int rec_recorder_failed(const struct rec_recorder *r);

/*
 * Stops sampling, writes every pending record, the lost counts and the
 * stats record, and flushes.  Returns 0 or the write error (printed).
 */
int rec_recorder_stop(struct rec_recorder *r);

/*
 * The launched command: its pid (0 when none or reaped) and, once reaped,
 * its wait status.  rec_recorder_reap() waits for it (with WNOHANG unless
 * `block`) and returns true once it is reaped.
 */
pid_t rec_recorder_child(const struct rec_recorder *r);
bool rec_recorder_reap(struct rec_recorder *r, bool block, int *status);

/*
 * For tests, without perf events: rec_recorder_track() starts tracking `pid` as
 * a target, as -p does; rec_recorder_inject() queues a perf record (8-byte
 * aligned, laid out for the recorder's attributes) as if read from a ring, and
 * rec_recorder_handle_queued() handles everything queued, in time order.
 */
int rec_recorder_track(struct rec_recorder *r, int32_t pid);
int rec_recorder_inject(struct rec_recorder *r, const void *rec, size_t len);
int rec_recorder_handle_queued(struct rec_recorder *r);
/* The sample type and register mask the recorder's records carry. */
uint64_t rec_recorder_sample_type(const struct rec_recorder *r);

/* Prints the one-screen summary. */
void rec_recorder_summary(const struct rec_recorder *r, FILE *out,
			  double seconds);
/*
 * Rewrites the one-line status on a terminal: elapsed time, samples,
 * processes and threads, lost events.  rec_recorder_status_clear erases it.
 */
void rec_recorder_status_line(const struct rec_recorder *r, FILE *out,
			      double seconds);
void rec_recorder_status_clear(FILE *out);

#endif
