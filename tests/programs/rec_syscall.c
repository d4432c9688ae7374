/*
 * rec_syscall.c: spends its time in system calls (small writes to
 * /dev/null from in_syscalls), for the sp-record kernel-stack tests and
 * t4006's kernel frames.
 *
 *   rec_syscall SECONDS      wall time
 *   rec_syscall SECONDSc     its own CPU time (budget.h)
 */
#include <fcntl.h>
#include <unistd.h>

#include "budget.h"

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
	struct budget b;
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0)
		return 1;
	budget_start(&b, argc, argv, 1);
	while (budget_left(&b))
		in_syscalls(fd);
	return 0;
}
