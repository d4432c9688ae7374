/*
 * fixture.h: what unit tests that build programs at test time share:
 * running a shell command and finding tests/programs.  Static, for the
 * one test file that includes it.
 */
#ifndef TESTS_UNIT_FIXTURE_H
#define TESTS_UNIT_FIXTURE_H

#include "tests/unit/ck.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

#endif
