/*
 * sym_unnamed_lib.c: the library of sp-symbolize's unnamed-frames tests,
 * run stripped: its time goes to a static function that no dynamic
 * symbol covers (build with -shared -fPIC).
 */
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void
unnamed_hidden(void)
{
	unsigned long i;

	for (i = 0; i < 100000; i++)
		sink += i * i;
}

void unnamed_spin(double cpu_secs);

/* Spins in unnamed_hidden() for `cpu_secs` of this thread's CPU time. */
void
unnamed_spin(double cpu_secs)
{
	struct timespec ts;
	double t;

	do {
		unnamed_hidden();
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	} while (t < cpu_secs);
}
