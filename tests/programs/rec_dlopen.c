/*
 * rec_dlopen.c: spins, then loads a library with dlopen(3) in the middle
 * of the run and spins inside it, for the sp-record module tests.
 *
 *   rec_dlopen SECONDS LIBRARY [LIBRARY2]
 *
 * Spins in main_spin for the first half, then calls lib_spin(SECONDS/2)
 * from LIBRARY (built from rec_dllib.c or rec_dllibc.c).  With LIBRARY2,
 * each part takes a third: after LIBRARY's lib_spin it closes LIBRARY and
 * calls LIBRARY2's, which is likely mapped where LIBRARY was.  SECONDS
 * is wall time; "2.4c" is CPU time (lib_spin gets it negated), so that a
 * test gets its samples however loaded the machine is.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

/* Wall time, or this thread's CPU time for a SECONDS like "2.4c". */
static clockid_t clock_id = CLOCK_MONOTONIC;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
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

/* Loads `lib`, runs its lib_spin for `secs`; returns the handle. */
static void *
run_lib(const char *lib, double secs)
{
	void (*fn)(double);
	void *h = dlopen(lib, RTLD_NOW);

	if (!h) {
		fprintf(stderr, "rec_dlopen: %s\n", dlerror());
		exit(1);
	}
	*(void **)&fn = dlsym(h, "lib_spin");
	if (!fn)
		exit(1);
	/* lib_spin takes CPU seconds as a negative number */
	fn(clock_id == CLOCK_MONOTONIC ? secs : -secs);
	return h;
}

int
main(int argc, char **argv)
{
	char *unit = NULL;
	double secs = argc > 1 ? strtod(argv[1], &unit) : 1;
	double part = secs / (argc > 3 ? 3 : 2);
	void *h;

	if (argc < 3)
		return 2;
	if (unit && *unit == 'c')
		clock_id = CLOCK_THREAD_CPUTIME_ID;
	main_spin(part);
	h = run_lib(argv[2], part);
	if (argc > 3) {
		dlclose(h);
		run_lib(argv[3], part);
	}
	return 0;
}
