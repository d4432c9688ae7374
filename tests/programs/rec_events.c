/*
 * rec_events.c: a workload for event tests.  fault_pages() touches fresh
 * memory (page faults) in rounds; nap() sleeps a millisecond at a time
 * (context switches).  Usage: rec_events ROUNDS NAPS; it prints the
 * minor faults of the rounds as getrusage(2) counts them, since how many
 * pages one fault maps depends on the machine (transparent huge pages).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include <unistd.h>

#define ROUND_BYTES (8u << 20)

__attribute__((noinline)) static void
fault_pages(char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 4096)
		p[i] = 1;
	__asm__ volatile("" : : "r"(p) : "memory");
}

__attribute__((noinline)) static void
nap(void)
{
	usleep(1000);
	__asm__ volatile("");
}

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	int naps = argc > 2 ? atoi(argv[2]) : 100;
	struct rusage before, after;
	int i;

	getrusage(RUSAGE_SELF, &before);
	for (i = 0; i < rounds; i++) {
		char *p = malloc(ROUND_BYTES);

		if (!p)
			return 1;
		fault_pages(p, ROUND_BYTES);
		free(p);
	}
	getrusage(RUSAGE_SELF, &after);
	printf("faults %ld\n", after.ru_minflt - before.ru_minflt);
	for (i = 0; i < naps; i++)
		nap();
	return 0;
}
