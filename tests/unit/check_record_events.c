/*
 * check_record_events.c: the default ring size: a quarter second of
 * samples at the requested rate, within its bounds.
 */
#include <check.h>
#include <stdlib.h>

#include "sp-record/events.h"

static struct rec_evopts
opts(uint64_t freq, bool dwarf, uint32_t stack)
{
	struct rec_evopts o = { 0 };

	o.freq = freq;
	o.dwarf = dwarf;
	o.stack_size = stack;
	return o;
}

START_TEST(dwarf_at_999_hz_holds_a_quarter_second)
{
	struct rec_evopts o = opts(999, true, 32768);
	size_t pages = rec_events_default_pages(&o, 2, 4096);

	/* 999 samples of over 32 KiB each in 8 MiB: 250 ms */
	ck_assert_uint_ge(pages * 4096, 999 * 32768 / 4);
	ck_assert_uint_eq(pages & (pages - 1), 0);
}
END_TEST

START_TEST(small_samples_keep_the_minimum)
{
	struct rec_evopts o = opts(99, false, 0);

	ck_assert_uint_eq(rec_events_default_pages(&o, 2, 4096), 128);
}
END_TEST

START_TEST(bounded_per_cpu_and_in_all)
{
	struct rec_evopts o = opts(100000, true, 65528);

	ck_assert_uint_eq(rec_events_default_pages(&o, 2, 4096), 2048);
	/* 256 MiB over 512 CPUs: 128 pages each */
	ck_assert_uint_eq(rec_events_default_pages(&o, 512, 4096), 128);
	ck_assert_uint_le(rec_events_default_pages(&o, 64, 4096) * 4096 * 64,
			  256u << 20);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_events");
	TCase *tc = tcase_create("default_pages");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, dwarf_at_999_hz_holds_a_quarter_second);
	tcase_add_test(tc, small_samples_keep_the_minimum);
	tcase_add_test(tc, bounded_per_cpu_and_in_all);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
