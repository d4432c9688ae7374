/*
 * pingpong.c: two threads handing a byte back and forth through pipes,
 * for bench/offcpu-overhead.sh: each round trip is two context switches
 * on one CPU.  Usage: pingpong ROUNDS; prints the rounds per second.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long rounds;

static void *
pong(void *arg)
{
	char c;
	long i;

	(void)arg;
	for (i = 0; i < rounds; i++)
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			abort();
	return NULL;
}

int
main(int argc, char **argv)
{
	struct timespec a, b;
	pthread_t t;
	char c = 'x';
	long i;

	rounds = argc > 1 ? atol(argv[1]) : 100000;
	if (pipe(ab) || pipe(ba))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	pthread_create(&t, NULL, pong, NULL);
	for (i = 0; i < rounds; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			abort();
	pthread_join(t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.0f\n", rounds / (b.tv_sec - a.tv_sec +
				   (b.tv_nsec - a.tv_nsec) / 1e9));
	return 0;
}
