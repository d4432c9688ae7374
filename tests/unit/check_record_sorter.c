/*
 * check_record_sorter.c: the event sorter: nothing is released before two
 * rounds, the round rule, ties in arrival order, forced flushes, copies,
 * reserved events and their reuse, and a simulated recording where
 * several rings are read one after the other and records become visible
 * only once written.
 */
#include "tests/unit/ck.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/perf/sorter.h"

static struct rec_sorter *s;

static void
setup(void)
{
	s = rec_sorter_new();
	ck_assert_ptr_nonnull(s);
}

static void
teardown(void)
{
	rec_sorter_free(s);
}

static void
push(uint64_t ts, uint32_t tag)
{
	ck_assert_int_eq(rec_sorter_push(s, ts, 0, &tag, sizeof(tag)), 0);
}

/* Pops one event; returns its tag, or -1 when none is ready. */
static long
pop(int force)
{
	struct rec_sorter_event *e = rec_sorter_pop(s, force);
	uint32_t tag;

	if (!e)
		return -1;
	ck_assert_uint_eq(e->len, sizeof(tag));
	memcpy(&tag, e->data, sizeof(tag));
	rec_sorter_release(s, e);
	return tag;
}

START_TEST(reserved_events_are_queued_and_reused)
{
	struct rec_sorter_event *e, *big, *again;
	uint8_t *data;
	size_t i;

	e = rec_sorter_reserve(s, 3000);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq((uintptr_t)e->data % 8, 0);
	memset(e->data, 0xab, 3000);
	ck_assert_int_eq(rec_sorter_queue(s, e, 7, 1, 3000), 0);
	push(3, 9);
	e = rec_sorter_pop(s, 1);
	ck_assert_uint_eq(e->len, sizeof(uint32_t));
	rec_sorter_release(s, e);
	e = rec_sorter_pop(s, 1);
	ck_assert_uint_eq(e->ts, 7);
	ck_assert_uint_eq(e->kind, 1);
	ck_assert_uint_eq(e->len, 3000);
	data = e->data;
	for (i = 0; i < 3000; i++)
		ck_assert_uint_eq(data[i], 0xab);
	rec_sorter_release(s, e);
	/* The same size class comes back without a new allocation. */
	again = rec_sorter_reserve(s, 2500);
	ck_assert_ptr_eq(again, e);
	/* A record larger than any class is not kept, but works. */
	big = rec_sorter_reserve(s, 200000);
	ck_assert_ptr_nonnull(big);
	memset(big->data, 1, 200000);
	rec_sorter_release(s, big);
	rec_sorter_release(s, again);
	rec_sorter_release(s, NULL);
	ck_assert_uint_eq(rec_sorter_count(s), 0);
}
END_TEST

START_TEST(first_round_releases_nothing)
{
	push(10, 1);
	push(5, 2);
	rec_sorter_end_round(s);
	ck_assert_int_eq(pop(0), -1);
	ck_assert_uint_eq(rec_sorter_count(s), 2);
}
END_TEST

START_TEST(round_releases_up_to_previous_newest)
{
	/* Round 1 reads ring A (10, 30) and ring B (20). */
	push(10, 1);
	push(30, 2);
	push(20, 3);
	rec_sorter_end_round(s);
	/* Round 2: ring B had an older record still unread. */
	push(25, 4);
	push(40, 5);
	rec_sorter_end_round(s);
	ck_assert_int_eq(pop(0), 1);
	ck_assert_int_eq(pop(0), 3);
	ck_assert_int_eq(pop(0), 4);
	ck_assert_int_eq(pop(0), 2);
	ck_assert_int_eq(pop(0), -1); /* 40 waits for the next round */
	rec_sorter_end_round(s);
	ck_assert_int_eq(pop(0), 5);
	ck_assert_uint_eq(rec_sorter_count(s), 0);
}
END_TEST

START_TEST(ties_keep_arrival_order)
{
	uint32_t i;

	for (i = 0; i < 100; i++)
		push(7, i);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(pop(1), (long)i);
}
END_TEST

START_TEST(force_drains_in_order)
{
	push(3, 3);
	push(1, 1);
	push(2, 2);
	ck_assert_int_eq(pop(1), 1);
	ck_assert_int_eq(pop(1), 2);
	ck_assert_int_eq(pop(1), 3);
	ck_assert_int_eq(pop(1), -1);
}
END_TEST

START_TEST(records_are_copied)
{
	uint64_t rec[3] = { 1, 2, 3 };
	struct rec_sorter_event *e;

	ck_assert_int_eq(rec_sorter_push(s, 9, 42, rec, sizeof(rec)), 0);
	memset(rec, 0, sizeof(rec));
	e = rec_sorter_pop(s, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->kind, 42);
	ck_assert_uint_eq(e->ts, 9);
	ck_assert_uint_eq(((uint64_t *)(void *)e->data)[2], 3);
	free(e);
}
END_TEST

/*
 * Three rings, each with records at increasing times.  Round k reads
 * ring r at time 100 * k + 10 * r and sees the records written before.
 * Every record must come out, and in global time order.
 */
START_TEST(simulated_rings_merge_in_time_order)
{
	enum { RINGS = 3, PER = 400 };
	uint64_t ts[RINGS][PER], last = 0, now;
	size_t next[RINGS] = { 0 }, out = 0;
	struct rec_sorter_event *e;
	unsigned seed = 1;
	int r, k, i;

	for (r = 0; r < RINGS; r++) {
		uint64_t t = 0;

		for (i = 0; i < PER; i++) {
			seed = seed * 1103515245 + 12345;
			t += 1 + (seed >> 16) % (40 * (r + 1));
			ts[r][i] = t;
		}
	}
	for (k = 0; out < RINGS * PER; k++) {
		for (r = 0; r < RINGS; r++) {
			now = 100 * (uint64_t)k + 10 * (uint64_t)r;
			while (next[r] < PER && ts[r][next[r]] < now) {
				uint32_t tag = (uint32_t)(r * PER + next[r]);

				ck_assert_int_eq(
				    rec_sorter_push(s, ts[r][next[r]], 0, &tag,
						    sizeof(tag)),
				    0);
				next[r]++;
			}
		}
		rec_sorter_end_round(s);
		while ((e = rec_sorter_pop(s, k > 100000)) != NULL) {
			ck_assert_uint_ge(e->ts, last);
			last = e->ts;
			out++;
			free(e);
		}
		ck_assert_int_lt(k, 1000000);
	}
	ck_assert_uint_eq(rec_sorter_count(s), 0);
}
END_TEST

int
main(void)
{
	Suite *su = suite_create("record_sorter");
	TCase *tc = tcase_create("sorter");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, first_round_releases_nothing);
	tcase_add_test(tc, round_releases_up_to_previous_newest);
	tcase_add_test(tc, ties_keep_arrival_order);
	tcase_add_test(tc, force_drains_in_order);
	tcase_add_test(tc, records_are_copied);
	tcase_add_test(tc, simulated_rings_merge_in_time_order);
	tcase_add_test(tc, reserved_events_are_queued_and_reused);
	suite_add_tcase(su, tc);
	return ck_run(su);
}
