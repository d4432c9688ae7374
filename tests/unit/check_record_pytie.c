/*
 * check_record_pytie.c: a Python stack's groups tied to the native
 * evaluator frames they ran in (sp-record/pytie.c), over native stacks
 * laid out here.
 */
#include "tests/unit/ck.h"
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sp-record/python/pyfind.h"
#include "sp-record/python/pytie.h"

#define EVAL 0x5000u /* _PyEval_EvalFrameDefault: [0x5000, 0x6000) */
#define OTHER 0x9000u

static const struct rec_pyfind_target target = { .minor = 10,
						 .eval_start = EVAL,
						 .eval_end = EVAL + 0x1000 };

/* Lays out frames from a pattern, leaf first: 'e' evaluator, 'o' other,
 * 'k' a kernel frame at an evaluator address. */
static size_t
layout(const char *pat, struct sp_frame *f)
{
	size_t i;

	for (i = 0; pat[i]; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].mode = pat[i] == 'k' ? SP_FRAME_KERNEL : SP_FRAME_USER;
		f[i].abs_ip = (pat[i] == 'o' ? OTHER : EVAL) + i;
	}
	return i;
}

static struct sp_ext_pystack
chain(uint8_t flags)
{
	struct sp_ext_pystack s;

	memset(&s, 0, sizeof(s));
	s.leaf = 7;
	s.flags = flags;
	return s;
}

START_TEST(test_fit)
{
	struct sp_frame f[8];
	struct sp_ext_pystack s = chain(0);
	size_t n = layout("koeoeo", f);

	ck_assert(!rec_pytie(&target, f, n, 2, true, &s));
	ck_assert_uint_eq(s.flags, 0);
	ck_assert_uint_eq(s.ngroups, 2);
	ck_assert_uint_eq(s.index[0], 4); /* the outermost group */
	ck_assert_uint_eq(s.index[1], 2);
}
END_TEST

/* One evaluator more, read at the sample: the innermost stays native. */
START_TEST(test_entering)
{
	struct sp_frame f[8];
	struct sp_ext_pystack s = chain(0);
	size_t n = layout("oeoeoeo", f);

	ck_assert(rec_pytie(&target, f, n, 2, true, &s));
	ck_assert_uint_eq(s.flags, 0);
	ck_assert_uint_eq(s.ngroups, 2);
	ck_assert_uint_eq(s.index[0], 5);
	ck_assert_uint_eq(s.index[1], 3);
	/* read late, the chain may be any other: it does not fit */
	s = chain(0);
	ck_assert(!rec_pytie(&target, f, n, 2, false, &s));
	ck_assert_uint_eq(s.flags, SP_PYSTACK_INCONSISTENT);
	ck_assert_uint_eq(s.ngroups, 0);
	/* two more does not fit either */
	s = chain(0);
	ck_assert(!rec_pytie(&target, f, n, 1, true, &s));
	ck_assert_uint_eq(s.flags, SP_PYSTACK_INCONSISTENT);
}
END_TEST

/* A chain cut before its root ties its groups to the inner evaluators. */
START_TEST(test_cut_chain)
{
	struct sp_frame f[8];
	struct sp_ext_pystack s = chain(SP_PYSTACK_TRUNCATED);
	size_t n = layout("oeoeoeo", f);

	ck_assert(!rec_pytie(&target, f, n, 2, true, &s));
	ck_assert_uint_eq(s.flags, SP_PYSTACK_TRUNCATED);
	ck_assert_uint_eq(s.ngroups, 2);
	ck_assert_uint_eq(s.index[0], 3);
	ck_assert_uint_eq(s.index[1], 1);
}
END_TEST

START_TEST(test_misfits)
{
	struct sp_frame f[8];
	struct sp_ext_pystack s = chain(0);
	size_t n = layout("oeo", f);

	/* more groups than evaluators */
	ck_assert(!rec_pytie(&target, f, n, 2, true, &s));
	ck_assert_uint_eq(s.flags, SP_PYSTACK_INCONSISTENT);
	/* evaluators but no chain; none when the chain was given up */
	s = chain(0);
	s.leaf = SP_NONE;
	ck_assert(!rec_pytie(&target, f, n, 0, true, &s));
	ck_assert_uint_eq(s.flags, SP_PYSTACK_INCONSISTENT);
	s = chain(SP_PYSTACK_TRUNCATED);
	s.leaf = SP_NONE;
	ck_assert(!rec_pytie(&target, f, n, 0, true, &s));
	ck_assert_uint_eq(s.flags, SP_PYSTACK_TRUNCATED);
	/* a kernel frame at an evaluator address is no evaluator */
	s = chain(0);
	n = layout("keo", f);
	ck_assert(!rec_pytie(&target, f, n, 1, false, &s));
	ck_assert_uint_eq(s.ngroups, 1);
	ck_assert_uint_eq(s.index[0], 1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_pytie");
	TCase *tc = tcase_create("tie");

	tcase_add_test(tc, test_fit);
	tcase_add_test(tc, test_entering);
	tcase_add_test(tc, test_cut_chain);
	tcase_add_test(tc, test_misfits);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
