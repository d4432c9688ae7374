/*
 * rec_offcpu.c: threads that wait in known places for known times, for
 * the off-CPU tests.  Build with -O1 -g -pthread.
 *
 *   sleeper  sleep_wait():  one 300 ms sleep
 *   piper    pipe_wait():   reads a pipe main writes to after 400 ms
 *   locker   mutex_wait():  waits 250 ms for a mutex holder() keeps
 *   reader   file_wait():   reads a file (short waits, if any)
 *   main     work_compute() 20 ms then work_rest() 80 ms sleeping, 8 times
 *   then, the others done:
 *   main     vfork_wait():  200 ms in vfork (an uninterruptible wait)
 *   crowd x2 crowd_spin():  both spin 150 ms pinned to one CPU (preempted)
 *
 * On a loaded machine each wait lasts longer than planned (a woken thread
 * waits for a CPU), so the program prints what each took by its own
 * clocks, "NAME MILLISECONDS" a line, and the tests compare the recorded
 * times with those: sleep_wait, pipe_wait, mutex_wait, work_compute and
 * work_rest (totals), vfork_wait, and crowd_preempted (the two spinners'
 * wall time less their CPU time).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t held;
static const char *file;

static double
clock_ms(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double
now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/* One line of what a wait took; a single write, so lines never mix. */
static void
report(const char *what, double ms)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%s %.1f\n", what, ms);

	if (n > 0 && write(STDOUT_FILENO, line, (size_t)n) < 0)
		abort();
}

__attribute__((noinline)) static void
sleep_wait(void)
{
	usleep(300000);
}

__attribute__((noinline)) static void
pipe_wait(void)
{
	char c;

	if (read(fds[0], &c, 1) != 1)
		abort();
}

__attribute__((noinline)) static void
mutex_wait(void)
{
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) static void
file_wait(void)
{
	char buf[65536];
	int fd = open(file, O_RDONLY);

	while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
		;
	if (fd >= 0)
		close(fd);
}

__attribute__((noinline)) static void
work_compute(double ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		;
}

__attribute__((noinline)) static void
work_rest(int ms)
{
	usleep((useconds_t)ms * 1000);
}

/* The parent waits uninterruptibly until the child exits. */
__attribute__((noinline)) static void
vfork_wait(void)
{
	struct timespec t = { 0, 200000000 };
	pid_t pid = vfork();

	if (pid == 0) {
		/* Only raw system calls in a vfork child. */
		syscall(SYS_nanosleep, &t, NULL);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

__attribute__((noinline)) static void
crowd_spin(void)
{
	double end = now_ms() + 150;

	while (now_ms() < end)
		;
}

/* Returns, as a double on the heap, the ms it waited for the CPU. */
static void *
crowd(void *a)
{
	cpu_set_t one;
	double wall, cpu, *waited = malloc(sizeof(*waited));

	(void)a;
	pthread_setname_np(pthread_self(), "crowd");
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	wall = now_ms();
	cpu = clock_ms(CLOCK_THREAD_CPUTIME_ID);
	crowd_spin();
	if (waited)
		*waited = (now_ms() - wall) -
			  (clock_ms(CLOCK_THREAD_CPUTIME_ID) - cpu);
	return waited;
}

static void *
sleeper(void *a)
{
	double t;

	(void)a;
	pthread_setname_np(pthread_self(), "sleeper");
	t = now_ms();
	sleep_wait();
	report("sleep_wait", now_ms() - t);
	return NULL;
}

static void *
piper(void *a)
{
	double t;

	(void)a;
	pthread_setname_np(pthread_self(), "piper");
	t = now_ms();
	pipe_wait();
	report("pipe_wait", now_ms() - t);
	return NULL;
}

static void *
holder(void *a)
{
	(void)a;
	pthread_mutex_lock(&lock);
	pthread_barrier_wait(&held);
	usleep(250000);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void *
locker(void *a)
{
	double t;

	(void)a;
	pthread_setname_np(pthread_self(), "locker");
	pthread_barrier_wait(&held);
	t = now_ms();
	mutex_wait();
	report("mutex_wait", now_ms() - t);
	return NULL;
}

static void *
reader(void *a)
{
	(void)a;
	pthread_setname_np(pthread_self(), "reader");
	file_wait();
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t[5];
	double compute = 0, rest = 0, start, waited = 0;
	void *w;
	int i;

	file = argc > 1 ? argv[1] : "/proc/self/exe";
	if (pipe(fds) < 0 || pthread_barrier_init(&held, NULL, 2))
		return 1;
	pthread_create(&t[0], NULL, sleeper, NULL);
	pthread_create(&t[1], NULL, piper, NULL);
	pthread_create(&t[2], NULL, holder, NULL);
	pthread_create(&t[3], NULL, locker, NULL);
	pthread_create(&t[4], NULL, reader, NULL);
	for (i = 0; i < 8; i++) {
		start = now_ms();
		work_compute(20);
		compute += now_ms() - start;
		start = now_ms();
		work_rest(80);
		rest += now_ms() - start;
		if (i == 3 && write(fds[1], "x", 1) != 1)
			return 1;
	}
	report("work_compute", compute);
	report("work_rest", rest);
	for (i = 0; i < 5; i++)
		pthread_join(t[i], NULL);
	start = now_ms();
	vfork_wait();
	report("vfork_wait", now_ms() - start);
	pthread_create(&t[0], NULL, crowd, NULL);
	pthread_create(&t[1], NULL, crowd, NULL);
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], &w);
		if (w)
			waited += *(double *)w;
		free(w);
	}
	report("crowd_preempted", waited);
	return 0;
}
