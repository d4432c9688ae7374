/*
 * rec_cpuspin.c: spins for a given CPU time of its own (not wall time,
 * so a loaded machine gives it the same samples), for the sp-record tests
 * that run many copies of one small binary.
 *
 *   rec_cpuspin SECONDS
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void
spin(double secs)
{
	double end = cpu_now() + secs;
	unsigned long i;

	do
		for (i = 0; i < 20000; i++)
			sink += i;
	while (cpu_now() < end);
}

int
main(int argc, char **argv)
{
	spin(argc > 1 ? atof(argv[1]) : 0.02);
	return 0;
}
