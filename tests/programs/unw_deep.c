/*
 * unw_deep.c: a deep recursion of changing depth, for the test of
 * unwinding past the stack copy (t2008, issue 28).
 *
 *   unw_deep SECONDS [switch|hold] ("3c": until 3 s of CPU time are used)
 *
 * main -> walk -> descend -> descend_a -> descend_b -> descend_c ->
 * descend_a ... -> fill or bottom.  Each descend_* has a frame of about
 * 1 KiB.  The depth follows a sawtooth of CPU time, with a little
 * jitter: from MIN_DEPTH to MAX_DEPTH levels (about 40 to 400 KiB of
 * stack) in the first second, back in the next two, and so on; only the
 * innermost levels return and call again.  At the end the thread sleeps
 * two seconds at the bottom, so that the recorder's last reads of its
 * stack, which come after the samples (by the drain loop's lag, bounded
 * by its rings), still find it.
 *
 * With "switch", each round of about 50 us returns to walk and starts
 * again at a random depth in one of six orders of the three functions
 * (a -> b -> c or a -> c -> b, starting with any of them): a stack
 * unwound partly from one round and partly from another breaks its
 * order, which the test sees.  Every frame between descend and the leaf
 * is therefore one of the descend_* in one cyclic order (a -> b -> c
 * from descend_a without "switch"), at most MAX_DEPTH + 1 of them.  The
 * calls are direct: a direct call names its callee, which the unwinder
 * checks.
 *
 * With "hold" the depth stays at 220 levels, the jitter aside: a stack
 * whose outer part never changes, for counting what a sample costs
 * (instructions per sample under callgrind: docs/bench-truth.md).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define KEEP(x) __asm__ volatile("" : "+r"(x))
#define FRAME 1000
#define MIN_DEPTH 40
#define MAX_DEPTH 400
#define JITTER 2

int descend_a(int d);
int descend_b(int d);
int descend_c(int d);

static int target, backward, leave, switching, holding, done;
static double start, secs;
static clockid_t clock_id;
static unsigned seed = 1;
static volatile unsigned long sink;

NOINLINE static double
clock_secs(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINLINE void
fill(char *buf, int d)
{
	int i;

	for (i = 0; i < FRAME; i += 8)
		buf[i] = (char)(d + i);
	KEEP(buf);
}

/* The sawtooth's depth at `t` seconds: up in 1 s, down in 2 s. */
static int
sawtooth(double t)
{
	double p = t - 3.0 * (double)(long)(t / 3.0);
	double f = p < 1.0 ? p : (3.0 - p) / 2.0;

	return MIN_DEPTH + (int)(f * (MAX_DEPTH - MIN_DEPTH));
}

/* Picks the next depth to reach, at the bottom of the recursion. */
NOINLINE static void
steer(void)
{
	double t = clock_secs() - start;
	int jitter = (int)(rand_r(&seed) % (2 * JITTER + 1)) - JITTER;

	if (t >= secs) {
		done = 1;
		return;
	}
	if (switching) {
		target = MIN_DEPTH +
			 (int)(rand_r(&seed) % (MAX_DEPTH - MIN_DEPTH + 1));
		leave = 1;
		return;
	}
	target = (holding ? (MIN_DEPTH + MAX_DEPTH) / 2 : sawtooth(t)) + jitter;
	if (target < MIN_DEPTH)
		target = MIN_DEPTH;
	if (target > MAX_DEPTH)
		target = MAX_DEPTH;
}

NOINLINE int
bottom(const char *buf)
{
	unsigned long i, s = 0;

	for (i = 0; i < 20000; i++)
		s += i ^ (unsigned long)buf[i % FRAME];
	sink += s;
	steer();
	if (done) {
		struct timespec rest = { 2, 0 };

		nanosleep(&rest, NULL);
	}
	return (int)(s & 1);
}

/*
 * One level: its own frame, then the next function of the order while
 * the target lies deeper, or the bottom's work when it is here.
 */
#define DESCEND(name, next, prev)                                              \
	NOINLINE int name(int d)                                               \
	{                                                                      \
		char buf[FRAME];                                               \
		int r = 0;                                                     \
                                                                               \
		fill(buf, d);                                                  \
		while (!done && !leave && target >= d) {                       \
			if (target > d)                                        \
				r += backward ? prev(d + 1) : next(d + 1);     \
			else                                                   \
				r += bottom(buf);                              \
		}                                                              \
		KEEP(r);                                                       \
		return r + buf[d % FRAME];                                     \
	}
DESCEND(descend_a, descend_b, descend_c)
DESCEND(descend_b, descend_c, descend_a)
DESCEND(descend_c, descend_a, descend_b)

/* Order `v` of six: forward or backward, from any of the three. */
NOINLINE static int
descend(int v)
{
	int r;

	backward = v % 2;
	if (v / 2 % 3 == 0)
		r = descend_a(0);
	else if (v / 2 % 3 == 1)
		r = descend_b(0);
	else
		r = descend_c(0);
	KEEP(r); /* no tail call: its frame stays */
	return r;
}

NOINLINE void
walk(void)
{
	int round, r;

	start = clock_secs();
	target = MIN_DEPTH;
	for (round = 0; !done; round++) {
		leave = 0;
		r = descend(switching ? round % 6 : 0);
		KEEP(r);
		sink += (unsigned long)r;
	}
}

int
main(int argc, char **argv)
{
	const char *arg = argc > 1 ? argv[1] : "1";

	clock_id =
	    strchr(arg, 'c') ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC;
	secs = atof(arg);
	switching = argc > 2 && strcmp(argv[2], "switch") == 0;
	holding = argc > 2 && strcmp(argv[2], "hold") == 0;
	walk();
	return 0;
}
