/*
 * pingpong.c: two threads handing a byte back and forth through pipes,
 * for bench/offcpu-overhead.sh: each round trip is two context switches
 * on one CPU.
 *
 *   pingpong ROUNDS [SPIN]   SPIN iterations of work before each round;
 *                            prints rounds/s and its own CPU seconds
 *   pingpong --calibrate SWITCHES_PER_SECOND
 *                            prints the SPIN that paces it to that rate
 *
 * With no work the threads do nothing but switch (about 290,000 a
 * second here); the work makes a program that computes between handoffs
 * at a rate a busy server sees, so that a recorder's cost shows as a
 * slowdown of that program.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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

/* Work the compiler cannot drop. */
static void
spin(long n)
{
	volatile unsigned long x = 1;

	while (n-- > 0)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
}

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Seconds a round takes with `n` spins, over `r` rounds. */
static double
run(long r, long n)
{
	pthread_t t;
	char c = 'x';
	double a;
	long i;

	rounds = r;
	a = now();
	pthread_create(&t, NULL, pong, NULL);
	for (i = 0; i < r; i++) {
		spin(n);
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			abort();
	}
	pthread_join(t, NULL);
	return (now() - a) / r;
}

int
main(int argc, char **argv)
{
	struct rusage ru;
	double round, per_spin, a;
	long n = 0;

	if (pipe(ab) || pipe(ba))
		return 1;
	if (argc > 2 && strcmp(argv[1], "--calibrate") == 0) {
		round = run(20000, 0);
		a = now();
		spin(20000000);
		per_spin = (now() - a) / 20000000;
		/* Two switches a round. */
		n = (long)((2.0 / atof(argv[2]) - round) / per_spin);
		printf("%ld\n", n > 0 ? n : 0);
		return 0;
	}
	if (argc > 2)
		n = atol(argv[2]);
	round = run(argc > 1 ? atol(argv[1]) : 100000, n);
	getrusage(RUSAGE_SELF, &ru);
	printf("%.0f %.3f\n", 1 / round,
	       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		   ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return 0;
}
