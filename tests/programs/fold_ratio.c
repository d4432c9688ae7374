/*
 * fold_ratio.c: the workload of sp-fold's recorded test.  main() spends
 * three times as long in hot() as in cold(), both through burn(); a
 * thread that names itself "fold-helper" runs spin() meanwhile.
 *   fold_ratio [SECONDS]
 * SECONDS is wall time; "1.5c" runs each thread for 1.5 s of its own CPU
 * time, so that a test gets its samples however loaded the machine is.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void
burn(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i * i;
}

__attribute__((noinline)) void
hot(void)
{
	burn(300000);
}

__attribute__((noinline)) void
cold(void)
{
	burn(100000);
}

__attribute__((noinline)) void
spin(void)
{
	burn(100000);
}

/* Wall time, or the calling thread's CPU time for a "1.5c" argument. */
static clockid_t clock_id = CLOCK_MONOTONIC;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *
helper(void *arg)
{
	double end = now() + *(double *)arg;

	pthread_setname_np(pthread_self(), "fold-helper");
	while (now() < end)
		spin();
	return NULL;
}

int
main(int argc, char *argv[])
{
	char *unit = NULL;
	double secs = argc > 1 ? strtod(argv[1], &unit) : 1.0, end;
	pthread_t t;

	if (unit && *unit == 'c')
		clock_id = CLOCK_THREAD_CPUTIME_ID;
	end = now() + secs;
	if (pthread_create(&t, NULL, helper, &secs))
		return 1;
	while (now() < end) {
		hot();
		cold();
	}
	pthread_join(t, NULL);
	puts("fold_ratio: done");
	return 0;
}
