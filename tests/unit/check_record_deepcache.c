/*
 * check_record_deepcache.c: the outer frames of deep stacks kept per
 * process (sp-record/deepcache.c): a frame is found by its state, its
 * BP counting only where the chain above depends on it, and a chain
 * replaces the one a sample took frames from, else the oldest.
 */
#include "tests/unit/ck.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/unwind/deepcache.h"

#define N 300

static struct rec_deepcache_step v[N];

/* A chain of N frames 64 bytes apart from `sp`; frame i's pc is pc + i. */
static void
chain(uint64_t pc, uint64_t sp)
{
	size_t i;

	memset(v, 0, sizeof(v));
	for (i = 0; i < N; i++) {
		v[i].at = pc + i;
		v[i].ip = pc + i + 1;
		v[i].sp = sp + 64 * i;
		v[i].bp = 1000 + i;
		v[i].have_bp = true;
		v[i].keeps_bp = true;
	}
}

/* Whether frame i of the chain last made is found, at its index. */
static bool
found(const struct rec_deepcache *dc, size_t i, uint64_t bp)
{
	const struct rec_deepcache_chain *c;
	struct rec_deepcache_step s = v[i];
	size_t j;

	s.bp = bp;
	return rec_deepcache_find(dc, &s, &c, &j) && j == i &&
	       c->v[j].sp == v[i].sp && c->n == N;
}

START_TEST(test_find)
{
	struct rec_deepcache dc = REC_DEEPCACHE_INIT;
	const struct rec_deepcache_chain *c;
	struct rec_deepcache_step s;
	size_t i, j;

	chain(0x1000, 0x7000000);
	ck_assert(!found(&dc, 5, v[5].bp));
	ck_assert_int_eq(rec_deepcache_put(&dc, v, N, NULL), 0);
	for (i = 0; i < N; i++)
		ck_assert(found(&dc, i, 7)); /* no frame uses BP */
	s = v[7];
	s.at++; /* another pc at the same SP */
	ck_assert(!rec_deepcache_find(&dc, &s, &c, &j));
	s = v[7];
	s.ip++;
	ck_assert(!rec_deepcache_find(&dc, &s, &c, &j));
	s = v[7];
	s.sp += 8; /* between two frames */
	ck_assert(!rec_deepcache_find(&dc, &s, &c, &j));
	rec_deepcache_release(&dc);
	ck_assert(!found(&dc, 5, v[5].bp));
}
END_TEST

/*
 * Frame 200 computes its CFA from BP: it and the frames below it that
 * hand BP on unsaved depend on their BP; frame 100 saves its own, so
 * the frames below it do not (its step reads the BP its caller needs).
 */
START_TEST(test_bp_dependence)
{
	struct rec_deepcache dc = REC_DEEPCACHE_INIT;

	chain(0x1000, 0x7000000);
	v[200].uses_bp = true;
	v[100].keeps_bp = false;
	ck_assert_int_eq(rec_deepcache_put(&dc, v, N, NULL), 0);
	ck_assert(found(&dc, 250, 7));
	ck_assert(found(&dc, 200, v[200].bp));
	ck_assert(!found(&dc, 200, 7));
	ck_assert(!found(&dc, 150, 7));
	ck_assert(found(&dc, 150, v[150].bp));
	ck_assert(!found(&dc, 101, 7));
	ck_assert(found(&dc, 100, 7)); /* its caller's BP is read */
	ck_assert(found(&dc, 99, 7));
	ck_assert(found(&dc, 0, 7));
	rec_deepcache_release(&dc);
}
END_TEST

/* A process's threads: four chains kept, the fifth replaces the oldest. */
START_TEST(test_replace)
{
	struct rec_deepcache dc = REC_DEEPCACHE_INIT;
	const struct rec_deepcache_chain *c;
	size_t t, j;

	for (t = 0; t < REC_DEEPCACHE_CHAINS; t++) {
		chain(0x1000, 0x7000000 + t * 0x100000);
		ck_assert_int_eq(rec_deepcache_put(&dc, v, N, NULL), 0);
	}
	for (t = 0; t < REC_DEEPCACHE_CHAINS; t++) {
		chain(0x1000, 0x7000000 + t * 0x100000);
		ck_assert(found(&dc, 10, 0));
	}
	/* the thread of the chain a sample took frames from: in its place */
	chain(0x1000, 0x7000000 + 0x100000);
	ck_assert(rec_deepcache_find(&dc, &v[3], &c, &j));
	chain(0x2000, 0x7000000 + 0x100000);
	ck_assert_int_eq(rec_deepcache_put(&dc, v, N, c), 0);
	ck_assert(found(&dc, 3, 0));
	chain(0x1000, 0x7000000 + 0x100000);
	ck_assert(!found(&dc, 3, 0));
	chain(0x1000, 0x7000000);
	ck_assert(found(&dc, 3, 0)); /* the others stay */
	/* a fifth thread: the oldest goes */
	chain(0x1000, 0x9000000);
	ck_assert_int_eq(rec_deepcache_put(&dc, v, N, NULL), 0);
	ck_assert(found(&dc, 3, 0));
	chain(0x1000, 0x7000000);
	ck_assert(!found(&dc, 3, 0));
	rec_deepcache_release(&dc);
}
END_TEST

static Suite *
deepcache_suite(void)
{
	Suite *s = suite_create("record_deepcache");
	TCase *tc = tcase_create("chains");

	tcase_add_test(tc, test_find);
	tcase_add_test(tc, test_bp_dependence);
	tcase_add_test(tc, test_replace);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return ck_run(deepcache_suite());
}
