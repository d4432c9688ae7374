/*
 * check_pyruntime.c: which module paths name a Python runtime: the
 * names CPython installs (interpreters with their ABI flags, libpython),
 * as paths and as basenames, replaced on disk or not; and the names that
 * only look like them.  sp-record and sp-symbolize both ask this.
 */
#include "tests/unit/ck.h"
#include <string.h>

#include "common/pyruntime.h"

static bool
runtime(const char *s)
{
	return sp_pyruntime_path(s, strlen(s));
}

START_TEST(what_cpython_installs)
{
	static const char *const yes[] = {
		"python",
		"python3",
		"python3.12",
		"/usr/bin/python3.11",
		"/usr/local/bin/python3.13",
		"/usr/bin/python3.11d", /* --with-pydebug */
		"/usr/bin/python3.7m",  /* pymalloc, 3.7 and before */
		"/usr/bin/python3.7dm", /* both, in configure's order */
		"/usr/bin/python3.2mu", /* wide unicode, 3.2 */
		"/opt/py/bin/python3.13d",
		"libpython3.11.so.1.0",
		"/usr/lib/x86_64-linux-gnu/libpython3.12.so.1.0",
		"/usr/lib/x86_64-linux-gnu/libpython3.11d.so.1.0",
		"/usr/lib/libpython3.7m.so.1.0",
		"/usr/bin/python3.11 (deleted)", /* upgraded while it ran */
	};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		ck_assert_msg(runtime(yes[i]), "%s", yes[i]);
}
END_TEST

START_TEST(what_only_looks_like_it)
{
	static const char *const no[] = {
		"",
		"py",
		"pytho",
		"bash",
		"/usr/lib/libc.so.6",
		"/usr/bin/python-config",
		"/usr/bin/python3.11-config",
		"/usr/bin/pythonista",
		"/usr/bin/python3.11-dbg", /* Debian's link to python3.11d */
		"/usr/bin/python3.13t",    /* free-threaded: not read */
		"pythond3",                /* a flag before the version */
		"python3m.1",              /* a flag inside the version */
		"/home/python3/bin/app",   /* only a directory's name */
		"/usr/bin/pypy3",
		"[anon:python3]",
	};
	size_t i;

	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ck_assert_msg(!runtime(no[i]), "%s", no[i]);
}
END_TEST

/* The length bounds the name: a longer buffer's rest is not read. */
START_TEST(the_length_bounds_the_name)
{
	ck_assert(sp_pyruntime_path("python3.11-config", 10));
	ck_assert(!sp_pyruntime_path("python3.11", 5));
	ck_assert(sp_pyruntime_path("/usr/bin/python3/x", 16));
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("pyruntime");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, what_cpython_installs);
	tcase_add_test(tc, what_only_looks_like_it);
	tcase_add_test(tc, the_length_bounds_the_name);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
