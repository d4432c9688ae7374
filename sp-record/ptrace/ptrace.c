/*
 * ptrace.c: sampling by PTRACE_INTERRUPT (ptrace.h).
 *
 * Each thread is in one of three states for us: running, stopped by us
 * (only inside a tick, for as long as the copy takes), or in a job-control
 * stop that we keep with PTRACE_LISTEN.  Every ptrace-stop we did not ask
 * for (a signal, a clone, an exec, the late report of an interrupt that
 * another stop overtook) is handled and resumed as soon as it is seen:
 * between ticks the sampler waits for SIGCHLD rather than sleeping.
 *
 * At about 710 lines it is longer than the other files: it is one state
 * machine over one table of threads, and each section below (threads,
 * capture, stops, attach, ticks, detach) moves threads between those
 * states.  Splitting it would mean a private header sharing struct
 * rec_ptrace and its threads among several files, the kind of struct
 * the recorder's parts no longer share.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/htab.h"
#include "sp-record/ptrace/fpwalk.h"
#include "sp-record/sys/launch.h"
#include "sp-record/ptrace/ptrace.h"
#include "common/banned.h"

#define OPTIONS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC)
#define MAX_PAUSES (1u << 20)
#define PAGE 4096u
#define NREGS 20
#define MAX_KEPT_FDS 4096 /* /proc stat files kept open, at most */

struct thread {
	pid_t tid;
	bool listening; /* in a job-control stop we keep */
	bool awaiting;  /* interrupted this tick, not yet sampled */
	int stat_fd;    /* its /proc stat file kept open, or -1 */
	uint64_t t0;    /* when it was interrupted */
};

struct rec_ptrace {
	unsigned freq;
	size_t stack_size;
	pid_t pid;
	bool exited;
	bool fn_stop; /* the callback asked to stop */
	struct thread *threads;
	size_t nthreads, athreads;
	struct sp_htab *index; /* tid -> its place in threads + 1 (0: none) */
	size_t kept_fds;       /* threads with stat_fd open */
	size_t max_kept;       /* half the descriptor limit, or MAX_KEPT_FDS */
	size_t awaiting;       /* threads with awaiting set */
	uint8_t *stack;
	uint64_t regs[NREGS];
	bool fp_walk;                       /* fpwalk.h: Go programs */
	uint64_t chain[REC_FPWALK_MAX + 2]; /* its walk, kernel's form */
	uint64_t *pauses; /* the first MAX_PAUSES pauses, in ns */
	size_t npauses;
	uint64_t samples, stack_errors, max_pause;
	rec_ptrace_fn fn;
	void *arg;
	void (*stopped_fn)(pid_t pid, pid_t tid, void *arg);
	void *stopped_arg;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct rec_ptrace *
rec_ptrace_new(unsigned freq_hz, size_t stack_size)
{
	struct rec_ptrace *t;
	struct rlimit rl;

	if (freq_hz < 1 || freq_hz > REC_PTRACE_MAX_HZ || stack_size % 8 ||
	    stack_size > 65528) {
		errno = EINVAL;
		return NULL;
	}
	if (!(t = calloc(1, sizeof(*t))))
		return NULL;
	t->freq = freq_hz;
	t->stack_size = stack_size;
	t->max_kept = MAX_KEPT_FDS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur / 2 < MAX_KEPT_FDS)
		t->max_kept = (size_t)(rl.rlim_cur / 2);
	t->stack = malloc(stack_size ? stack_size : 8);
	t->pauses = malloc(1024 * sizeof(*t->pauses));
	t->index = sp_htab_new();
	if (!t->stack || !t->pauses || !t->index) {
		rec_ptrace_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

pid_t
rec_ptrace_pid(const struct rec_ptrace *t)
{
	return t->pid;
}

/* ------------------------------------------------------------ threads */

/*
 * Threads are found through a hash table of tids, so each stop costs the
 * same however many threads the target has.
 */
static struct thread *
thread_find(struct rec_ptrace *t, pid_t tid)
{
	uint64_t v;

	if (!sp_htab_get(t->index, &tid, sizeof(tid), &v) || v == 0)
		return NULL;
	return &t->threads[v - 1];
}

static struct thread *
thread_add(struct rec_ptrace *t, pid_t tid)
{
	struct thread *th = thread_find(t, tid);

	if (th)
		return th;
	if (SP_GROW(t->threads, t->athreads, t->nthreads + 1))
		return NULL;
	if (sp_htab_put(t->index, &tid, sizeof(tid), t->nthreads + 1) < 0)
		return NULL;
	th = &t->threads[t->nthreads++];
	th->tid = tid;
	th->listening = false;
	th->awaiting = false;
	th->stat_fd = -1;
	return th;
}

static void
settle(struct rec_ptrace *t, struct thread *th)
{
	if (th && th->awaiting) {
		th->awaiting = false;
		t->awaiting--;
	}
}

static void
thread_remove(struct rec_ptrace *t, pid_t tid)
{
	struct thread *th = thread_find(t, tid);
	size_t i;

	if (!th)
		return;
	settle(t, th);
	if (th->stat_fd >= 0) {
		close(th->stat_fd);
		t->kept_fds--;
	}
	sp_htab_put(t->index, &tid, sizeof(tid), 0);
	*th = t->threads[--t->nthreads];
	i = (size_t)(th - t->threads);
	if (i < t->nthreads)
		sp_htab_put(t->index, &th->tid, sizeof(th->tid), i + 1);
}

/* Forgets every thread (their ids stay in the index as "none"). */
static void
threads_clear(struct rec_ptrace *t)
{
	while (t->nthreads > 0)
		thread_remove(t, t->threads[t->nthreads - 1].tid);
	t->awaiting = 0;
}

static int
emit(struct rec_ptrace *t, struct rec_ptrace_event *ev)
{
	if (t->fn && !t->fn_stop && t->fn(ev, t->arg) != 0)
		t->fn_stop = true;
	return 0;
}

static void
emit_simple(struct rec_ptrace *t, enum rec_ptrace_kind kind, pid_t tid,
	    int status)
{
	struct rec_ptrace_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.pid = t->pid;
	ev.tid = tid;
	ev.timestamp_ns = now_ns();
	ev.status = status;
	emit(t, &ev);
}

/* ------------------------------------------------------------ capture */

/* Copies the registers in perf order (mask REC_PTRACE_REGS_MASK). */
static int
read_regs(struct rec_ptrace *t, pid_t tid)
{
	struct user_regs_struct r;
	uint64_t *o = t->regs;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &r) < 0)
		return -errno;
	*o++ = r.rax;
	*o++ = r.rbx;
	*o++ = r.rcx;
	*o++ = r.rdx;
	*o++ = r.rsi;
	*o++ = r.rdi;
	*o++ = r.rbp;
	*o++ = r.rsp;
	*o++ = r.rip;
	*o++ = r.eflags;
	*o++ = r.cs;
	*o++ = r.ss;
	*o++ = r.r8;
	*o++ = r.r9;
	*o++ = r.r10;
	*o++ = r.r11;
	*o++ = r.r12;
	*o++ = r.r13;
	*o++ = r.r14;
	*o++ = r.r15;
	return 0;
}

/*
 * Copies up to stack_size bytes from `sp`.  process_vm_readv stops at the
 * first iovec it cannot read, so page-sized pieces make a read past the
 * top of the stack return everything below it.
 */
static size_t
read_stack(struct rec_ptrace *t, pid_t tid, uint64_t sp)
{
	struct iovec local[65536 / PAGE + 2], remote[65536 / PAGE + 2];
	size_t done = 0, chunk;
	int n = 0;
	ssize_t got;

	while (done < t->stack_size) {
		chunk = PAGE - ((sp + done) & (PAGE - 1));
		if (chunk > t->stack_size - done)
			chunk = t->stack_size - done;
		local[n].iov_base = t->stack + done;
		local[n].iov_len = chunk;
		remote[n].iov_base = (void *)(uintptr_t)(sp + done);
		remote[n].iov_len = chunk;
		n++;
		done += chunk;
	}
	got = n ? process_vm_readv(tid, local, (unsigned long)n, remote,
				   (unsigned long)n, 0)
		: 0;
	if (got <= 0) {
		t->stack_errors++;
		return 0;
	}
	return (size_t)got;
}

static void
note_pause(struct rec_ptrace *t, uint64_t ns)
{
	uint64_t *grown;

	if (ns > t->max_pause)
		t->max_pause = ns;
	if (t->npauses >= MAX_PAUSES)
		return;
	if (t->npauses >= 1024 && !(t->npauses & (t->npauses - 1))) {
		grown = realloc(t->pauses, 2 * t->npauses * sizeof(*grown));
		if (!grown)
			return;
		t->pauses = grown;
	}
	t->pauses[t->npauses++] = ns;
}

/*
 * Takes the sample of a stopped thread, resumes it with `sig`, then hands
 * the copy to the callback (after resuming: the unwinding is not paused
 * time).
 */
static void
sample_and_resume(struct rec_ptrace *t, pid_t tid, int sig, uint64_t t0)
{
	struct rec_ptrace_event ev;
	size_t len = 0, nchain = 0;
	bool ok = read_regs(t, tid) == 0;

	if (ok)
		len = read_stack(t, tid, t->regs[7]);
	/* ip, bp and sp are regs 8, 6 and 7 in perf's order */
	if (ok && t->fp_walk)
		nchain = rec_fpwalk(tid, t->regs[8], t->regs[6], t->regs[7],
				    t->stack, len, t->chain,
				    sizeof(t->chain) / sizeof(t->chain[0]));
	if (ok && t->stopped_fn)
		t->stopped_fn(t->pid, tid, t->stopped_arg);
	ptrace(PTRACE_CONT, tid, NULL, (void *)(uintptr_t)sig);
	if (!ok)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.kind = REC_PTRACER_SAMPLE;
	ev.pid = t->pid;
	ev.tid = tid;
	ev.timestamp_ns = now_ns();
	ev.pause_ns = ev.timestamp_ns - t0;
	ev.regs = t->regs;
	ev.regs_mask = REC_PTRACE_REGS_MASK;
	ev.stack = t->stack;
	ev.stack_len = len;
	ev.chain = nchain ? t->chain : NULL;
	ev.nchain = nchain;
	note_pause(t, ev.pause_ns);
	t->samples++;
	emit(t, &ev);
}

/* ------------------------------------------------------------ events */

static bool
is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

static void
on_exit_status(struct rec_ptrace *t, pid_t tid, int st)
{
	thread_remove(t, tid);
	if (tid == t->pid) {
		t->exited = true;
		emit_simple(t, REC_PTRACER_EXIT, tid, st);
	} else {
		emit_simple(t, REC_PTRACER_THREAD_EXIT, tid, st);
	}
}

/* After an exec only the thread group leader is left, under the pid. */
static void
on_exec(struct rec_ptrace *t, pid_t tid)
{
	threads_clear(t);
	thread_add(t, t->pid);
	emit_simple(t, REC_PTRACER_EXEC, t->pid, 0);
	ptrace(PTRACE_CONT, tid, NULL, NULL);
}

/*
 * Handles one wait status of `tid`.  A thread we interrupted this tick is
 * sampled at its first stop where its user registers are meaningful (our
 * interrupt, or a signal or clone stop that came first).
 */
static void
on_status(struct rec_ptrace *t, pid_t tid, int st)
{
	struct thread *th;
	unsigned long msg;
	int ev = st >> 16, sig = WSTOPSIG(st);
	bool want;
	uint64_t t0;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		on_exit_status(t, tid, st);
		return;
	}
	if (!WIFSTOPPED(st) || !(th = thread_add(t, tid)))
		return;
	want = th->awaiting;
	t0 = th->t0;
	settle(t, th);
	if (ev == PTRACE_EVENT_EXEC) {
		on_exec(t, tid);
		return;
	}
	if (ev == PTRACE_EVENT_STOP && is_stop_signal(sig)) {
		th->listening = true;
		ptrace(PTRACE_LISTEN, tid, NULL, NULL);
		return;
	}
	th->listening = false;
	if (ev == PTRACE_EVENT_CLONE &&
	    ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) == 0)
		thread_add(t, (pid_t)msg); /* may move th */
	/* a signal-delivery-stop passes the signal on */
	sig = ev == 0 ? sig : 0;
	if (want)
		sample_and_resume(t, tid, sig, t0);
	else
		ptrace(PTRACE_CONT, tid, NULL, (void *)(uintptr_t)sig);
}

/* Handles every pending status without blocking. */
static void
reap(struct rec_ptrace *t)
{
	pid_t tid;
	int st;

	while ((tid = waitpid(-1, &st, __WALL | WNOHANG)) > 0)
		on_status(t, tid, st);
}

/* ------------------------------------------------------------ attach */

static int
seize(struct rec_ptrace *t, pid_t tid)
{
	if (ptrace(PTRACE_SEIZE, tid, NULL, (void *)(uintptr_t)OPTIONS) < 0)
		return -errno;
	return thread_add(t, tid) ? 0 : -ENOMEM;
}

/* Seizes each thread in /proc/PID/task not yet seized; returns how many. */
static int
seize_tasks(struct rec_ptrace *t, pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	pid_t tid;
	int added = 0, r;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(dir = opendir(path)))
		return -errno;
	while ((d = readdir(dir))) {
		tid = (pid_t)atoi(d->d_name);
		if (tid <= 0 || thread_find(t, tid))
			continue;
		r = seize(t, tid);
		if (r == -ESRCH)
			continue;
		if (r < 0) {
			closedir(dir);
			return r;
		}
		added++;
	}
	closedir(dir);
	return added;
}

int
rec_ptrace_attach(struct rec_ptrace *t, pid_t pid)
{
	int r;

	t->pid = pid;
	/* again until no thread appeared: one may be cloning meanwhile */
	while ((r = seize_tasks(t, pid)) > 0)
		;
	if (r < 0 || t->nthreads == 0) {
		rec_ptrace_detach(t);
		t->pid = 0;
		return r < 0 ? r : -ESRCH;
	}
	return 0;
}

int
rec_ptrace_spawn(struct rec_ptrace *t, char *const argv[],
		 bool stdout_to_stderr)
{
	struct rec_launch_child c;
	int st, err;

	if ((err = rec_launch_fork(&c, argv, stdout_to_stderr)) < 0)
		return err;
	t->pid = c.pid;
	if ((err = seize(t, c.pid)) == 0)
		err = rec_launch_start(&c);
	if (err < 0) {
		rec_launch_abort(&c);
		waitpid(c.pid, &st, __WALL);
		return err;
	}
	/* the exec report, or the exit of a failed exec */
	while (waitpid(c.pid, &st, __WALL) == c.pid) {
		on_status(t, c.pid, st);
		if (!WIFSTOPPED(st) || st >> 16 == PTRACE_EVENT_EXEC)
			break;
	}
	/* past the exec stop, the pipe is closed: EOF, or the errno */
	err = rec_launch_exec_errno(&c);
	if (!t->exited)
		return 0;
	return err ? -err : -ECHILD;
}

/* ------------------------------------------------------------ sampling */

/*
 * Whether thread `th` is running or runnable (state R in its stat).  The
 * stat files of the first threads (up to half the descriptor limit, at
 * most MAX_KEPT_FDS) stay open between ticks: one pread per thread and
 * tick, not an open, a read and a close.
 */
static bool
is_running(struct rec_ptrace *t, struct thread *th)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd = th->stat_fd;

	if (fd < 0) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat",
			 (int)t->pid, (int)th->tid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return false;
		if (t->kept_fds < t->max_kept) {
			th->stat_fd = fd;
			t->kept_fds++;
		}
	}
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (th->stat_fd < 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'R';
}

/*
 * Interrupts every running thread at once, then samples and resumes each
 * as soon as it stops, so the stops of different threads overlap.
 */
static void
tick(struct rec_ptrace *t)
{
	struct thread *th;
	pid_t tid;
	size_t i;
	int st;

	for (i = 0; i < t->nthreads; i++) {
		th = &t->threads[i];
		if (th->listening || th->awaiting || !is_running(t, th))
			continue;
		th->t0 = now_ns();
		if (ptrace(PTRACE_INTERRUPT, th->tid, NULL, NULL) == 0) {
			th->awaiting = true;
			t->awaiting++;
		}
	}
	while (t->awaiting > 0) {
		if ((tid = waitpid(-1, &st, __WALL)) < 0)
			break; /* EINTR: a stop request; detach cleans up */
		on_status(t, tid, st);
	}
}

/*
 * Sleeps until `deadline` (CLOCK_MONOTONIC ns) or a tracee stop (SIGCHLD,
 * blocked by the caller), handling stops as they come.
 */
static void
wait_until(struct rec_ptrace *t, uint64_t deadline, volatile sig_atomic_t *stop)
{
	struct timespec ts;
	sigset_t chld;
	uint64_t now;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		reap(t);
		now = now_ns();
		if (now >= deadline || t->exited || t->fn_stop ||
		    (stop && *stop))
			return;
		ts.tv_sec = (time_t)((deadline - now) / 1000000000u);
		ts.tv_nsec = (long)((deadline - now) % 1000000000u);
		if (sigtimedwait(&chld, NULL, &ts) < 0 && errno == EINTR)
			return;
	}
}

int
rec_ptrace_sample(struct rec_ptrace *t, double seconds,
		  volatile sig_atomic_t *stop, rec_ptrace_fn fn, void *arg)
{
	uint64_t period = 1000000000u / t->freq, next = now_ns(), end;
	sigset_t chld, old;

	if (!t->pid)
		return -ESRCH;
	end = seconds > 0 ? next + (uint64_t)(seconds * 1e9) : UINT64_MAX;
	t->fn = fn;
	t->arg = arg;
	t->fn_stop = false;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old);
	while (!t->exited && !t->fn_stop && !(stop && *stop) &&
	       now_ns() < end) {
		tick(t);
		next += period;
		if (next < now_ns())
			next = now_ns();
		wait_until(t, next < end ? next : end, stop);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	t->fn = NULL;
	return 0;
}

void
rec_ptrace_on_stopped(struct rec_ptrace *t,
		      void (*fn)(pid_t pid, pid_t tid, void *arg), void *arg)
{
	t->stopped_fn = fn;
	t->stopped_arg = arg;
}

void
rec_ptrace_set_fpwalk(struct rec_ptrace *t, bool on)
{
	t->fp_walk = on;
}

/* ------------------------------------------------------------ detach */

/*
 * Stops one thread and detaches it, passing on a signal it was about to
 * receive.  PTRACE_DETACH needs a ptrace-stop, which a thread kept in a
 * job-control stop by PTRACE_LISTEN is not: the interrupt makes it one,
 * and the detached thread stays in its job-control stop.
 */
static void
detach_thread(struct rec_ptrace *t, pid_t tid)
{
	unsigned long msg;
	int st, ev;
	pid_t rc;

	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0) {
		thread_remove(t, tid);
		return;
	}
	for (;;) {
		/* A signal (the end of -d) must not cut a detach short. */
		while ((rc = waitpid(tid, &st, __WALL)) < 0 && errno == EINTR)
			;
		if (rc != tid || !WIFSTOPPED(st))
			break;
		ev = st >> 16;
		if (ev == PTRACE_EVENT_CLONE &&
		    ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) == 0)
			thread_add(t, (pid_t)msg);
		if (ptrace(PTRACE_DETACH, tid, NULL,
			   (void *)(uintptr_t)(ev == 0 ? WSTOPSIG(st) : 0)) ==
		    0)
			break;
	}
	thread_remove(t, tid);
}

void
rec_ptrace_detach(struct rec_ptrace *t)
{
	sigset_t chld, old;

	if (!t)
		return;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, &old);
	while (t->nthreads > 0)
		detach_thread(t, t->threads[t->nthreads - 1].tid);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void
rec_ptrace_summary(const struct rec_ptrace *t, struct rec_ptrace_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->samples = t->samples;
	s->stack_read_errors = t->stack_errors;
	s->pause_max_ns = t->max_pause;
	if (!t->npauses)
		return;
	/* sorting in place only reorders samples of a distribution */
	qsort(t->pauses, t->npauses, sizeof(*t->pauses), cmp_u64);
	s->pause_median_ns = t->pauses[t->npauses / 2];
	s->pause_p99_ns = t->pauses[t->npauses * 99 / 100];
}

void
rec_ptrace_free(struct rec_ptrace *t)
{
	if (!t)
		return;
	rec_ptrace_detach(t);
	sp_htab_free(t->index);
	free(t->threads);
	free(t->stack);
	free(t->pauses);
	free(t);
}
