/*
 * start.c: starting a recording: launching a command, attaching to processes,
 * and what sp-record says when the kernel made it change plans (recorder.h).
 */
#include <err.h>
#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "common/htab.h"
#include "sp-record/launch.h"
#include "sp-record/sysctl.h"
#include "sp-record/recorder_impl.h"
#include "common/banned.h"

/*
 * Says what the kernel made us change that the user must act on.  (A
 * fall back from cycles to cpu-clock, which every VM without a PMU makes,
 * is said in the summary.)
 */
static void
announce(struct recorder *r)
{
	if (r->ev.kernel_denied)
		warnx("kernel stacks are not permitted (kernel."
		      "perf_event_paranoid is %ld; run as root or grant "
		      "CAP_PERFMON): recording user stacks only",
		      rec_perf_paranoid());
	r->stk.max_chain = r->ev.attr.sample_max_stack;
	r->stk.kernel = r->ev.kernel_stacks;
	rec_write_events(r);
}

/*
 * Says why the command could not be executed; returns the shell's status
 * for it (127 not found, 126 not executable).  A name without a slash
 * was searched in PATH, where ENOENT means no such command.
 */
int
rec_exec_failed(const char *cmd, int e)
{
	if (e == ENOENT && !strchr(cmd, '/'))
		warnx("'%s': command not found", cmd);
	else
		warnx("'%s': %s", cmd, strerror(e));
	return e == ENOENT ? 127 : 126;
}

int
rec_launch(struct recorder *r, char **argv)
{
	struct rec_child c;
	struct rec_proc *p;
	const char *msg;
	int e, rc;

	if ((rc = rec_child_fork(&c, argv, r->cfg.spool_on_stdout)) < 0) {
		warnx("cannot start '%s': %s", argv[0], strerror(-rc));
		return 1;
	}
	r->child = c.pid;
	p = rec_track_process(r, c.pid, true);
	rc = p ? rec_events_open_launch(&r->ev, c.pid) : -ENOMEM;
	if (rc < 0) {
		msg = rec_events_errmsg(&r->ev);
		warnx("%s", msg[0] ? msg : strerror(-rc));
		rec_child_abort(&c);
		rec_reap(r, true, NULL);
		return 1;
	}
	rec_write_kernel_module(r);
	/* Events are in place: let the child execute the command. */
	if (rec_child_start(&c) < 0)
		warn("cannot start '%s'", argv[0]);
	if ((e = rec_child_exec_errno(&c)) != 0) {
		rec_reap(r, true, NULL);
		return rec_exec_failed(argv[0], e);
	}
	/* Notices only once the command runs: not before its error. */
	announce(r);
	return r->werr ? 1 : 0;
}

int
rec_attach(struct recorder *r, int32_t *pids, size_t n)
{
	struct rec_proc *p;
	int32_t tgid;
	uint64_t ts;
	size_t i, k;
	long rc;

	/* k processes kept: a thread's process named twice is one. */
	for (i = k = 0; i < n; i++) {
		if (rec_proc_tgid(pids[i], &tgid) == 0 && tgid != pids[i]) {
			warnx("pid '%d' is a thread of process %d: recording "
			      "the process",
			      (int)pids[i], (int)tgid);
			pids[i] = tgid;
		}
		if (rec_ptab_get(&r->procs, pids[i]))
			continue;
		rc = rec_events_open_attach(&r->ev, pids[i]);
		if (rc < 0) {
			warnx("%s", rec_events_errmsg(&r->ev));
			return 1;
		}
		if (!rec_track_process(r, pids[i], true))
			return 1;
		pids[k++] = pids[i];
	}
	announce(r);
	rec_write_kernel_module(r);
	/*
	 * Enable first, then read the maps: a mapping made in between shows
	 * up twice (interning merges it) rather than not at all.
	 */
	rc = rec_events_enable(&r->ev);
	if (rc < 0) {
		warnx("cannot enable the events: %s", strerror((int)-rc));
		return 1;
	}
	ts = rec_now_ns();
	for (i = 0; i < k && !r->werr; i++) {
		p = rec_ptab_get(&r->procs, pids[i]);
		if (!p || rec_snapshot_maps(r, p, ts) < 0 ||
		    rec_name_threads(r, pids[i], ts) < 0)
			break;
	}
	if (!r->werr)
		rec_wr(r, sp_spool_writer_flush(r->w));
	return r->werr ? 1 : 0;
}

/* Launches the command of -a -- CMD: sampled as any other process. */
static int
launch_plain(struct recorder *r, char **argv)
{
	struct rec_child c;
	int e, rc;

	if ((rc = rec_child_fork(&c, argv, r->cfg.spool_on_stdout)) < 0) {
		warnx("cannot start '%s': %s", argv[0], strerror(-rc));
		return 1;
	}
	r->child = c.pid;
	if (rec_child_start(&c) < 0)
		warn("cannot start '%s'", argv[0]);
	if ((e = rec_child_exec_errno(&c)) != 0) {
		rec_reap(r, true, NULL);
		return rec_exec_failed(argv[0], e);
	}
	return 0;
}

int
rec_system_wide(struct recorder *r, char **argv)
{
	const char *msg;
	int rc;

	if (r->cfg.cpu_list &&
	    rec_events_select_cpus(&r->ev, r->cfg.cpu_list) < 0) {
		warnx("%s", rec_events_errmsg(&r->ev));
		return 1;
	}
	rc = rec_events_open_cpus(&r->ev);
	if (rc < 0) {
		msg = rec_events_errmsg(&r->ev);
		warnx("%s", msg[0] ? msg : strerror(-rc));
		return 1;
	}
	announce(r);
	rec_write_kernel_module(r);
	rc = rec_events_enable(&r->ev);
	if (rc < 0) {
		warnx("cannot enable the events: %s", strerror(-rc));
		return 1;
	}
	if (argv && (rc = launch_plain(r, argv)) != 0)
		return rc;
	if (!r->werr)
		rec_wr(r, sp_spool_writer_flush(r->w));
	return r->werr ? 1 : 0;
}

/*
 * Says why thread `tid` could not be recorded (rc < 0): out of file
 * descriptors, each of the n threads needing one per CPU and event, is
 * not "no such thread".
 */
static void
thread_failed(struct recorder *r, int32_t tid, int rc, size_t n)
{
	struct rlimit rl;

	if (rc == -EMFILE || rc == -ENFILE) {
		if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
			rl.rlim_cur = 0;
		warnx("too many open files%s: %zu threads need %zu "
		      "descriptors (one per CPU and event); raise ulimit -n "
		      "(now %llu)",
		      rc == -ENFILE ? " in the system" : "", n,
		      n * (size_t)r->ev.ncpus * r->ev.opts.nevents,
		      (unsigned long long)rl.rlim_cur);
	} else if (rc == -ENOENT || rc == -ESRCH) {
		warnx("thread '%d': no such thread", (int)tid);
	} else if (rec_events_errmsg(&r->ev)[0]) {
		warnx("%s", rec_events_errmsg(&r->ev));
	} else {
		warnx("thread '%d': %s", (int)tid, strerror(-rc));
	}
}

/*
 * Reads the maps and names the threads of each process of tids[] once,
 * however many of its threads were named.
 */
static void
snapshot_processes(struct recorder *r, const int32_t *tids, size_t n)
{
	struct sp_htab *done = sp_htab_new();
	struct rec_proc *p;
	bool fresh;
	int32_t pid;
	size_t i;

	if (!done) {
		rec_wr(r, -ENOMEM);
		return;
	}
	for (i = 0; i < n && !r->werr; i++) {
		if (rec_proc_tgid(tids[i], &pid) < 0 ||
		    !(p = rec_ptab_get(&r->procs, pid)))
			continue;
		if (!sp_htab_slot(done, &pid, sizeof(pid), 1, &fresh)) {
			rec_wr(r, -ENOMEM);
			break;
		}
		if (fresh && (rec_snapshot_maps(r, p, rec_now_ns()) < 0 ||
			      rec_name_threads(r, pid, rec_now_ns()) < 0))
			break;
	}
	sp_htab_free(done);
}

int
rec_attach_threads(struct recorder *r, const int32_t *tids, size_t n)
{
	int32_t pid;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		rc = rec_proc_tgid(tids[i], &pid);
		if (rc == 0)
			rc = rec_events_open_thread(&r->ev, tids[i]);
		if (rc < 0) {
			thread_failed(r, tids[i], rc, n);
			return 1;
		}
		if (!rec_ptab_get(&r->procs, pid) &&
		    !rec_track_process(r, pid, true))
			return 1;
	}
	announce(r);
	rec_write_kernel_module(r);
	rc = rec_events_enable(&r->ev);
	if (rc < 0) {
		warnx("cannot enable the events: %s", strerror(-rc));
		return 1;
	}
	snapshot_processes(r, tids, n);
	if (!r->werr)
		rec_wr(r, sp_spool_writer_flush(r->w));
	return r->werr ? 1 : 0;
}
