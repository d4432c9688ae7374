/*
 * arc_lib.c: the shared library of sp-archive's test (t5007): its time
 * goes to a static function, which only its symbol table (or its debug
 * file, once stripped) names (build with -shared -fPIC -g).
 */
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void
arc_lib_inner(void)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i * 3;
}

void arc_lib_spin(double cpu_secs);

/* Spins in arc_lib_inner() for `cpu_secs` of this thread's CPU time. */
void
arc_lib_spin(double cpu_secs)
{
	struct timespec ts;
	double end;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9 + cpu_secs;
	do {
		arc_lib_inner();
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < end);
}
