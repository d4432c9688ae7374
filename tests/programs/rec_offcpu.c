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
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
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
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
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

static void *
crowd(void *a)
{
	cpu_set_t one;

	(void)a;
	pthread_setname_np(pthread_self(), "crowd");
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof(one), &one);
	crowd_spin();
	return NULL;
}

static void *
sleeper(void *a)
{
	(void)a;
	pthread_setname_np(pthread_self(), "sleeper");
	sleep_wait();
	return NULL;
}

static void *
piper(void *a)
{
	(void)a;
	pthread_setname_np(pthread_self(), "piper");
	pipe_wait();
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
	(void)a;
	pthread_setname_np(pthread_self(), "locker");
	pthread_barrier_wait(&held);
	mutex_wait();
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
		work_compute(20);
		work_rest(80);
		if (i == 3 && write(fds[1], "x", 1) != 1)
			return 1;
	}
	for (i = 0; i < 5; i++)
		pthread_join(t[i], NULL);
	vfork_wait();
	pthread_create(&t[0], NULL, crowd, NULL);
	pthread_create(&t[1], NULL, crowd, NULL);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
