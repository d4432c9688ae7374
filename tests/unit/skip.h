/*
 * skip.h: how a unit test that cannot run here says so.  Check runs each
 * test in a child process, so a skip is written to a file that the
 * suite's main reads after the run: unit_skip() in a test, and
 * unit_run() in main, which returns the exit status (0 all passed, 1 a
 * failure, 77 nothing failed but something was skipped, which
 * tests/run.sh counts as a skip, not a pass).  Static, for the one test
 * file that includes it.
 */
#ifndef TESTS_UNIT_SKIP_H
#define TESTS_UNIT_SKIP_H

#include "tests/unit/ck.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Prints "SKIP: why" and notes it for unit_run(). */
__attribute__((format(printf, 1, 2))) static void
unit_skip(const char *fmt, ...)
{
	const char *path = getenv("SP_CHECK_SKIPS");
	FILE *f = path ? fopen(path, "a") : NULL;
	va_list ap;

	va_start(ap, fmt);
	printf("SKIP: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	if (f) {
		va_start(ap, fmt);
		vfprintf(f, fmt, ap);
		fputc('\n', f);
		va_end(ap);
		fclose(f);
	}
}

/* Runs every test of `sr`, frees it; returns 0, 1 or 77 as above. */
static int
unit_run(SRunner *sr)
{
	char path[] = "/tmp/sp-check-skips.XXXXXX", line[512];
	int fd = mkstemp(path), failed, skipped = 0;
	FILE *f;

	if (fd >= 0) {
		close(fd);
		setenv("SP_CHECK_SKIPS", path, 1);
	}
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	f = fd >= 0 ? fopen(path, "r") : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		printf("SKIP: %s", line);
		skipped++;
	}
	if (f)
		fclose(f);
	if (fd >= 0)
		unlink(path);
	if (failed)
		return 1;
	return skipped ? 77 : 0;
}

#endif
