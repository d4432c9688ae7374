/*
 * check_search.c: sp_search_last_le, the one binary search over sorted
 * starts: empty arrays, keys before the first, between, on and after
 * the starts, runs of equal starts, and every answer of a larger array
 * against a linear scan.
 */
#include "tests/unit/ck.h"
#include <stdint.h>
#include <stdlib.h>

#include "common/search.h"

/* A range with its start not first, so the key offset matters. */
struct range {
	uint32_t tag;
	uint64_t start, end;
};

static size_t
find(const struct range *v, size_t n, uint64_t key)
{
	return SP_SEARCH_LAST_LE(v, n, start, key);
}

START_TEST(empty_finds_nothing)
{
	ck_assert_uint_eq(sp_search_last_le(NULL, 0, 8, 0, 0), SIZE_MAX);
	ck_assert_uint_eq(sp_search_last_le(NULL, 0, 8, 0, UINT64_MAX),
			  SIZE_MAX);
}
END_TEST

START_TEST(before_first_finds_nothing)
{
	struct range v[] = { { 1, 10, 20 }, { 2, 30, 40 } };

	ck_assert_uint_eq(find(v, 2, 0), SIZE_MAX);
	ck_assert_uint_eq(find(v, 2, 9), SIZE_MAX);
	ck_assert_uint_eq(find(v, 1, 9), SIZE_MAX);
}
END_TEST

START_TEST(on_between_and_after)
{
	struct range v[] = { { 1, 10, 20 }, { 2, 30, 40 }, { 3, 50, 60 } };

	ck_assert_uint_eq(find(v, 3, 10), 0);
	ck_assert_uint_eq(find(v, 3, 29), 0);
	ck_assert_uint_eq(find(v, 3, 30), 1);
	ck_assert_uint_eq(find(v, 3, 49), 1);
	ck_assert_uint_eq(find(v, 3, 50), 2);
	ck_assert_uint_eq(find(v, 3, UINT64_MAX), 2);
	ck_assert_uint_eq(find(v, 1, UINT64_MAX), 0);
}
END_TEST

START_TEST(equal_starts_give_the_last)
{
	struct range v[] = { { 1, 5, 6 },
			     { 2, 10, 20 },
			     { 3, 10, 30 },
			     { 4, 10, 40 },
			     { 5, 70, 80 } };

	ck_assert_uint_eq(find(v, 5, 9), 0);
	ck_assert_uint_eq(find(v, 5, 10), 3);
	ck_assert_uint_eq(find(v, 5, 69), 3);
	ck_assert_uint_eq(find(v, 4, 10), 3);
	ck_assert_uint_eq(find(v, 3, 10), 2);
}
END_TEST

START_TEST(extremes_of_the_key)
{
	struct range v[] = { { 1, 0, 1 }, { 2, UINT64_MAX, UINT64_MAX } };

	ck_assert_uint_eq(find(v, 2, 0), 0);
	ck_assert_uint_eq(find(v, 2, UINT64_MAX - 1), 0);
	ck_assert_uint_eq(find(v, 2, UINT64_MAX), 1);
}
END_TEST

/* Bare uint64_t keys: the element is the key (size 8, offset 0). */
START_TEST(matches_a_linear_scan)
{
	uint64_t v[64], key;
	size_t n, i, want;

	for (i = 0; i < 64; i++)
		v[i] = 3 * (i / 2) + 1; /* pairs of equal starts, gaps of 2 */
	for (n = 0; n <= 64; n++)
		for (key = 0; key < 3 * 33 + 2; key++) {
			want = SIZE_MAX;
			for (i = 0; i < n; i++)
				if (v[i] <= key)
					want = i;
			ck_assert_uint_eq(
			    sp_search_last_le(v, n, sizeof(*v), 0, key), want);
		}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("search");
	TCase *tc = tcase_create("last_le");

	tcase_add_test(tc, empty_finds_nothing);
	tcase_add_test(tc, before_first_finds_nothing);
	tcase_add_test(tc, on_between_and_after);
	tcase_add_test(tc, equal_starts_give_the_last);
	tcase_add_test(tc, extremes_of_the_key);
	tcase_add_test(tc, matches_a_linear_scan);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
