/*
 * ptrace_run.c: the --ptrace driver: spawns or attaches through
 * ptrace.h and turns its samples and exec reports into spool records
 * (ptrace_run.h).
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <asm/perf_regs.h>

#include "sp-record/sys/clock.h"
#include "sp-record/unwind/goexe.h"
#include "sp-record/ptrace_run.h"
#include "sp-record/start.h"
#include "sp-record/sys/sysctl.h"
#include "sp-record/unwind/unwind.h"
#include "common/banned.h"

#define FLUSH_NS 100000000ULL /* the spool is flushed this often */
/*
 * --ptrace re-reads the maps before samples, spaced so that the reads
 * take at most 1/PTRACE_MAPS_COST of the recorder's time, and at most
 * PTRACE_MAPS_NS apart.
 */
#define PTRACE_MAPS_NS 250000000ULL
#define PTRACE_MAPS_COST 20

struct rec_ptrace_run {
	struct rec_ptrace *pt;
	struct rec_handlers *h; /* borrowed */
	bool spool_on_stdout;   /* a launched command writes to stderr */
	pid_t child;            /* the launched command, or 0 */
	bool child_exited;
	int child_status;
	uint64_t last_flush_ns;
	uint64_t last_maps_ns; /* last periodic maps read */
	uint64_t maps_gap_ns;  /* from that one to the next */
	struct rec_ptrace_summary sum;
};

/* Reads a Python stack while its thread stands still: exact. */
static void
read_python(pid_t pid, pid_t tid, void *arg)
{
	struct rec_handlers *h = arg;

	(void)rec_reader_read(h->py, pid, tid, 0);
}

struct rec_ptrace_run *
rec_ptrace_run_new(const struct rec_config *cfg, struct rec_handlers *h)
{
	struct rec_ptrace_run *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->h = h;
	d->spool_on_stdout = cfg->spool_on_stdout;
	d->pt = rec_ptrace_new((unsigned)cfg->ev.freq, cfg->ev.stack_size);
	if (!d->pt) {
		free(d);
		return NULL;
	}
	if (h->py)
		rec_ptrace_on_stopped(d->pt, read_python, h);
	return d;
}

void
rec_ptrace_run_free(struct rec_ptrace_run *d)
{
	if (!d)
		return;
	rec_ptrace_free(d->pt);
	free(d);
}

bool
rec_ptrace_run_child_exited(const struct rec_ptrace_run *d, int *status)
{
	*status = d->child_status;
	return d->child_exited;
}

const struct rec_ptrace_summary *
rec_ptrace_run_summary(const struct rec_ptrace_run *d)
{
	return &d->sum;
}

static uint64_t
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Nothing tells ptrace mode that a library was unmapped and another
 * mapped in its place (dlclose, dlopen, the same address each time): its
 * pcs would resolve to the old module.  So the maps are read again
 * before a sample and interned when they changed, and each sample
 * resolves through the mappings of its time.  For a process with
 * thousands of mappings a read costs about a millisecond: reads are
 * spaced by PTRACE_MAPS_COST times what the last one cost.
 */
static int
refresh_maps(struct rec_ptrace_run *d, struct rec_proc *p, uint64_t ts)
{
	uint64_t t0, cost;
	int rc;

	if (ts - d->last_maps_ns < d->maps_gap_ns)
		return 0;
	t0 = cpu_ns();
	d->last_maps_ns = ts;
	rc = rec_tracking_refresh_maps(d->h->trk, p, ts);
	if (rc > 0)
		d->h->st->maps_refreshes++;
	if (rc > 0 && d->h->py)
		rec_reader_mapped(d->h->py, p->pid);
	cost = (cpu_ns() - t0) * PTRACE_MAPS_COST;
	d->maps_gap_ns = cost < PTRACE_MAPS_NS ? cost : PTRACE_MAPS_NS;
	return rc < 0 ? rc : 0;
}

/* ptrace's samples are unwound as perf's are, from the same registers. */
_Static_assert(REC_PTRACE_REGS_MASK == REC_UNWIND_REGS_MASK,
	       "ptrace samples carry the registers perf samples do");

static int
ptrace_sample(struct rec_ptrace_run *d, const struct rec_ptrace_event *ev)
{
	struct rec_handlers *h = d->h;
	struct rec_proc *p =
	    rec_proc_tab_get(rec_tracking_procs(h->trk), ev->pid);
	uint64_t mask = ev->regs_mask;
	struct rec_perfrec_sample s;

	h->st->sample_events++;
	if (!p) {
		h->st->untracked++;
		return 0;
	}
	if (refresh_maps(d, p, ev->timestamp_ns) < 0)
		return rec_spoolout_error(h->out);
	memset(&s, 0, sizeof(s));
	s.pid = (uint32_t)ev->pid;
	s.tid = (uint32_t)ev->tid;
	s.time = ev->timestamp_ns;
	s.abi = ev->regs ? PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_NONE;
	s.regs = ev->regs;
	s.stack = ev->stack_len ? ev->stack : NULL;
	s.stack_len = ev->stack_len;
	s.misc = PERF_RECORD_MISC_USER;
	s.chain = ev->chain;
	s.nchain = ev->nchain;
	(void)rec_perfrec_regs_value(ev->regs, mask, PERF_REG_X86_IP, &s.ip);
	h->stk->regs_mask = mask;
	return rec_handlers_write_sample(h, p, &s);
}

static int
ptrace_exec(struct rec_ptrace_run *d, const struct rec_ptrace_event *ev)
{
	struct rec_handlers *h = d->h;
	struct rec_proc *p =
	    rec_proc_tab_get(rec_tracking_procs(h->trk), ev->pid);
	char comm[REC_PROC_COMM_MAX];
	int rc;

	if (!p)
		return 0;
	h->st->execs++;
	/* the frame-pointer walk for a Go program only (ptrace.h) */
	rec_ptrace_set_fpwalk(d->pt, rec_goexe_pid_is_go(p->pid));
	if (h->py)
		rec_reader_forget(h->py, p->pid);
	rc = rec_tracking_exec_epoch(h->trk, p, ev->timestamp_ns);
	if (rc == 0)
		rc = rec_tracking_snapshot_maps(h->trk, p, ev->timestamp_ns);
	if (rc == 0 && rec_proc_comm(p->pid, ev->tid, comm, sizeof(comm)) == 0)
		rc = rec_spoolout_comm(h->out, ev->timestamp_ns, p->pid,
				       ev->tid, true, comm, strlen(comm));
	return rc;
}

static int
on_ptrace(const struct rec_ptrace_event *ev, void *arg)
{
	struct rec_ptrace_run *d = arg;
	struct rec_spoolout *out = d->h->out;

	switch (ev->kind) {
	case REC_PTRACER_SAMPLE:
		ptrace_sample(d, ev);
		break;
	case REC_PTRACER_EXEC:
		ptrace_exec(d, ev);
		break;
	case REC_PTRACER_THREAD_EXIT:
		rec_spoolout_exit(out, ev->timestamp_ns, ev->pid, ev->tid);
		break;
	case REC_PTRACER_EXIT:
		rec_spoolout_exit(out, ev->timestamp_ns, ev->pid, ev->pid);
		if (d->h->py)
			rec_reader_forget(d->h->py, ev->pid);
		rec_tracking_retire(d->h->trk, ev->pid, ev->timestamp_ns);
		if (d->child == ev->pid) {
			d->child_exited = true;
			d->child_status = ev->status;
		}
		break;
	}
	if (!rec_spoolout_error(out) &&
	    rec_clock_now_ns() - d->last_flush_ns >= FLUSH_NS) {
		d->last_flush_ns = rec_clock_now_ns();
		rec_spoolout_flush(out);
	}
	return rec_spoolout_error(out) ? 1 : 0;
}

/*
 * Says why ptrace could not start; returns sp-record's exit status.  Yama
 * is named only where it is what refuses (its scope above 0).
 */
static int
ptrace_failed(char **argv, int32_t pid, int rc)
{
	char who[64];
	long scope = 0;

	if (argv)
		snprintf(who, sizeof(who), "'%.60s'", argv[0]);
	else
		snprintf(who, sizeof(who), "pid '%d'", (int)pid);
	if (!argv && (rc == -ESRCH || rc == -ENOENT)) {
		warnx("%s: no such process", who);
		return 1;
	}
	if (!argv && rec_ptrace_why_explain(who, pid, rc))
		return 1;
	if (rc == -EPERM || (!argv && rc == -EACCES)) {
		rec_sysctl_long("kernel.yama.ptrace_scope", &scope);
		if (scope != 0)
			warnx("%s: ptrace: %s (kernel.yama.ptrace_scope is "
			      "%ld); run as root or with CAP_SYS_PTRACE",
			      who, strerror(-rc), scope);
		else
			warnx("%s: ptrace: %s; run as root or with "
			      "CAP_SYS_PTRACE",
			      who, strerror(-rc));
		return 1;
	}
	if (!argv) {
		warnx("%s: ptrace: %s", who, strerror(-rc));
		return 1;
	}
	return rec_start_exec_failed(argv[0], -rc);
}

int
rec_ptrace_run_start(struct rec_ptrace_run *d, char **argv, int32_t pid,
		     pid_t *child)
{
	struct rec_tracking *trk = d->h->trk;
	struct rec_spoolout *out = d->h->out;
	struct rec_proc *p;
	uint64_t ts;
	int rc;

	rc = argv ? rec_ptrace_spawn(d->pt, argv, d->spool_on_stdout)
		  : rec_ptrace_attach(d->pt, pid);
	if (rc < 0)
		return ptrace_failed(argv, pid, rc);
	pid = rec_ptrace_pid(d->pt);
	if (argv)
		*child = d->child = pid;
	rec_ptrace_set_fpwalk(d->pt, rec_goexe_pid_is_go(pid));
	p = rec_tracking_track_process(trk, pid, true);
	if (!p)
		return 1;
	ts = rec_clock_now_ns();
	d->last_maps_ns = ts;
	if (rec_tracking_snapshot_maps(trk, p, ts) == 0)
		rec_tracking_name_threads(trk, pid, ts);
	rec_spoolout_flush(out);
	d->last_flush_ns = rec_clock_now_ns();
	return rec_spoolout_error(out) ? 1 : 0;
}

int
rec_ptrace_run_run(struct rec_ptrace_run *d, double seconds,
		   volatile sig_atomic_t *stop)
{
	int rc = rec_ptrace_sample(d->pt, seconds, stop, on_ptrace, d);

	if (rc < 0 && !rec_spoolout_error(d->h->out))
		warnx("ptrace: %s", strerror(-rc));
	rec_ptrace_summary(d->pt, &d->sum);
	/* Detached now, so a launched command can be ended normally. */
	rec_ptrace_detach(d->pt);
	return rec_spoolout_error(d->h->out);
}
