/*
 * rec_forkexec.c: forks a child that spins briefly, then executes another
 * program, for the sp-record fork/exec tests.
 *
 *   rec_forkexec SECONDS PROGRAM [ARG...]
 *
 * The parent spins in parent_spin for SECONDS and waits for the child; the
 * child spins in child_spin for a tenth of a second, then executes
 * PROGRAM ARG...  Exits 0 when the child exited 7 (rec_chain does).
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void
child_spin(double secs)
{
	double end = now() + secs;
	unsigned long i;

	while (now() < end)
		for (i = 0; i < 100000; i++)
			sink += i;
}

__attribute__((noinline)) void
parent_spin(double secs)
{
	double end = now() + secs;
	unsigned long i;

	while (now() < end)
		for (i = 0; i < 100000; i++)
			sink += i;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	int st;
	pid_t pid;

	if (argc < 3)
		return 2;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		child_spin(0.1);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	parent_spin(secs);
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : 1;
}
