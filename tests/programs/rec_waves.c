/*
 * rec_waves.c: threads that come and go, for the ptrace thread-table
 * test: WAVES waves of THREADS busy threads, each wave spinning SECONDS
 * and joined before the next starts.
 *
 *   rec_waves [WAVES [THREADS [SECONDS]]]     (default 4 8 0.3)
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static double secs = 0.3;
static volatile unsigned long sink;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *
busy(void *arg)
{
	double end = now() + secs;
	unsigned long i;

	(void)arg;
	while (now() < end)
		for (i = 0; i < 10000; i++)
			sink += i;
	return NULL;
}

int
main(int argc, char **argv)
{
	int waves = argc > 1 ? atoi(argv[1]) : 4;
	int n = argc > 2 ? atoi(argv[2]) : 8, w, i;
	pthread_t *t;

	if (argc > 3)
		secs = atof(argv[3]);
	if (waves < 1 || n < 1 || !(t = calloc((size_t)n, sizeof(*t))))
		return 2;
	for (w = 0; w < waves; w++) {
		for (i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, busy, NULL) != 0)
				return 1;
		for (i = 0; i < n; i++)
			pthread_join(t[i], NULL);
	}
	free(t);
	return 0;
}
