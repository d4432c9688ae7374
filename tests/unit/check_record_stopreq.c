/*
 * check_record_stopreq.c: the stop requests' grace bound (stopreq.h).
 * Each test installs the handlers in its own process (Check forks one
 * per test); the signals are raised by hand, so no test waits for the
 * grace's seconds.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/unit/ck.h"
#include "sp-record/sys/stopreq.h"

/*
 * Runs `steps` in a child with stderr on a pipe; returns its wait status
 * and puts what it wrote in `out`.
 */
static int
in_child(void (*steps)(void), char *out, size_t cap)
{
	int fds[2], status = -1;
	size_t n = 0;
	ssize_t got;
	pid_t pid;

	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		steps();
		_exit(0);
	}
	close(fds[1]);
	while (n + 1 < cap && (got = read(fds[0], out + n, cap - 1 - n)) > 0)
		n += (size_t)got;
	out[n] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

/* -d's end arms the grace; its end, still in a step, ends at once. */
static void
stuck_in_a_step(void)
{
	rec_stopreq_install();
	rec_stopreq_doing("writing the spool");
	raise(SIGALRM); /* -d's end */
	raise(SIGALRM); /* the grace's */
}

START_TEST(the_grace_ends_a_recorder_stuck_in_a_step)
{
	char err[256];
	int st = in_child(stuck_in_a_step, err, sizeof(err));

	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 1);
	ck_assert_str_eq(err, "sp-record: did not stop in time (writing the "
			      "spool): ending at once\n");
}
END_TEST

/*
 * The loop ended on its own clock, a moment before -d's timer: the
 * timer's signal, come after the disarm, ends nothing.  (CI saw this
 * race twice: a one-second recording ended with status 1.)
 */
static void
alarm_after_the_stop_began(void)
{
	rec_stopreq_install();
	rec_stopreq_deadline(60);
	rec_stopreq_doing(NULL);
	rec_stopreq_disarm();
	raise(SIGALRM);
	raise(SIGALRM);
}

START_TEST(a_late_alarm_ends_nothing)
{
	char err[256];
	int st = in_child(alarm_after_the_stop_began, err, sizeof(err));

	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	ck_assert_str_eq(err, "");
}
END_TEST

START_TEST(a_first_request_after_the_stop_began_arms_nothing)
{
	rec_stopreq_install();
	rec_stopreq_disarm();
	raise(SIGINT);
	ck_assert_int_eq(rec_stopreq_signal, SIGINT);
	/* No grace timer runs: the orderly stop is under way. */
	ck_assert_uint_eq(alarm(0), 0);
}
END_TEST

START_TEST(a_request_arms_the_grace)
{
	rec_stopreq_install();
	raise(SIGTERM);
	ck_assert_int_eq(rec_stopreq_signal, SIGTERM);
	ck_assert_uint_eq(alarm(0), REC_STOPREQ_GRACE_S);
}
END_TEST

/* A second request a second or more after the first ends at once. */
static void
asked_twice(void)
{
	rec_stopreq_install();
	raise(SIGINT);
	sleep(1);
	raise(SIGINT);
}

START_TEST(a_second_request_ends_at_once)
{
	char err[256];
	int st = in_child(asked_twice, err, sizeof(err));

	ck_assert(WIFSIGNALED(st));
	ck_assert_int_eq(WTERMSIG(st), SIGINT);
	ck_assert_str_eq(err,
			 "sp-record: did not stop in time: ending at once\n");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_stopreq");
	TCase *tc = tcase_create("grace");

	tcase_add_test(tc, the_grace_ends_a_recorder_stuck_in_a_step);
	tcase_add_test(tc, a_late_alarm_ends_nothing);
	tcase_add_test(tc, a_first_request_after_the_stop_began_arms_nothing);
	tcase_add_test(tc, a_request_arms_the_grace);
	tcase_add_test(tc, a_second_request_ends_at_once);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
