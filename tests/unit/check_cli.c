/*
 * check_cli.c: common/cli.c, the option values every tool parses: what is
 * taken, what is refused, and which error says why.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"

START_TEST(uint_takes_whole_numbers_in_range)
{
	uint64_t v = 7;

	ck_assert_int_eq(sp_cli_uint("0", 0, 10, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(sp_cli_uint("10", 1, 10, &v), 0);
	ck_assert_uint_eq(v, 10);
	ck_assert_int_eq(sp_cli_uint("18446744073709551615", 0, UINT64_MAX, &v),
			 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(sp_cli_uint("11", 1, 10, &v), -ERANGE);
	ck_assert_int_eq(sp_cli_uint("0", 1, 10, &v), -ERANGE);
	ck_assert_int_eq(sp_cli_uint("18446744073709551616", 0, UINT64_MAX, &v),
			 -ERANGE);
	/* strtoull takes each of these; a command line must not. */
	ck_assert_int_eq(sp_cli_uint("-1", 0, UINT64_MAX, &v), -EINVAL);
	ck_assert_int_eq(sp_cli_uint("+1", 0, 10, &v), -EINVAL);
	ck_assert_int_eq(sp_cli_uint(" 1", 0, 10, &v), -EINVAL);
	ck_assert_int_eq(sp_cli_uint("1 ", 0, 10, &v), -EINVAL);
	ck_assert_int_eq(sp_cli_uint("", 0, 10, &v), -EINVAL);
	ck_assert_int_eq(sp_cli_uint("0x10", 0, 100, &v), -EINVAL);
	ck_assert_uint_eq(v, UINT64_MAX); /* untouched by the failures */
}
END_TEST

START_TEST(real_takes_finite_numbers_in_range)
{
	double v = 0;

	ck_assert_int_eq(sp_cli_real("0.5", 0.001, 10, &v), 0);
	ck_assert(v == 0.5);
	ck_assert_int_eq(sp_cli_real(".25", 0, 10, &v), 0);
	ck_assert(v == 0.25);
	ck_assert_int_eq(sp_cli_real("1e3", 0, 1e6, &v), 0);
	ck_assert(v == 1000);
	ck_assert_int_eq(sp_cli_real("0.0001", 0.001, 10, &v), -ERANGE);
	ck_assert_int_eq(sp_cli_real("1e400", 0, 1e300, &v), -ERANGE);
	ck_assert_int_eq(sp_cli_real("-1", -5, 5, &v), -EINVAL);
	ck_assert_int_eq(sp_cli_real("inf", 0, 1e300, &v), -EINVAL);
	ck_assert_int_eq(sp_cli_real("nan", 0, 1, &v), -EINVAL);
	ck_assert_int_eq(sp_cli_real("1s", 0, 10, &v), -EINVAL);
	ck_assert_int_eq(sp_cli_real(".", 0, 10, &v), -EINVAL);
	ck_assert(v == 1000);
}
END_TEST

START_TEST(size_takes_binary_suffixes)
{
	uint64_t v = 0;

	ck_assert_int_eq(sp_cli_size("4096", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(sp_cli_size("64M", &v), 0);
	ck_assert_uint_eq(v, 64ull << 20);
	ck_assert_int_eq(sp_cli_size("2G", &v), 0);
	ck_assert_uint_eq(v, 2ull << 30);
	ck_assert_int_eq(sp_cli_size("1K", &v), 0);
	ck_assert_uint_eq(v, 1024);
	ck_assert_int_eq(sp_cli_size("17179869184G", &v), -ERANGE);
	ck_assert_int_eq(sp_cli_size("99999999999999999999999999999999", &v),
			 -ERANGE);
	ck_assert_int_eq(sp_cli_size("M", &v), -EINVAL);
	ck_assert_int_eq(sp_cli_size("1MB", &v), -EINVAL);
	ck_assert_int_eq(sp_cli_size("1m", &v), -EINVAL);
	ck_assert_int_eq(sp_cli_size("-1", &v), -EINVAL);
	ck_assert_int_eq(sp_cli_size("", &v), -EINVAL);
}
END_TEST

struct seen {
	char text[64];
	int n;
	int stop_at;
};

static int
collect(const char *tok, void *ctx)
{
	struct seen *s = ctx;

	if (++s->n == s->stop_at)
		return -E2BIG;
	strncat(s->text, tok, sizeof(s->text) - strlen(s->text) - 2);
	strcat(s->text, "|");
	return 0;
}

START_TEST(each_splits_and_stops)
{
	struct seen s = { "", 0, 0 };

	ck_assert_int_eq(sp_cli_each("12 34,,56\t", ", \t\n", collect, &s), 0);
	ck_assert_str_eq(s.text, "12|34|56|");
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(sp_cli_each(" , ", ", ", collect, &s), -ENODATA);
	ck_assert_int_eq(s.n, 0);
	s.stop_at = 2;
	ck_assert_int_eq(sp_cli_each("a,b,c", ",", collect, &s), -E2BIG);
	ck_assert_str_eq(s.text, "a|");
}
END_TEST

/*
 * Standard output to a pipe whose reader is gone: the close reports
 * -EPIPE (SIGPIPE ignored, as the check runs in a child).
 */
START_TEST(close_stdout_reports_the_write_error)
{
	int fds[2];

	ck_assert_int_eq(pipe(fds), 0);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_ge(dup2(fds[1], STDOUT_FILENO), 0);
	close(fds[0]);
	close(fds[1]);
	printf("lost\n");
	ck_assert_int_eq(sp_cli_close_stdout(), -EPIPE);
}
END_TEST

START_TEST(close_stdout_is_quiet_when_all_went_out)
{
	ck_assert(freopen("/dev/null", "w", stdout) != NULL);
	printf("kept\n");
	ck_assert_int_eq(sp_cli_close_stdout(), 0);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("values");

	tcase_add_test(tc, uint_takes_whole_numbers_in_range);
	tcase_add_test(tc, real_takes_finite_numbers_in_range);
	tcase_add_test(tc, size_takes_binary_suffixes);
	tcase_add_test(tc, each_splits_and_stops);
	tcase_add_test(tc, close_stdout_reports_the_write_error);
	tcase_add_test(tc, close_stdout_is_quiet_when_all_went_out);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
