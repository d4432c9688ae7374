/*
 * ck.h: Check, without a message per passing assertion.  Every ck_assert
 * that holds calls _mark_point(), which writes the file and line down
 * Check's pipe to the parent and flushes it: a write(2) per assertion,
 * 4 of the 6 CPU-seconds of a table test that asserts in a loop.  A
 * failed assertion still reports its own file and line; what is lost is
 * the last passing line when a test crashes, which the sanitizers' stack
 * traces give instead.  Unit tests include this, not <check.h>.
 */
#ifndef TESTS_UNIT_CK_H
#define TESTS_UNIT_CK_H

#include <check.h>

#undef mark_point
#define mark_point() ((void)0)
#define _mark_point(file, line) ((void)0)

#endif
