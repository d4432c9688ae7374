/*
 * check_record_tidq.c: records written at samples, kept by thread and
 * paired with their samples by time (sp-record/tidq.c).
 */
#include "tests/unit/ck.h"
#include <stdint.h>
#include <stdlib.h>

#include "sp-record/bpf/tidq.h"

/* A record holding `v`, as the table keeps them (malloc'd). */
static int *
rec(int v)
{
	int *p = malloc(sizeof(*p));

	ck_assert_ptr_nonnull(p);
	*p = v;
	return p;
}

/* The value of the record taken for (tid, ts), or -1 for none. */
static int
take(struct rec_tidq *q, int32_t tid, uint64_t ts, uint64_t *dropped)
{
	const int *p = rec_tidq_take(q, tid, ts, dropped);

	return p ? *p : -1;
}

START_TEST(test_pairs_by_thread_and_time)
{
	struct rec_tidq *q = rec_tidq_new();
	uint64_t dropped = 0;

	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(rec_tidq_push(q, 7, 8, 1000000, rec(1), &dropped), 0);
	ck_assert_int_eq(rec_tidq_push(q, 7, 9, 1000100, rec(2), &dropped), 0);
	ck_assert_int_eq(rec_tidq_push(q, 7, 8, 2000000, rec(3), &dropped), 0);
	ck_assert_int_eq(rec_tidq_push(q, 7, 8, 3000000, rec(4), &dropped), 0);
	/* a sample a few us after its record */
	ck_assert_int_eq(take(q, 9, 1000110, &dropped), 2);
	ck_assert_int_eq(take(q, 8, 1000050, &dropped), 1);
	/* the sample of record 3 was lost: record 3 goes, 4 is taken */
	ck_assert_int_eq(take(q, 8, 3000020, &dropped), 4);
	ck_assert_uint_eq(dropped, 1);
	/* none for a sample whose record is not there yet, nor another tid */
	ck_assert_int_eq(rec_tidq_push(q, 7, 8, 9000000, rec(5), &dropped), 0);
	ck_assert_int_eq(take(q, 8, 4000000, &dropped), -1);
	ck_assert_int_eq(take(q, 10, 9000000, &dropped), -1);
	ck_assert_int_eq(take(q, 8, 9000000, &dropped), 5);
	rec_tidq_free(q);
}
END_TEST

START_TEST(test_bounded_and_dropped)
{
	struct rec_tidq *q = rec_tidq_new();
	uint64_t dropped = 0, i;

	ck_assert_ptr_nonnull(q);
	for (i = 0; i < REC_TIDQ_MAX + 3; i++)
		ck_assert_int_eq(
		    rec_tidq_push(q, 7, 8, i * 1000000, rec((int)i), &dropped),
		    0);
	ck_assert_uint_eq(dropped, 3); /* the oldest made room */
	ck_assert_int_eq(take(q, 8, 3000000, &dropped), 3);
	ck_assert_int_eq(rec_tidq_push(q, 7, 9, 5, rec(9), &dropped), 0);
	ck_assert_int_eq(rec_tidq_push(q, 6, 10, 5, rec(10), &dropped), 0);
	rec_tidq_drop_process(q, 7);
	ck_assert_int_eq(take(q, 9, 5, &dropped), -1);
	ck_assert_int_eq(take(q, 8, 4000000, &dropped), -1);
	ck_assert_int_eq(take(q, 10, 5, &dropped), 10);
	ck_assert_int_eq(rec_tidq_push(q, 6, 10, 6, rec(11), &dropped), 0);
	rec_tidq_drop_thread(q, 10);
	ck_assert_int_eq(take(q, 10, 6, &dropped), -1);
	rec_tidq_free(q); /* what is left is freed (LeakSanitizer) */
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_tidq");
	TCase *tc = tcase_create("tidq");

	tcase_add_test(tc, test_pairs_by_thread_and_time);
	tcase_add_test(tc, test_bounded_and_dropped);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
