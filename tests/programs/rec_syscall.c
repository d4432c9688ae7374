/*
 * rec_syscall.c: spends its time in system calls (small writes to
 * /dev/null from in_syscalls), for the sp-record kernel-stack tests.
 *
 *   rec_syscall SECONDS
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void
in_syscalls(int fd)
{
	static char buf[4096];
	int i;

	for (i = 0; i < 1000; i++)
		if (write(fd, buf, sizeof(buf)) < 0)
			_exit(1);
}

int
main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1);
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0)
		return 1;
	while (now() < end)
		in_syscalls(fd);
	return 0;
}
