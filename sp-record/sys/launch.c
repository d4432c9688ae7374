/*
 * launch.c: forks a command held before exec (launch.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "sp-record/sys/launch.h"
#include "common/banned.h"

/* What a command expects from a shell: default dispositions, no mask. */
static void
reset_signals(void)
{
	struct sigaction dfl;
	sigset_t none;
	int s;

	sigemptyset(&dfl.sa_mask);
	dfl.sa_flags = 0;
	dfl.sa_handler = SIG_DFL;
	for (s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL); /* EINVAL: no such */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static void __attribute__((noreturn))
child(char *const argv[], bool stdout_to_stderr, int go, int report)
{
	char c;
	int e;

	reset_signals();
	if (stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(127);
	if (read(go, &c, 1) != 1)
		_exit(127); /* the recorder gave up */
	execvp(argv[0], argv);
	e = errno;
	if (write(report, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(e == ENOENT ? 127 : 126);
}

int
rec_launch_fork(struct rec_launch_child *c, char *const argv[],
		bool stdout_to_stderr)
{
	int go[2], report[2], e;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(report, O_CLOEXEC) < 0) {
		e = -errno;
		close(go[0]);
		close(go[1]);
		return e;
	}
	fflush(NULL);
	if ((c->pid = fork()) < 0) {
		e = -errno;
		close(go[0]);
		close(go[1]);
		close(report[0]);
		close(report[1]);
		return e;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(report[0]);
		child(argv, stdout_to_stderr, go[0], report[1]);
	}
	close(go[0]);
	close(report[1]);
	c->go = go[1];
	c->report = report[0];
	return 0;
}

int
rec_launch_start(struct rec_launch_child *c)
{
	int r = write(c->go, "g", 1) == 1 ? 0 : -EIO;

	close(c->go);
	c->go = -1;
	return r;
}

int
rec_launch_exec_errno(struct rec_launch_child *c)
{
	ssize_t n;
	int e;

	do
		n = read(c->report, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->report);
	c->report = -1;
	return n == (ssize_t)sizeof(e) ? e : 0;
}

void
rec_launch_abort(struct rec_launch_child *c)
{
	if (c->go >= 0)
		close(c->go); /* the child exits without executing */
	if (c->report >= 0)
		close(c->report);
	c->go = c->report = -1;
	kill(c->pid, SIGKILL);
}
