/*
 * budget.h: how long a single-threaded test program runs, from its first
 * argument: SECONDS of wall time, or "SECONDSc" of its own CPU time,
 * which a loaded machine does not shorten in samples.  Included by the
 * programs that loop until it is spent (unw_baddata.c, unw_nocfi.c).
 */
#ifndef TESTS_PROGRAMS_BUDGET_H
#define TESTS_PROGRAMS_BUDGET_H

#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

struct budget {
	clockid_t id;
	double secs;
	struct timespec t0;
};

/* Starts the budget argv[1] gives (`dflt` seconds without one). */
static void
budget_start(struct budget *b, int argc, char **argv, double dflt)
{
	char *unit = NULL;

	b->secs = argc > 1 ? strtod(argv[1], &unit) : dflt;
	b->id =
	    unit && *unit == 'c' ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
	clock_gettime(b->id, &b->t0);
}

/* Whether some of it is left. */
static bool
budget_left(const struct budget *b)
{
	struct timespec t;

	clock_gettime(b->id, &t);
	return (double)(t.tv_sec - b->t0.tv_sec) +
		   (double)(t.tv_nsec - b->t0.tv_nsec) / 1e9 <
	       b->secs;
}

#endif
