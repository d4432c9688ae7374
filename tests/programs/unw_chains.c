/*
 * unw_chains.c: a workload whose threads spend their time in known call
 * chains, for the unwinding tests.  Built with and without frame pointers.
 *
 *   unw_chains [SECONDS]   (default 1; wall time, or "0.3c": 0.3 s of the
 *                          main thread's CPU time, however loaded the machine)
 *
 * threads (root first):
 *   qsort_thread -> run_qsort -> qsort (libc) -> cmp_ints -> cmp_key
 *   deep_thread  -> recurse x 121 -> leaf_work
 *   shlib_thread -> lib_work (libunw_lib.so) -> lib_inner -> shlib_cb
 *   main -> sig_loop -> raise (libc) -> signal frame -> on_signal
 *        -> handler_work, and main -> sig_loop -> sig_spin
 * Every function named here is kept out of line and out of tail position
 * so that each appears as its own frame.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define KEEP(x) __asm__ volatile("" : "+r"(x))
#define DEPTH 120
#define NSORT 2000

unsigned long lib_work(unsigned long n, unsigned long (*cb)(unsigned long));

static volatile int stop;
static volatile unsigned long sink;

NOINLINE int
cmp_key(const int *p)
{
	int k = *p * 7 + 3;

	KEEP(k);
	return k;
}

NOINLINE int
cmp_ints(const void *a, const void *b)
{
	int x = cmp_key(a), y = cmp_key(b);

	KEEP(x);
	return (x > y) - (x < y);
}

NOINLINE void
run_qsort(int *v, unsigned *seed)
{
	int i;

	for (i = 0; i < NSORT; i++)
		v[i] = rand_r(seed);
	qsort(v, NSORT, sizeof(*v), cmp_ints);
	KEEP(v);
}

NOINLINE void *
qsort_thread(void *arg)
{
	static int v[NSORT];
	unsigned seed = 1;

	(void)arg;
	while (!stop)
		run_qsort(v, &seed);
	return NULL;
}

NOINLINE unsigned long
leaf_work(void)
{
	unsigned long i, x = 0;

	for (i = 0; i < 20000; i++) {
		x += i * i;
		KEEP(x);
	}
	return x;
}

NOINLINE unsigned long
recurse(int d)
{
	volatile char pad[160];
	unsigned long r;

	pad[0] = (char)d;
	r = d ? recurse(d - 1) : leaf_work();
	KEEP(r);
	return r + pad[0];
}

NOINLINE void *
deep_thread(void *arg)
{
	(void)arg;
	while (!stop)
		sink += recurse(DEPTH);
	return NULL;
}

NOINLINE unsigned long
shlib_cb(unsigned long n)
{
	unsigned long i, x = n;

	for (i = 0; i < 20000; i++) {
		x = x * 31 + i;
		KEEP(x);
	}
	return x;
}

NOINLINE void *
shlib_thread(void *arg)
{
	(void)arg;
	while (!stop)
		sink += lib_work(sink, shlib_cb);
	return NULL;
}

NOINLINE unsigned long
handler_work(void)
{
	unsigned long i, x = 0;

	for (i = 0; i < 100000; i++) {
		x ^= i * 13;
		KEEP(x);
	}
	return x;
}

NOINLINE void
on_signal(int sig)
{
	unsigned long r = handler_work();

	KEEP(r);
	sink += r + (unsigned long)sig;
}

NOINLINE void
sig_spin(void)
{
	unsigned long i, x = 0;

	for (i = 0; i < 100000; i++) {
		x += i;
		KEEP(x);
	}
	sink += x;
}

/* Wall time, or the main thread's CPU time for a SECONDS like "0.3c". */
static clockid_t clock_id = CLOCK_MONOTONIC;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

NOINLINE void
sig_loop(double seconds)
{
	double end = now() + seconds;

	while (now() < end) {
		raise(SIGUSR1);
		sig_spin();
	}
}

int
main(int argc, char **argv)
{
	void *(*fns[])(void *) = { qsort_thread, deep_thread, shlib_thread };
	pthread_t t[3];
	struct sigaction sa;
	double seconds = argc > 1 ? atof(argv[1]) : 1;
	int i;

	if (argc > 1 && argv[1][0] && argv[1][strlen(argv[1]) - 1] == 'c')
		clock_id = CLOCK_THREAD_CPUTIME_ID;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, fns[i], NULL) != 0)
			return 1;
	sig_loop(seconds);
	stop = 1;
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return 0;
}
