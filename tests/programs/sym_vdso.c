/*
 * sym_vdso.c: spins in clock_gettime and gettimeofday, which the vdso
 * serves without a system call, so most samples land in the [vdso].
 * Runs for argv[1] seconds (default 2).
 */
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

int
main(int argc, char **argv)
{
	struct timespec start, now;
	struct timeval tv;
	double secs = argc > 1 ? atof(argv[1]) : 2;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		gettimeofday(&tv, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) +
		     (double)(now.tv_nsec - start.tv_nsec) / 1e9 <
		 secs);
	return 0;
}
