/*
 * fixture.h: what unit tests that build programs at test time share:
 * running a shell command, finding tests/programs, and a scratch folder.
 * Static, for the one test file that includes it.
 */
#ifndef TESTS_UNIT_FIXTURE_H
#define TESTS_UNIT_FIXTURE_H

#include "tests/unit/ck.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs the formatted command with sh; returns system(3)'s status. */
static __attribute__((unused)) int
sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int rc;

	va_start(ap, fmt);
	ck_assert_int_ge(vasprintf(&cmd, fmt, ap), 0);
	va_end(ap);
	rc = system(cmd);
	free(cmd);
	return rc;
}

/* tests/programs under $SP_TOP, or under the working directory. */
static __attribute__((unused)) const char *
programs(void)
{
	const char *top = getenv("SP_TOP");
	static char buf[4096], cwd[2048];

	if (!top)
		top = getcwd(cwd, sizeof(cwd));
	ck_assert_ptr_nonnull(top);
	snprintf(buf, sizeof(buf), "%s/tests/programs", top);
	return buf;
}

/*
 * The test file's scratch folder: fixture_mkdir("NAME") makes it as
 * /tmp/sp-NAME.XXXXXX, fixture_remove() removes it (a checked fixture
 * makes one per test).
 */
static __attribute__((unused)) char fixture_dir[64];

static __attribute__((unused)) void
fixture_mkdir(const char *name)
{
	snprintf(fixture_dir, sizeof(fixture_dir), "/tmp/sp-%s.XXXXXX", name);
	ck_assert_ptr_nonnull(mkdtemp(fixture_dir));
}

static __attribute__((unused)) void
fixture_remove(void)
{
	ck_assert_int_eq(sh("rm -rf %s", fixture_dir), 0);
}

/* fixture_dir/NAME, in one of four buffers: a call can take four. */
static __attribute__((unused)) char *
fixture_path(const char *name)
{
	static char buf[4][4096];
	static int n;

	n = (n + 1) % 4;
	snprintf(buf[n], sizeof(buf[n]), "%s/%s", fixture_dir, name);
	return buf[n];
}

#endif
