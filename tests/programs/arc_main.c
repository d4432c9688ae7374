/*
 * arc_main.c: the program of sp-archive's test (t5007): spends half its
 * CPU time in a static function of its own and half in arc_lib.c's
 * library (build with -g, linked with -L. -larc).  Usage: arc_main SECS
 * (CPU seconds in all).
 */
#include <stdlib.h>
#include <time.h>

void arc_lib_spin(double cpu_secs);

static volatile unsigned long sink;

/* Spins in this program for `cpu_secs` of this thread's CPU time. */
__attribute__((noinline)) static void
arc_main_spin(double cpu_secs)
{
	struct timespec ts;
	double end;
	unsigned long i;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + cpu_secs;
	do {
		for (i = 0; i < 100000; i++)
			sink += i ^ 5;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < end);
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.4;

	arc_main_spin(secs / 2);
	arc_lib_spin(secs / 2);
	return 0;
}
