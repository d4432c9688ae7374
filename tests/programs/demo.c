/*
 * demo.c: the bundled demo workload.  Two threads spend known shares of
 * their time in distinct call chains, so a profile of it has an obvious
 * right answer: checksum_blocks (hashing through mix), sort_records
 * (qsort with a comparator, through libc) and a recursive walk_tree each
 * take a large share.
 *   demo [SECONDS]    (wall time; "1.5c": 1.5 s of each thread's CPU time)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

/* Wall time, or the calling thread's CPU time for a SECONDS like "1.5c". */
static clockid_t clock_id = CLOCK_MONOTONIC;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((noinline)) uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static __attribute__((noinline)) void
checksum_blocks(const uint64_t *data, size_t n)
{
	uint64_t h = 0;
	size_t i;

	for (i = 0; i < n; i++)
		h = mix(h, data[i]);
	sink += h;
}

static int
compare_records(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static __attribute__((noinline)) void
sort_records(uint64_t *data, size_t n, unsigned *seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		data[i] = (uint64_t)rand_r(seed) << 20 ^ (uint64_t)rand_r(seed);
	qsort(data, n, sizeof(*data), compare_records);
}

static __attribute__((noinline)) uint64_t
walk_tree(unsigned depth)
{
	if (depth == 0)
		return mix(sink, depth);
	return walk_tree(depth - 1) + walk_tree(depth - 1) / 2;
}

struct job {
	double secs;
	unsigned seed;
};

static void *
worker(void *arg)
{
	struct job *j = arg;
	static __thread uint64_t data[4096];
	double until = now() + j->secs;

	while (now() < until) {
		int k;

		for (k = 0; k < 16; k++)
			checksum_blocks(data, 4096);
		sort_records(data, 512, &j->seed);
		sink += walk_tree(14);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	char *unit = NULL;
	double secs = argc > 1 ? strtod(argv[1], &unit) : 3;
	struct job jobs[2];
	pthread_t t[2];
	int i;

	if (unit && *unit == 'c')
		clock_id = CLOCK_THREAD_CPUTIME_ID;
	for (i = 0; i < 2; i++) {
		jobs[i].secs = secs;
		jobs[i].seed = (unsigned)i + 1;
		if (pthread_create(&t[i], NULL, worker, &jobs[i]))
			return 1;
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("demo: done (%llu)\n", (unsigned long long)(sink & 0xff));
	return 0;
}
