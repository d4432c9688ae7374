/*
 * ptrace_run.c: the --ptrace driver: spawns or attaches through
 * ptrace.h and turns its samples and exec reports into spool records
 * (recorder.h).
 */
#include <err.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <asm/perf_regs.h>

#include "sp-record/recorder_impl.h"
#include "sp-record/sysctl.h"
#include "common/banned.h"

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
refresh_maps(struct recorder *r, struct rec_proc *p, uint64_t ts)
{
	uint64_t t0, cost;
	int rc;

	if (ts - r->last_maps_ns < r->maps_gap_ns)
		return 0;
	t0 = cpu_ns();
	r->last_maps_ns = ts;
	rc = rec_refresh_maps(r, p, ts);
	if (rc > 0)
		r->st.maps_refreshes++;
	cost = (cpu_ns() - t0) * PTRACE_MAPS_COST;
	r->maps_gap_ns = cost < PTRACE_MAPS_NS ? cost : PTRACE_MAPS_NS;
	return rc < 0 ? rc : 0;
}

static int
ptrace_sample(struct recorder *r, const struct rec_ptracer_event *ev)
{
	struct rec_proc *p = rec_ptab_get(&r->procs, ev->pid);
	uint64_t mask = ev->regs_mask, below;
	struct rec_sample s;

	r->st.sample_events++;
	if (!p) {
		r->st.untracked++;
		return 0;
	}
	if (refresh_maps(r, p, ev->timestamp_ns) < 0)
		return r->werr;
	memset(&s, 0, sizeof(s));
	s.pid = (uint32_t)ev->pid;
	s.tid = (uint32_t)ev->tid;
	s.time = ev->timestamp_ns;
	s.abi = ev->regs ? PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_NONE;
	s.regs = ev->regs;
	s.stack = ev->stack_len ? ev->stack : NULL;
	s.stack_len = ev->stack_len;
	s.misc = PERF_RECORD_MISC_USER;
	below = mask & ((1ULL << PERF_REG_X86_IP) - 1);
	if (ev->regs && (mask & (1ULL << PERF_REG_X86_IP)))
		s.ip = ev->regs[__builtin_popcountll(below)];
	r->stk.regs_mask = mask;
	return rec_write_sample(r, p, &s);
}

static int
ptrace_exec(struct recorder *r, const struct rec_ptracer_event *ev)
{
	struct rec_proc *p = rec_ptab_get(&r->procs, ev->pid);
	char comm[REC_COMM_MAX];
	int rc;

	if (!p)
		return 0;
	rc = rec_exec_epoch(r, p, ev->timestamp_ns);
	if (rc == 0)
		rc = rec_snapshot_maps(r, p, ev->timestamp_ns);
	if (rc == 0 && rec_proc_comm(p->pid, ev->tid, comm, sizeof(comm)) == 0)
		rc = rec_write_comm(r, ev->timestamp_ns, p->pid, ev->tid, true,
				    comm, strlen(comm));
	return rc;
}

static int
on_ptrace(const struct rec_ptracer_event *ev, void *arg)
{
	struct recorder *r = arg;

	switch (ev->kind) {
	case REC_PTRACER_SAMPLE:
		ptrace_sample(r, ev);
		break;
	case REC_PTRACER_EXEC:
		ptrace_exec(r, ev);
		break;
	case REC_PTRACER_THREAD_EXIT:
		rec_write_exit(r, ev->timestamp_ns, ev->pid, ev->tid);
		break;
	case REC_PTRACER_EXIT:
		rec_write_exit(r, ev->timestamp_ns, ev->pid, ev->pid);
		rec_retire(r, ev->pid, ev->timestamp_ns);
		if (r->child == ev->pid) {
			r->child_reaped = true;
			r->child_status = ev->status;
		}
		break;
	}
	if (!r->werr && rec_now_ns() - r->last_flush_ns >= HOUSEKEEPING_NS) {
		r->last_flush_ns = rec_now_ns();
		rec_wr(r, sp_spool_writer_flush(r->w));
	}
	return r->werr ? 1 : 0;
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
	if (!argv && rec_ptrace_explain(who, pid, rc))
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
	return rec_exec_failed(argv[0], -rc);
}

int
rec_ptrace_start(struct recorder *r, char **argv, int32_t pid)
{
	struct rec_proc *p;
	uint64_t ts;
	int rc;

	r->pt = rec_ptracer_new((unsigned)r->cfg.ev.freq, r->cfg.ev.stack_size);
	if (!r->pt) {
		warn("cannot set up ptrace sampling");
		return 1;
	}
	rc = argv ? rec_ptracer_spawn(r->pt, argv, r->cfg.spool_on_stdout)
		  : rec_ptracer_attach(r->pt, pid);
	if (rc < 0)
		return ptrace_failed(argv, pid, rc);
	pid = rec_ptracer_pid(r->pt);
	if (argv)
		r->child = pid;
	p = rec_track_process(r, pid, true);
	if (!p)
		return 1;
	ts = rec_now_ns();
	r->last_maps_ns = ts;
	if (rec_snapshot_maps(r, p, ts) == 0)
		rec_name_threads(r, pid, ts);
	if (!r->werr)
		rec_wr(r, sp_spool_writer_flush(r->w));
	r->last_flush_ns = rec_now_ns();
	return r->werr ? 1 : 0;
}

int
rec_ptrace_run(struct recorder *r, double seconds, volatile sig_atomic_t *stop)
{
	int rc = rec_ptracer_run(r->pt, seconds, stop, on_ptrace, r);

	if (rc < 0 && !r->werr)
		warnx("ptrace: %s", strerror(-rc));
	rec_ptracer_summary(r->pt, &r->ptsum);
	/* Detached now, so a launched command can be ended normally. */
	rec_ptracer_detach(r->pt);
	return r->werr;
}
