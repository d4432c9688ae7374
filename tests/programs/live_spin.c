/*
 * live_spin.c: spins in one recognisable function until killed, for the
 * live view and the examples tests.  An argument PERCENT spins only that
 * share of each 10 ms and sleeps the rest: a target that is recorded now
 * and then need not take a CPU from the tests running beside it.
 */
#include <stdlib.h>
#include <time.h>

static volatile double sink;

__attribute__((noinline)) void
live_hot_spin(void)
{
	int i;

	for (i = 0; i < 100000; i++)
		sink += i;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	double busy = argc > 1 ? atoi(argv[1]) / 10000.0 : 0;
	struct timespec rest = { 0, 10000000 - (long)(busy * 1e9) };

	for (;;) {
		double t0 = now();

		do
			live_hot_spin();
		while (busy > 0 && now() - t0 < busy);
		if (busy > 0)
			nanosleep(&rest, NULL);
	}
}
