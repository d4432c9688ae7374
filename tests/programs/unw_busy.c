/*
 * unw_busy.c: CPU-bound threads in a 30-deep recursion, for the ptrace
 * tests and benchmarks.  Prints the work done, so a slowdown under a
 * sampler can be measured.
 *
 *   unw_busy [SECONDS [THREADS]]     (default 1 second, 1 thread)
 *
 * Each thread: busy_thread (main for the first) -> descend x 30 -> spin.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define KEEP(x) __asm__ volatile("" : "+r"(x))
#define DEPTH 30

static volatile int stop;

NOINLINE unsigned long
spin(void)
{
	unsigned long i, x = 0;

	for (i = 0; i < 10000; i++) {
		x += i ^ (x >> 3);
		KEEP(x);
	}
	return x;
}

NOINLINE unsigned long
descend(int d)
{
	volatile char pad[32];
	unsigned long r;

	pad[0] = (char)d;
	r = d ? descend(d - 1) : spin();
	KEEP(r);
	return r + pad[0];
}

NOINLINE void *
busy_thread(void *arg)
{
	unsigned long *rounds = arg;

	while (!stop) {
		descend(DEPTH);
		(*rounds)++;
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;
	int i, n = argc > 2 ? atoi(argv[2]) : 1;
	struct timespec ts = { (time_t)seconds,
			       (long)((seconds - (double)(time_t)seconds) *
				      1e9) };
	unsigned long rounds[64] = { 0 }, total = 0;
	pthread_t t[64];

	if (n < 1 || n > 64)
		return 2;
	for (i = 1; i < n; i++)
		if (pthread_create(&t[i], NULL, busy_thread, &rounds[i]) != 0)
			return 1;
	if (n > 1) {
		nanosleep(&ts, NULL);
		stop = 1;
	} else {
		/* one thread: the main thread works and checks the time */
		struct timespec now, end;

		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += ts.tv_sec;
		end.tv_nsec += ts.tv_nsec;
		if (end.tv_nsec >= 1000000000) {
			end.tv_sec++;
			end.tv_nsec -= 1000000000;
		}
		do {
			descend(DEPTH);
			rounds[0]++;
			clock_gettime(CLOCK_MONOTONIC, &now);
		} while (
		    now.tv_sec < end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	}
	for (i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < n; i++)
		total += rounds[i];
	printf("%lu rounds\n", total);
	return 0;
}
