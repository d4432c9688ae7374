/*
 * start.c: starting a recording: launching a command, attaching to processes,
 * and what sp-record says when the kernel made it change plans (start.h).
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "common/htab.h"
#include "sp-record/sys/clock.h"
#include "sp-record/unwind/goexe.h"
#include "sp-record/sys/launch.h"
#include "sp-record/start.h"
#include "sp-record/sys/sysctl.h"
#include "common/banned.h"

/* Waits for the launched command, whose start failed. */
static void
reap(struct rec_start *s)
{
	pid_t rc;
	int st;

	if (s->child <= 0 || s->reaped)
		return;
	do
		rc = waitpid(s->child, &st, 0);
	while (rc < 0 && errno == EINTR);
	if (rc == s->child) {
		s->reaped = true;
		s->status = st;
	}
}

/* The kernel's text, as a module, when kernel frames are recorded. */
static void
kernel_module(struct rec_start *s)
{
	if (s->ev->kernel_stacks)
		rec_spoolout_kernel_module(s->out, rec_tracking_mods(s->trk));
}

/*
 * Says what the kernel made us change that the user must act on.  (A
 * fall back from cycles to cpu-clock, which every VM without a PMU makes,
 * is said in the summary.)
 */
static void
announce(struct rec_start *s)
{
	if (s->ev->kernel_denied)
		warnx("kernel stacks are not permitted (kernel."
		      "perf_event_paranoid is %ld; run as root or grant "
		      "CAP_PERFMON): recording user stacks only",
		      rec_sysctl_perf_paranoid());
	s->stk->max_chain = s->ev->attr.sample_max_stack;
	s->stk->kernel = s->ev->kernel_stacks;
	rec_spoolout_events(s->out, s->ev);
}

/*
 * Says why the command could not be executed; returns the shell's status
 * for it (127 not found, 126 not executable).  A name without a slash
 * was searched in PATH, where ENOENT means no such command.
 */
int
rec_start_exec_failed(const char *cmd, int e)
{
	if (e == ENOENT && !strchr(cmd, '/'))
		warnx("'%s': command not found", cmd);
	else
		warnx("'%s': %s", cmd, strerror(e));
	return e == ENOENT ? 127 : 126;
}

int
rec_start_launch(struct rec_start *s, char **argv)
{
	struct rec_launch_child c;
	struct rec_proc *p;
	const char *msg;
	int e, rc;

	if ((rc = rec_launch_fork(&c, argv, s->cfg->spool_on_stdout)) < 0) {
		warnx("cannot start '%s': %s", argv[0], strerror(-rc));
		return 1;
	}
	s->child = c.pid;
	p = rec_tracking_track_process(s->trk, c.pid, true);
	/*
	 * Whatever the command, it may exec a Go program (env, time, sh -c
	 * do): the walk costs no measurable CPU on a C build (goexe.h).
	 */
	rec_events_user_chain(s->ev, true);
	rc = p ? rec_events_open_launch(s->ev, c.pid) : -ENOMEM;
	if (rc < 0) {
		msg = rec_events_errmsg(s->ev);
		warnx("%s", msg[0] ? msg : strerror(-rc));
		rec_launch_abort(&c);
		reap(s);
		return 1;
	}
	kernel_module(s);
	/* Events are in place: let the child execute the command. */
	if (rec_launch_start(&c) < 0)
		warn("cannot start '%s'", argv[0]);
	if ((e = rec_launch_exec_errno(&c)) != 0) {
		reap(s);
		return rec_start_exec_failed(argv[0], e);
	}
	/* Notices only once the command runs: not before its error. */
	announce(s);
	return rec_spoolout_error(s->out) ? 1 : 0;
}

/*
 * Whether process `pid`'s stacks need the kernel's frame-pointer walk
 * (goexe.h): it runs a Go program, or its children are followed, any of
 * which may exec one.
 */
static bool
may_run_go(const struct rec_start *s, int32_t pid)
{
	return s->cfg->follow || rec_goexe_pid_is_go(pid);
}

int
rec_start_attach(struct rec_start *s, int32_t *pids, size_t n)
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
		if (rec_proc_tab_get(rec_tracking_procs(s->trk), pids[i]))
			continue;
		rec_events_user_chain(s->ev, may_run_go(s, pids[i]));
		rc = rec_events_open_attach(s->ev, pids[i]);
		if (rc < 0) {
			warnx("%s", rec_events_errmsg(s->ev));
			return 1;
		}
		if (!rec_tracking_track_process(s->trk, pids[i], true))
			return 1;
		pids[k++] = pids[i];
	}
	announce(s);
	kernel_module(s);
	/*
	 * Enable first, then read the maps: a mapping made in between shows
	 * up twice (interning merges it) rather than not at all.
	 */
	rc = rec_events_enable(s->ev);
	if (rc < 0) {
		warnx("cannot enable the events: %s", strerror((int)-rc));
		return 1;
	}
	ts = rec_clock_now_ns();
	for (i = 0; i < k && !rec_spoolout_error(s->out); i++) {
		p = rec_proc_tab_get(rec_tracking_procs(s->trk), pids[i]);
		if (!p || rec_tracking_snapshot_maps(s->trk, p, ts) < 0 ||
		    rec_tracking_name_threads(s->trk, pids[i], ts) < 0)
			break;
	}
	if (!rec_spoolout_error(s->out))
		rec_spoolout_flush(s->out);
	return rec_spoolout_error(s->out) ? 1 : 0;
}

/* Launches the command of -a -- CMD: sampled as any other process. */
static int
launch_plain(struct rec_start *s, char **argv)
{
	struct rec_launch_child c;
	int e, rc;

	if ((rc = rec_launch_fork(&c, argv, s->cfg->spool_on_stdout)) < 0) {
		warnx("cannot start '%s': %s", argv[0], strerror(-rc));
		return 1;
	}
	s->child = c.pid;
	rec_tracking_hold_until_exec(s->trk, c.pid);
	if (rec_launch_start(&c) < 0)
		warn("cannot start '%s'", argv[0]);
	if ((e = rec_launch_exec_errno(&c)) != 0) {
		reap(s);
		return rec_start_exec_failed(argv[0], e);
	}
	return 0;
}

int
rec_start_system_wide(struct rec_start *s, char **argv)
{
	const char *msg;
	int rc;

	if (s->cfg->cpu_list &&
	    rec_events_select_cpus(s->ev, s->cfg->cpu_list) < 0) {
		warnx("%s", rec_events_errmsg(s->ev));
		return 1;
	}
	rec_events_user_chain(s->ev, true);
	rc = rec_events_open_cpus(s->ev);
	if (rc < 0) {
		msg = rec_events_errmsg(s->ev);
		warnx("%s", msg[0] ? msg : strerror(-rc));
		return 1;
	}
	announce(s);
	kernel_module(s);
	rc = rec_events_enable(s->ev);
	if (rc < 0) {
		warnx("cannot enable the events: %s", strerror(-rc));
		return 1;
	}
	if (argv && (rc = launch_plain(s, argv)) != 0)
		return rc;
	if (!rec_spoolout_error(s->out))
		rec_spoolout_flush(s->out);
	return rec_spoolout_error(s->out) ? 1 : 0;
}

/*
 * Says why thread `tid` could not be recorded (rc < 0): out of file
 * descriptors, each of the n threads needing one per CPU and event, is
 * not "no such thread".
 */
static void
thread_failed(struct rec_start *s, int32_t tid, int rc, size_t n)
{
	struct rlimit rl;

	if (rc == -EMFILE || rc == -ENFILE) {
		if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
			rl.rlim_cur = 0;
		warnx("too many open files%s: %zu threads need %zu "
		      "descriptors (one per CPU and event); raise ulimit -n "
		      "(now %llu)",
		      rc == -ENFILE ? " in the system" : "", n,
		      n * (size_t)s->ev->ncpus * s->ev->opts.nevents,
		      (unsigned long long)rl.rlim_cur);
	} else if (rc == -ENOENT || rc == -ESRCH) {
		warnx("thread '%d': no such thread", (int)tid);
	} else if (rec_events_errmsg(s->ev)[0]) {
		warnx("%s", rec_events_errmsg(s->ev));
	} else {
		warnx("thread '%d': %s", (int)tid, strerror(-rc));
	}
}

/*
 * Reads the maps and names the threads of each process of tids[] once,
 * however many of its threads were named.
 */
static void
snapshot_processes(struct rec_start *s, const int32_t *tids, size_t n)
{
	struct sp_htab *done = sp_htab_new();
	struct rec_proc *p;
	bool fresh;
	int32_t pid;
	size_t i;

	if (!done) {
		rec_spoolout_wr(s->out, -ENOMEM);
		return;
	}
	for (i = 0; i < n && !rec_spoolout_error(s->out); i++) {
		if (rec_proc_tgid(tids[i], &pid) < 0 ||
		    !(p = rec_proc_tab_get(rec_tracking_procs(s->trk), pid)))
			continue;
		if (!sp_htab_slot(done, &pid, sizeof(pid), 1, &fresh)) {
			rec_spoolout_wr(s->out, -ENOMEM);
			break;
		}
		if (fresh && (rec_tracking_snapshot_maps(
				  s->trk, p, rec_clock_now_ns()) < 0 ||
			      rec_tracking_name_threads(
				  s->trk, pid, rec_clock_now_ns()) < 0))
			break;
	}
	sp_htab_free(done);
}

int
rec_start_threads(struct rec_start *s, const int32_t *tids, size_t n)
{
	int32_t pid;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		rc = rec_proc_tgid(tids[i], &pid);
		if (rc == 0) {
			rec_events_user_chain(s->ev, may_run_go(s, pid));
			rc = rec_events_open_thread(s->ev, tids[i]);
		}
		if (rc < 0) {
			thread_failed(s, tids[i], rc, n);
			return 1;
		}
		if (!rec_proc_tab_get(rec_tracking_procs(s->trk), pid) &&
		    !rec_tracking_track_process(s->trk, pid, true))
			return 1;
	}
	announce(s);
	kernel_module(s);
	rc = rec_events_enable(s->ev);
	if (rc < 0) {
		warnx("cannot enable the events: %s", strerror(-rc));
		return 1;
	}
	snapshot_processes(s, tids, n);
	if (!rec_spoolout_error(s->out))
		rec_spoolout_flush(s->out);
	return rec_spoolout_error(s->out) ? 1 : 0;
}
