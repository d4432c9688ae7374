/*
 * rec_dlcycle.c: loads libraries in turn at what is most likely one
 * address, for the sp-record tests of mappings that come back (issue 24).
 *
 *   rec_dlcycle CPU_SECONDS SLICE_SECONDS LIBRARY...
 *
 * Each LIBRARY is built from rec_dlcycle_lib.c with -DVERSION=N, N its
 * place on the command line from 1.  In a loop: dlopen the next library,
 * call its spin_vN for SLICE_SECONDS of this thread's CPU time, dlclose
 * it, until the loop used CPU_SECONDS.  Each library gets an equal share
 * of the CPU time, however loaded the machine.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
run_one(const char *lib, int version, double slice)
{
	void (*fn)(double);
	char name[32];
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "rec_dlcycle: %s\n", dlerror());
		exit(1);
	}
	snprintf(name, sizeof(name), "spin_v%d", version);
	*(void **)&fn = dlsym(h, name);
	if (!fn) {
		fprintf(stderr, "rec_dlcycle: no %s in %s\n", name, lib);
		exit(1);
	}
	fn(slice);
	dlclose(h);
}

int
main(int argc, char **argv)
{
	double end, slice;
	int i;

	if (argc < 4)
		return 2;
	end = cpu_now() + atof(argv[1]);
	slice = atof(argv[2]);
	while (cpu_now() < end)
		for (i = 3; i < argc; i++)
			run_one(argv[i], i - 2, slice);
	return 0;
}
