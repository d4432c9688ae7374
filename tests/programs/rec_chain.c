/*
 * rec_chain.c: a CPU-bound workload with known call chains, for the
 * sp-record tests.  Build with -O0 -fno-omit-frame-pointer -pthread.
 *
 *   rec_chain SECONDS [THREADS [LATE [DELAY]]]
 *
 * The main thread runs main -> chain_a -> chain_b -> chain_c -> spin for
 * SECONDS (wall time; "0.5c" means until the thread has used 0.5 s of CPU,
 * so that a test gets its samples however loaded the machine is);
 * THREADS more threads ("worker") run worker_main -> chain_a...
 * from the start, and LATE threads ("late") run late_main -> chain_a...
 * from DELAY seconds on.  Exits with status 7 so tests can check that
 * sp-record passes the status on.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double end_time;
static double cpu_budget; /* > 0: run() spins this much thread CPU time */
static volatile unsigned long sink;

static double
clock_secs(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
now(void)
{
	return clock_secs(CLOCK_MONOTONIC);
}

__attribute__((noinline)) void
spin(void)
{
	unsigned long i;

	for (i = 0; i < 200000; i++)
		sink += i;
}

__attribute__((noinline)) void
chain_c(void)
{
	spin();
	sink++;
}

__attribute__((noinline)) void
chain_b(void)
{
	chain_c();
	sink++;
}

__attribute__((noinline)) void
chain_a(void)
{
	chain_b();
	sink++;
}

static void
run(void)
{
	double start = clock_secs(CLOCK_THREAD_CPUTIME_ID);

	if (cpu_budget > 0) {
		while (clock_secs(CLOCK_THREAD_CPUTIME_ID) - start < cpu_budget)
			chain_a();
		return;
	}
	while (now() < end_time)
		chain_a();
}

__attribute__((noinline)) void *
worker_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "worker");
	run();
	return NULL;
}

__attribute__((noinline)) void *
late_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "late");
	run();
	return NULL;
}

int
main(int argc, char **argv)
{
	char *unit = NULL;
	double secs = argc > 1 ? strtod(argv[1], &unit) : 1;
	int threads = argc > 2 ? atoi(argv[2]) : 0;
	int late = argc > 3 ? atoi(argv[3]) : 0;
	double delay = argc > 4 ? atof(argv[4]) : 0.5;
	pthread_t t[64];
	double start = now();
	int i, n = 0;

	if (unit && *unit == 'c')
		cpu_budget = secs;
	end_time = start + secs;
	for (i = 0; i < threads && n < 64; i++)
		pthread_create(&t[n++], NULL, worker_main, NULL);
	if (late > 0) {
		while (now() < start + delay)
			chain_a();
		for (i = 0; i < late && n < 64; i++)
			pthread_create(&t[n++], NULL, late_main, NULL);
	}
	run();
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 7;
}
