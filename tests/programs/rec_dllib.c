/*
 * rec_dllib.c: the library rec_dlopen loads mid-run (build with -shared
 * -fPIC -O0 -fno-omit-frame-pointer).
 */
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void
lib_inner(void)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i;
}

void lib_spin(double secs);

/* Spins for `secs` of wall time, or for -secs of this thread's CPU time. */
__attribute__((noinline)) void
lib_spin(double secs)
{
	clockid_t id = secs < 0 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
	struct timespec ts;
	double end;

	clock_gettime(id, &ts);
	end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 +
	      (secs < 0 ? -secs : secs);
	do {
		lib_inner();
		clock_gettime(id, &ts);
	} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < end);
}
