/*
 * rec_dlcycle_lib.c: one of the libraries rec_dlcycle loads in turn.
 * Built several times with -DVERSION=N (-shared -fPIC), each copy names
 * its function spin_vN, so a profile tells the copies apart although
 * their code and layout are the same and they map at the same address.
 */
#include <time.h>

#ifndef VERSION
#define VERSION 1
#endif
#define CAT(a, b) a##b
#define NAME(v) CAT(spin_v, v)

static volatile unsigned long sink;

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void NAME(VERSION)(double secs);

/* Spins until this thread has used `secs` of CPU time. */
__attribute__((noinline)) void
NAME(VERSION)(double secs)
{
	double end = cpu_now() + secs;
	unsigned long i;

	do
		for (i = 0; i < 20000; i++)
			sink += i;
	while (cpu_now() < end);
}
