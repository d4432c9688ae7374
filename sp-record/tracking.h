/*
 * tracking.h: the recorder's tracking part: which processes are recorded
 * (the process and thread table), their modules (the module table, fed
 * from perf records and /proc/PID/maps), the Python runtime marker, the
 * pids -a leaves out, liveness checks and the adoption of processes found
 * late.
 *
 * A tracker borrows the output part (spoolout.h), through which it
 * writes module, comm, exec and deactivation records, and the stacker
 * (stack.h), which it tells when a process's code changed or ended; both
 * must outlive it.  Functions returning int return 0 or the output's
 * negative errno; those returning a process return NULL on error (the
 * error is the output's) or when the process is not to be recorded.
 */
#ifndef SP_RECORD_TRACKING_H
#define SP_RECORD_TRACKING_H

#include <stdbool.h>
#include <stdint.h>

#include "common/modtab.h"
#include "sp-record/capture/capture.h"
#include "sp-record/sys/proc.h"
#include "sp-record/opts.h"
#include "sp-record/out/spoolout.h"
#include "sp-record/unwind/stack.h"

struct rec_filepin;
struct rec_tracking;

/*
 * A tracker of the processes `cfg` names (its -a scope: -u's user, never
 * us).  Returns NULL with errno set.
 */
struct rec_tracking *rec_tracking_new(const struct rec_config *cfg,
				      struct rec_spoolout *out,
				      struct rec_stack *stk);
void rec_tracking_free(struct rec_tracking *t);

/*
 * Tells `cap` (borrowed; NULL: none) of each process retired, so that
 * the module files it held are decided (capture.h).
 */
void rec_tracking_set_capture(struct rec_tracking *t, struct rec_capture *cap);
/* The pinned files (borrowed) to let go of as processes are retired. */
void rec_tracking_set_pins(struct rec_tracking *t, struct rec_filepin *pins);

/* The process and thread table; valid as long as the tracker. */
struct rec_proc_tab *rec_tracking_procs(struct rec_tracking *t);
const struct rec_proc_tab *
rec_tracking_procs_const(const struct rec_tracking *t);
/* The module table every sample resolves against. */
struct sp_modtab *rec_tracking_mods(struct rec_tracking *t);
uint32_t rec_tracking_nmodules(const struct rec_tracking *t);

/* Starts tracking `pid`; its start time tells generations apart. */
struct rec_proc *rec_tracking_track_process(struct rec_tracking *t, int32_t pid,
					    bool target);
/*
 * The same for a child whose exit will come as a record (a launch's,
 * exits_whole in handlers.h): its start time is read only if a liveness
 * check needs it, a /proc read less per process of a build.
 */
struct rec_proc *rec_tracking_track_child(struct rec_tracking *t, int32_t pid);
/* A process ended (or its pid was reused): closes its module epoch. */
int rec_tracking_retire(struct rec_tracking *t, int32_t pid, uint64_t ts);
/*
 * A new program in `p` at `ts`: its old modules no longer apply (the
 * exec record and a deactivation are written).
 */
int rec_tracking_exec_epoch(struct rec_tracking *t, struct rec_proc *p,
			    uint64_t ts);
/*
 * -f: `child` (just tracked) starts with a copy of `parent`'s modules
 * and Python state.
 */
int rec_tracking_inherit(struct rec_tracking *t, struct rec_proc *parent,
			 struct rec_proc *child, uint64_t ts);

/*
 * Interns module `m` of process `p` (from an MMAP2 record): a mapping
 * over an older one makes the stacker forget what it knew of `p`, and a
 * Python runtime gets its marker when perf support is on.
 */
int rec_tracking_map_module(struct rec_tracking *t, struct rec_proc *p,
			    const struct sp_module *m, uint64_t ts);
/* Reads /proc/PID/maps of `p` and interns its modules. */
int rec_tracking_snapshot_maps(struct rec_tracking *t, struct rec_proc *p,
			       uint64_t ts);
/*
 * Reads /proc/PID/maps of `p` again and interns its modules when the
 * text differs from what the last call read (of any process).  Returns
 * 1 when it did, 0 when nothing changed or the process is gone, or a
 * negative errno.
 */
int rec_tracking_refresh_maps(struct rec_tracking *t, struct rec_proc *p,
			      uint64_t ts);
/* Names every thread of a freshly attached process (comm records). */
int rec_tracking_name_threads(struct rec_tracking *t, int32_t pid, uint64_t ts);
/*
 * -a: starts tracking a process first seen in a sample, with its maps and
 * thread names; NULL when it is not recorded (us, another user's under
 * -u: remembered for a second, or until it execs or exits) or on error.
 */
struct rec_proc *rec_tracking_adopt_sampled(struct rec_tracking *t, int32_t pid,
					    uint64_t ts);
/*
 * -a: starts tracking a child forked by a process not tracked (its
 * modules come from its exec's records, or a maps read on a miss); NULL
 * when not recorded.
 */
struct rec_proc *rec_tracking_adopt_forked(struct rec_tracking *t, int32_t pid);
/*
 * -a -- CMD: the child forked to run CMD runs our code until its exec
 * (its samples are ours, and its maps read late would be CMD's): it is
 * not recorded until its exec's record.
 */
void rec_tracking_hold_until_exec(struct rec_tracking *t, int32_t pid);
/*
 * -a: a process not tracked execs: it may have changed users (setpriv,
 * su) or be the held child; its exec's time is kept for when it is
 * adopted.
 */
void rec_tracking_untracked_exec(struct rec_tracking *t, int32_t pid,
				 uint64_t ts);
/* -a: an exited process's pid may be reused by a process to record. */
void rec_tracking_untracked_exit(struct rec_tracking *t, int32_t pid);

/*
 * Calls `dead` for each tracked process found dead and not yet retiring;
 * when it returns true (it queued the retirement) the process is marked
 * retiring.  With `ring_whole` (every thread's exit comes through the
 * rings: no -p or -t, and no record was lost since the last call) a
 * process with a thread whose exit has not come is taken to live, and
 * /proc is read only for the others: on a build most processes are
 * checked several times in their life, and each look costs a file open.
 */
void rec_tracking_check_processes(struct rec_tracking *t, bool ring_whole,
				  bool (*dead)(const struct rec_proc *p,
					       void *arg),
				  void *arg);
/*
 * Lost events may include the FORK of a child -f should follow: adopts
 * every untracked process whose parent is tracked, with its maps and
 * thread names, until none is left.  Returns how many it adopted.
 */
uint64_t rec_tracking_adopt_children(struct rec_tracking *t, uint64_t now);

#endif
