/*
 * launch.h: the one way sp-record starts a command, in perf and ptrace
 * modes alike.
 *
 * The child is forked first and held before execvp until the recorder is
 * ready for it (events opened, or the child seized with ptrace), so the
 * command's first instruction is recorded.  Before it executes, the child
 * gets back the signal dispositions and mask a shell would give it (the
 * recorder ignores or blocks some), and, when the spool goes to stdout,
 * its stdout is moved to stderr so its output cannot corrupt the spool.
 *
 *   struct rec_launch_child c;
 *   rec_launch_fork(&c, argv, spool_on_stdout);   child waits
 *   ... open events on c.pid, or seize it ...
 *   rec_launch_start(&c);                         child executes
 *   e = rec_launch_exec_errno(&c);                0: the command runs
 *   (or, when it must not run: rec_launch_abort(&c))
 */
#ifndef SP_RECORD_SYS_LAUNCH_H
#define SP_RECORD_SYS_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

struct rec_launch_child {
	pid_t pid;
	int go;     /* write end: one byte lets the child execute */
	int report; /* read end: the child's execvp errno, or EOF */
};

/*
 * Forks the child for argv (argv[0] searched in PATH).  Returns 0, or a
 * negative errno with nothing left behind.
 */
int rec_launch_fork(struct rec_launch_child *c, char *const argv[],
		    bool stdout_to_stderr);

/* Lets the child execute.  Returns 0 or -EIO (the child is gone). */
int rec_launch_start(struct rec_launch_child *c);

/*
 * Waits until the command has been executed or the child gave up, and
 * returns 0 when it was, else the errno of its execvp.  Closes the last
 * pipe.  A traced child must already have passed its exec stop (or
 * exited), since the report comes only when the exec closes the pipe.
 */
int rec_launch_exec_errno(struct rec_launch_child *c);

/* Kills a child that must not run and closes its pipes; reap it. */
void rec_launch_abort(struct rec_launch_child *c);

#endif
