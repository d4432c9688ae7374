/*
 * rec_dlopen.c: spins, then loads a library with dlopen(3) in the middle
 * of the run and spins inside it, for the sp-record module tests.
 *
 *   rec_dlopen SECONDS LIBRARY
 *
 * Spins in main_spin for the first half, then calls lib_spin(SECONDS/2)
 * from LIBRARY (built from rec_dllib.c).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void
main_spin(double secs)
{
	double end = now() + secs;
	unsigned long i;

	while (now() < end)
		for (i = 0; i < 100000; i++)
			sink += i;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	void (*fn)(double);
	void *h;

	if (argc < 3)
		return 2;
	main_spin(secs / 2);
	h = dlopen(argv[2], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "rec_dlopen: %s\n", dlerror());
		return 1;
	}
	*(void **)&fn = dlsym(h, "lib_spin");
	if (!fn)
		return 1;
	fn(secs / 2);
	return 0;
}
