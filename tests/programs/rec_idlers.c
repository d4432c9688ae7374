/*
 * rec_idlers.c: one busy thread among many sleeping ones, as in a process
 * with a large thread pool, for the --ptrace cost benchmark
 * (bench/record-ptrace-threads.sh).  With "sleep", the main thread
 * sleeps too: a test that needs only the threads to exist (t1042) then
 * leaves the CPU to the other tests.
 *
 *   rec_idlers [SECONDS [IDLE_THREADS [sleep]]]  (default 5 s, 500 threads)
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static void *
idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	int n = argc > 2 ? atoi(argv[2]) : 500, i;
	struct timespec ts, now;
	pthread_attr_t a;
	pthread_t t;
	unsigned long k;

	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (i = 0; i < n; i++)
		if (pthread_create(&t, &a, idle, NULL) != 0)
			return 1;
	if (argc > 3 && strcmp(argv[3], "sleep") == 0) {
		ts.tv_sec = (time_t)secs;
		ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	do {
		for (k = 0; k < 100000; k++)
			sink += k;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - ts.tv_sec) +
		     (double)(now.tv_nsec - ts.tv_nsec) / 1e9 <
		 secs);
	return 0;
}
