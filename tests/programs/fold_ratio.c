/*
 * fold_ratio.c: the workload of sp-fold's recorded test.  main() spends
 * three times as long in hot() as in cold(), both through burn(); a
 * thread that names itself "fold-helper" runs spin() meanwhile.
 *   fold_ratio [SECONDS]
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

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *
helper(void *arg)
{
	double end = *(double *)arg;

	pthread_setname_np(pthread_self(), "fold-helper");
	while (now() < end)
		spin();
	return NULL;
}

int
main(int argc, char *argv[])
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	pthread_t t;

	if (pthread_create(&t, NULL, helper, &end))
		return 1;
	while (now() < end) {
		hot();
		cold();
	}
	pthread_join(t, NULL);
	puts("fold_ratio: done");
	return 0;
}
