/*
 * phases.c: spins in phase_one, then in phase_two, for
 * bench/live-latency.sh.  Usage: phases SECONDS FILE: after SECONDS it
 * writes the CLOCK_MONOTONIC time of the switch (seconds) to FILE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static void
phase_one(double until)
{
	while (now() < until)
		;
}

__attribute__((noinline)) static void
phase_two(double until)
{
	while (now() < until)
		;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3, t;
	FILE *f;

	phase_one(now() + secs);
	t = now();
	if (argc > 2 && (f = fopen(argv[2], "w"))) {
		fprintf(f, "%.6f\n", t);
		fclose(f);
	}
	phase_two(t + 20);
	return 0;
}
