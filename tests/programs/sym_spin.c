/*
 * sym_spin.c: a program that burns CPU for a fraction of a second in
 * known functions, one of them inlined, for the record-to-symbolize
 * end-to-end test.
 */
#include <time.h>

volatile unsigned long sym_spin_sink;

static inline __attribute__((always_inline)) void
sym_spin_inlined(unsigned long i)
{
	sym_spin_sink += i * i; /* sym_spin_inlined body */
}

__attribute__((noinline)) void
sym_spin_hot(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		sym_spin_sink += i; /* sym_spin_hot body */
		sym_spin_inlined(i);
	}
}

__attribute__((noinline)) void
sym_spin_caller(unsigned long n)
{
	sym_spin_hot(n);
	sym_spin_sink++;
}

int
main(void)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		sym_spin_caller(100000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000000000L +
		     (now.tv_nsec - start.tv_nsec) <
		 600000000L);
	return 0;
}
