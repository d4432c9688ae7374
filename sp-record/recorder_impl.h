/*
 * recorder_impl.h: what the recorder's files share, private to them:
 * struct recorder and the functions one file calls in another.  Nothing
 * outside recorder.c, spoolout.c, tracking.c, handlers.c, start.c,
 * ptrace_run.c, ptrace_why.c and summary.c includes it; the rest of
 * sp-record sees recorder.h only.
 */
#ifndef SP_RECORD_RECORDER_IMPL_H
#define SP_RECORD_RECORDER_IMPL_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/modtab.h"
#include "common/spool.h"
#include "sp-record/buildid.h"
#include "sp-record/clock.h"
#include "sp-record/maps.h"
#include "sp-record/offcpu.h"
#include "sp-record/perfrec.h"
#include "sp-record/proc.h"
#include "sp-record/ptrace.h"
#include "sp-record/recorder.h"
#include "sp-record/sorter.h"
#include "sp-record/stack.h"
#include "sp-record/events.h"

/* Kinds of sorter events: perf records, and our own synthetic ones. */
enum { KIND_PERF, KIND_RETIRE };

/* A process found dead; retired in time order once earlier events ran. */
struct retire {
	int32_t pid;
	uint32_t pad;
	uint64_t start_time;
};

#define HOUSEKEEPING_NS 100000000ULL   /* liveness checks and flushes */
#define MISSED_REFRESH_NS 100000000ULL /* maps reads for unwinder misses */
/*
 * How long after an exec's announcement a sample may still carry the old
 * program's registers (the kernel maps the new one, then switches).
 */
#define REC_EXEC_STALE_NS 50000000ULL
/*
 * --ptrace re-reads the maps before samples, spaced so that the reads
 * take at most 1/PTRACE_MAPS_COST of the recorder's time, and at most
 * PTRACE_MAPS_NS apart.
 */
#define PTRACE_MAPS_NS 250000000ULL
#define PTRACE_MAPS_COST 20

struct recorder {
	struct rec_config cfg;
	struct rec_events ev;
	struct rec_layout layout;
	struct rec_sorter *sorter;
	struct sp_spool_writer *w;
	struct sp_modtab *mods;
	struct rec_ptab procs;
	struct rec_stacker stk;
	struct rec_stats st;
	struct sp_buf ext;       /* extension payload scratch */
	struct sp_buf maps;      /* /proc/PID/maps scratch */
	struct sp_buf maps_seen; /* the text rec_refresh_maps() last read */
	int32_t maps_seen_pid;
	struct sp_frame *frames; /* REC_STACK_MAX */
	struct rec_buildids *buildids;
	struct pollfd *pfd;
	bool *hup;              /* ring fd reported POLLHUP */
	int werr;               /* sticky write error */
	int out_fd;             /* the spool's descriptor, not owned */
	uint64_t out_start;     /* where the spool starts in it (`>>`) */
	bool trimmed;           /* the spool was cut back to kept_bytes */
	bool closed_after_stop; /* the reader went away with the interrupt */
	uint64_t kept_bytes;
	bool stopped;
	bool gap; /* events lost since the last sweep */
	pid_t child;
	int32_t self;              /* our pid: -a does not record us */
	struct sp_htab *ignored;   /* -a: pids not recorded (-u, us) */
	struct rec_offcpu *offcpu; /* --off-cpu: threads switched out */
	uint64_t offcpu_short;     /* waits under --off-cpu-min */
	bool child_reaped;
	int child_status;
	uint64_t last_check_ns;
	uint64_t last_flush_ns;
	uint64_t last_maps_ns;  /* --ptrace: last periodic maps read */
	uint64_t maps_gap_ns;   /* --ptrace: from that one to the next */
	struct rec_ptracer *pt; /* --ptrace sampler, or NULL */
	struct rec_ptracer_summary ptsum;
};

/*
 * The functions below are the recorder's own, called across its files;
 * each one's contract is in the comment above its definition.  Those
 * returning int return 0 or a negative errno, and those that write to
 * the spool go through rec_wr(), so the first write error sticks in
 * r->werr.
 */

/* spoolout.c */
int rec_wr(struct recorder *r, int rc);
int rec_write_ext(struct recorder *r, uint8_t tag);
int rec_write_comm(struct recorder *r, uint64_t ts, int32_t pid, int32_t tid,
		   bool is_exec, const char *name, size_t len);
int rec_write_lost(struct recorder *r, uint64_t ts, uint64_t count);
int rec_write_exit(struct recorder *r, uint64_t ts, int32_t pid, int32_t tid);
int rec_write_buildids(struct recorder *r, uint32_t first);
int rec_write_events(struct recorder *r);
bool rec_needs_weight(const struct recorder *r);
int rec_write_weight(struct recorder *r, uint32_t event, uint64_t weight);
int rec_write_wait(struct recorder *r, enum sp_wait_state state);
int rec_intern(struct recorder *r, const struct sp_module *m, uint32_t *id);
void rec_read_line(const char *path, char *buf, size_t size);
int rec_write_host(struct recorder *r);
int rec_write_kernel_module(struct recorder *r);

/* tracking.c */
int rec_mark_python(struct recorder *r, struct rec_proc *p, uint64_t ts);
bool rec_python_support(struct rec_proc *p);
bool rec_replaces(const struct sp_frame *lo, const struct sp_frame *hi,
		  uint32_t id);
int rec_snapshot_maps(struct recorder *r, struct rec_proc *p, uint64_t ts);
int rec_refresh_maps(struct recorder *r, struct rec_proc *p, uint64_t ts);
struct rec_proc *rec_track_process(struct recorder *r, int32_t pid,
				   bool target);
int rec_retire(struct recorder *r, int32_t pid, uint64_t ts);
/*
 * -a: starts tracking a process first seen in a sample, with its maps and
 * thread names; NULL when it is not recorded (us, another user's under
 * -u: remembered until its exit) or on error.
 */
struct rec_proc *rec_adopt_sampled(struct recorder *r, int32_t pid,
				   uint64_t ts);
/*
 * -a: starts tracking a child forked by a process not tracked (its
 * modules come from its exec's records, or a maps read on a miss); NULL
 * when not recorded.
 */
struct rec_proc *rec_adopt_forked(struct recorder *r, int32_t pid);
/* -a: an exited process's pid may be reused by a process to record. */
void rec_forget_ignored(struct recorder *r, int32_t pid);
void rec_check_processes(struct recorder *r, uint64_t now);
void rec_adopt_children(struct recorder *r, uint64_t now);
int rec_name_threads(struct recorder *r, int32_t pid, uint64_t ts);

/* handlers.c */
int rec_write_sample(struct recorder *r, struct rec_proc *p,
		     const struct rec_sample *s);
int rec_exec_epoch(struct recorder *r, struct rec_proc *p, uint64_t ts);
/* --off-cpu: writes every stack still waiting, as if run again at `now`. */
int rec_offcpu_flush(struct recorder *r, uint64_t now);
int rec_handle(struct recorder *r, const struct rec_event *e);

/*
 * ptrace_why.c: says why attaching to `pid` (named `who` in messages)
 * failed with `rc` when privilege is not the reason; false when it has
 * nothing better to say than the usual advice.
 */
bool rec_ptrace_explain(const char *who, int32_t pid, int rc);

/* start.c */
int rec_exec_failed(const char *cmd, int e);

#endif
