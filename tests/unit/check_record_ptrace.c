/*
 * check_record_ptrace.c: ptrace sampling (sp-record/ptrace.c) of
 * tests/programs/unw_chains.c, unwound with the DWARF unwinder; and that
 * the target keeps running untraced after the sampler detaches, is
 * killed, or is told to stop with SIGTERM.
 *
 * Without ptrace (e.g. a container without CAP_SYS_PTRACE) the tests are
 * skipped (exit 77), unless CI=true.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/modtab.h"
#include "common/spool.h"
#include "sp-record/sys/proc.h"
#include "sp-record/ptrace/ptrace.h"
#include "sp-record/unwind/unwind.h"
#include "tests/unit/skip.h"

#define MAX_SAMPLES 4096
#define STACK 32768

static char dir[64], exe[128];

static void
build(void)
{
	char cmd[1024];
	const char *top = getenv("SP_TOP") ? getenv("SP_TOP") : ".";

	snprintf(dir, sizeof(dir), "/tmp/sp-ptr.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(exe, sizeof(exe), "%s/unw_chains", dir);
	snprintf(cmd, sizeof(cmd),
		 "cc -O2 -fomit-frame-pointer -fPIC -shared -o %s/libunw_lib.so"
		 " %s/tests/programs/unw_lib.c && cc -O2 -fomit-frame-pointer"
		 " -pthread -o %s %s/tests/programs/unw_chains.c -L%s"
		 " -lunw_lib -Wl,-rpath,%s",
		 dir, top, exe, top, dir, dir);
	ck_assert_msg(system(cmd) == 0, "cannot build unw_chains");
}

static void
cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

/* Says why ptrace cannot be tested here; fails instead under CI=true. */
static void
skip(int err)
{
	const char *ci = getenv("CI");

	ck_assert_msg(!ci || strcmp(ci, "true") != 0,
		      "ptrace refused under CI=true: %s", strerror(-err));
	unit_skip("ptrace: %s", strerror(-err));
}

/* Interns the executable mappings of `pid` from /proc/PID/maps. */
static void
load_maps(struct sp_modtab *t, pid_t pid)
{
	char path[64], line[4600], perm[8], file[4096];
	uint64_t lo, hi, off, ino;
	struct sp_module m;
	uint32_t id;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f)) {
		file[0] = 0;
		if (sscanf(line,
			   "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
			   " %*s %" SCNu64 " %4095s",
			   &lo, &hi, perm, &off, &ino, file) < 5 ||
		    perm[2] != 'x' || !file[0])
			continue;
		memset(&m, 0, sizeof(m));
		m.pid = pid;
		m.start = lo;
		m.end = hi;
		m.file_offset = off;
		m.inode = ino;
		m.path = file;
		m.path_len = strlen(file);
		ck_assert_int_eq(sp_modtab_intern(t, &m, NULL, &id), 0);
	}
	fclose(f);
}

/* The third field of /proc/PID/status line `key`, e.g. State or TracerPid. */
static char
status_of(pid_t pid, const char *key, int *num)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	char state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			sscanf(line + klen + 1, " %c", &state);
			if (num)
				*num = atoi(line + klen + 1);
		}
	fclose(f);
	return state;
}

static uint64_t
cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 2,
		       "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
		       "%lu %lu",
		       &ut, &st);
	fclose(f);
	return ut + st;
}

/* The target must be untraced, not stopped, and still using CPU. */
static void
check_untraced_and_running(pid_t pid)
{
	struct timespec nap = { 0, 300 * 1000 * 1000 };
	int tracer = -1;
	uint64_t before;
	char state;

	state = status_of(pid, "State", NULL);
	status_of(pid, "TracerPid", &tracer);
	ck_assert_int_eq(tracer, 0);
	ck_assert_msg(state == 'R' || state == 'S', "state %c", state);
	before = cpu_ticks(pid);
	nanosleep(&nap, NULL);
	ck_assert_uint_gt(cpu_ticks(pid), before);
}

/* ------------------------------------------------------------ sampling */

struct capture {
	struct sp_modtab *mods;
	pid_t pid;
	size_t n, execs;
	size_t want;  /* stop the run after this many samples (0: never) */
	long threads; /* count samples once the target has this many */
	uint64_t regs[MAX_SAMPLES][24];
	uint8_t *stacks[MAX_SAMPLES];
	size_t lens[MAX_SAMPLES];
};

/* Whether `pid` has at least `n` threads now. */
static bool
has_threads(pid_t pid, long n)
{
	int32_t *tids;
	long have = rec_proc_tasks(pid, &tids);

	if (have > 0)
		free(tids);
	return have >= n;
}

static int
on_event(const struct rec_ptrace_event *ev, void *arg)
{
	struct capture *c = arg;
	size_t nregs = (size_t)__builtin_popcountll(ev->regs_mask);

	if (ev->kind == REC_PTRACER_EXEC)
		c->execs++;
	if (ev->kind != REC_PTRACER_SAMPLE || c->n == MAX_SAMPLES)
		return 0;
	if (c->threads && !has_threads(c->pid, c->threads))
		return 0;
	c->threads = 0; /* all started: no need to look again */
	ck_assert_uint_eq(ev->regs_mask, REC_UNWIND_REGS_MASK);
	ck_assert_uint_gt(ev->pause_ns, 0);
	memcpy(c->regs[c->n], ev->regs, nregs * sizeof(uint64_t));
	c->stacks[c->n] = malloc(ev->stack_len + 1);
	ck_assert_ptr_nonnull(c->stacks[c->n]);
	memcpy(c->stacks[c->n], ev->stack, ev->stack_len);
	c->lens[c->n++] = ev->stack_len;
	return c->want && c->n >= c->want;
}

/* Unwinds every captured sample; returns how many reached a root. */
static size_t
unwind_all(struct capture *c)
{
	struct rec_unwind *u = rec_unwind_new(NULL);
	static uint64_t pcs[REC_UNWIND_MAX_FRAMES];
	size_t i, n, ok = 0;
	bool trunc;

	ck_assert_ptr_nonnull(u);
	for (i = 0; i < c->n; i++) {
		n = rec_unwind_unwind(u, c->mods, c->pid, c->regs[i],
				      REC_UNWIND_REGS_MASK, c->stacks[i],
				      c->lens[i], pcs, REC_UNWIND_MAX_FRAMES,
				      &trunc);
		/* rooted: ends in _start or a thread's clone3 frame */
		if (n > 2 && !trunc)
			ok++;
		free(c->stacks[i]);
	}
	rec_unwind_free(u);
	return ok;
}

/*
 * Waits until `pid` has `n` threads, however loaded the machine, not for
 * a fixed time: unw_chains with a second thread has run main, so the
 * loader has mapped its libraries.  (Its other threads wait for the
 * tracer, which stops each new thread until it runs.)  Ten seconds at
 * most.
 */
static void
wait_threads(pid_t pid, long n)
{
	int32_t *tids;
	long have = 0;
	int i;

	for (i = 0; i < 1000 && have < n; i++) {
		have = rec_proc_tasks(pid, &tids);
		if (have > 0)
			free(tids);
		if (have < n)
			usleep(10 * 1000);
	}
	ck_assert_int_ge(have, n);
}

START_TEST(test_spawn_sample_detach)
{
	char *argv[] = { exe, "30", NULL };
	struct rec_ptrace *t = rec_ptrace_new(200, STACK);
	struct capture *c = calloc(1, sizeof(*c));
	struct rec_ptrace_summary s;
	size_t ok;
	int r, st;

	build();
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(c);
	if ((r = rec_ptrace_spawn(t, argv, false)) < 0) {
		skip(r);
		goto out;
	}
	c->pid = rec_ptrace_pid(t);
	c->mods = sp_modtab_new();
	wait_threads(c->pid, 2); /* main runs: its libraries are mapped */
	load_maps(c->mods, c->pid);
	/*
	 * 150 samples once all four threads run (a loaded machine is slow to
	 * start them, and a thread being born has no root to unwind to),
	 * however long that takes (a minute at most).
	 */
	c->threads = 4;
	c->want = 150;
	ck_assert_int_eq(rec_ptrace_sample(t, 60, NULL, on_event, c), 0);
	rec_ptrace_summary(t, &s);
	printf("ptrace: %" PRIu64 " samples, pause median %" PRIu64
	       " us, p99 %" PRIu64 " us\n",
	       s.samples, s.pause_median_ns / 1000, s.pause_p99_ns / 1000);
	rec_ptrace_detach(t);
	check_untraced_and_running(c->pid);
	ok = unwind_all(c);
	printf("ptrace: %zu of %zu samples unwound to a root\n", ok, c->n);
	ck_assert_uint_ge(c->n, 100);
	ck_assert_uint_ge(ok * 100, c->n * 95);
	ck_assert_uint_eq(c->execs, 0);
	kill(c->pid, SIGKILL);
	waitpid(c->pid, &st, 0);
	sp_modtab_free(c->mods);
out:
	rec_ptrace_free(t);
	free(c);
	cleanup();
}
END_TEST

static volatile sig_atomic_t stop_flag;

static void
on_term(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/*
 * The sampler process of the kill tests: starts the target itself (so
 * that Yama's ptrace_scope 1 lets it attach, as to any descendant), then
 * attaches and samples until told to stop.  Reports the target's pid and
 * the attach result on `ready`.
 */
static void
sampler(int ready)
{
	char *argv[] = { exe, "30", NULL };
	struct rec_ptrace *t = rec_ptrace_new(1000, STACK);
	struct sigaction sa;
	int r[2];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	if ((r[0] = fork()) == 0) {
		execv(exe, argv);
		_exit(127);
	}
	usleep(100 * 1000);
	r[1] = t ? rec_ptrace_attach(t, r[0]) : -ENOMEM;
	if (write(ready, r, sizeof(r)) != sizeof(r))
		_exit(3);
	if (r[1] < 0)
		_exit(2);
	rec_ptrace_sample(t, 0, &stop_flag, NULL, NULL);
	rec_ptrace_free(t);
	_exit(0);
}

static void
kill_sampler_test(int sig)
{
	int p[2], r[2] = { 0, 0 }, st;
	pid_t smp;

	build();
	/* the target, orphaned when the sampler dies, becomes our child */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	ck_assert_int_eq(pipe(p), 0);
	if ((smp = fork()) == 0)
		sampler(p[1]);
	ck_assert_int_eq(read(p[0], r, sizeof(r)), sizeof(r));
	if (r[1] < 0) {
		skip(r[1]);
	} else {
		usleep(300 * 1000);
		kill(smp, sig);
		ck_assert_int_eq(waitpid(smp, &st, 0), smp);
		if (sig == SIGTERM)
			ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		check_untraced_and_running(r[0]);
	}
	kill(r[0], SIGKILL);
	waitpid(r[0], &st, 0);
	waitpid(smp, &st, 0);
	close(p[0]);
	close(p[1]);
	cleanup();
}

START_TEST(test_sampler_sigterm)
{
	kill_sampler_test(SIGTERM);
}
END_TEST

START_TEST(test_sampler_sigkill)
{
	kill_sampler_test(SIGKILL);
}
END_TEST

/* Builds tests/programs/unw_busy.c as `exe` in a new `dir`. */
static void
build_busy(void)
{
	const char *top = getenv("SP_TOP") ? getenv("SP_TOP") : ".";
	char cmd[512];

	snprintf(dir, sizeof(dir), "/tmp/sp-ptr.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(exe, sizeof(exe), "%s/unw_busy", dir);
	snprintf(cmd, sizeof(cmd),
		 "cc -O2 -fomit-frame-pointer -pthread -o %s"
		 " %s/tests/programs/unw_busy.c",
		 exe, top);
	ck_assert_int_eq(system(cmd), 0);
}

struct jobctl {
	pid_t target;
	uint64_t stop_at; /* CLOCK_MONOTONIC ns */
	bool stopped, continued;
	size_t during; /* samples while it was stopped */
	char state;    /* its state while stopped */
};

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Stops the target with SIGSTOP, looks at it, continues it with SIGCONT. */
static int
on_jobctl_event(const struct rec_ptrace_event *ev, void *arg)
{
	struct jobctl *j = arg;
	uint64_t now = mono_ns();

	if (ev->kind == REC_PTRACER_SAMPLE && j->stopped && !j->continued &&
	    now > j->stop_at + 50000000u)
		j->during++;
	if (!j->stopped && now >= j->stop_at) {
		kill(j->target, SIGSTOP);
		j->stopped = true;
	}
	return 0;
}

/*
 * Job control goes through: a SIGSTOP sent to a sampled process stops it
 * (and it is not sampled meanwhile), SIGCONT resumes it, and it is left
 * running afterwards.  The sampler runs in slices here so the test can
 * act between them.
 */
START_TEST(test_job_control)
{
	char *argv[] = { exe, "30", "2", NULL };
	struct rec_ptrace *t = rec_ptrace_new(200, 4096);
	struct jobctl j;
	int r, st, i;

	build_busy();
	if ((r = rec_ptrace_spawn(t, argv, false)) < 0) {
		skip(r);
		rec_ptrace_free(t);
		cleanup();
		return;
	}
	memset(&j, 0, sizeof(j));
	j.target = rec_ptrace_pid(t);
	j.stop_at = mono_ns() + 200000000u;
	for (i = 0; i < 20; i++) { /* 1 s in slices of 50 ms */
		ck_assert_int_eq(
		    rec_ptrace_sample(t, 0.05, NULL, on_jobctl_event, &j), 0);
		if (j.stopped && !j.continued &&
		    mono_ns() > j.stop_at + 300000000u) {
			j.state = status_of(j.target, "State", NULL);
			kill(j.target, SIGCONT);
			j.continued = true;
		}
	}
	ck_assert(j.continued);
	ck_assert_msg(j.state == 't' || j.state == 'T', "state %c", j.state);
	ck_assert_uint_eq(j.during, 0);
	rec_ptrace_detach(t);
	check_untraced_and_running(j.target);
	kill(j.target, SIGKILL);
	waitpid(j.target, &st, 0);
	rec_ptrace_free(t);
	cleanup();
}
END_TEST

START_TEST(test_spawn_missing_program)
{
	char *argv[] = { "/nonexistent/program", NULL };
	struct rec_ptrace *t = rec_ptrace_new(100, 4096);
	int r;

	ck_assert_ptr_nonnull(t);
	r = rec_ptrace_spawn(t, argv, false);
	ck_assert_msg(r == -ENOENT || r == -EPERM, "spawn gave %d", r);
	rec_ptrace_free(t);
	ck_assert_ptr_null(rec_ptrace_new(0, 4096));
	ck_assert_ptr_null(rec_ptrace_new(100, 65536));
	ck_assert_ptr_null(rec_ptrace_new(100, 12));
}
END_TEST

static Suite *
ptrace_suite(void)
{
	Suite *s = suite_create("record_ptrace");
	TCase *tc = tcase_create("ptrace");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_spawn_sample_detach);
	tcase_add_test(tc, test_sampler_sigterm);
	tcase_add_test(tc, test_sampler_sigkill);
	tcase_add_test(tc, test_job_control);
	tcase_add_test(tc, test_spawn_missing_program);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ptrace_suite());

	return unit_run(sr);
}
