/*
 * check_record_events.c: the default ring size: a quarter second of
 * samples at the requested rate, within its bounds; CPU lists (cpus.c)
 * parsed within the machine's CPUs, numbers that do not fit refused;
 * kernel settings read one way (sysctl.c).
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/sys/cpus.h"
#include "sp-record/perf/events.h"
#include "sp-record/sys/sysctl.h"

static struct rec_events_opts
opts(uint64_t freq, bool dwarf, uint32_t stack)
{
	struct rec_events_opts o = { 0 };

	o.freq = freq;
	o.dwarf = dwarf;
	o.stack_size = stack;
	return o;
}

START_TEST(dwarf_at_999_hz_holds_a_quarter_second)
{
	struct rec_events_opts o = opts(999, true, 32768);
	size_t pages = rec_events_default_pages(&o, 2, 4096);

	/* 999 samples of over 32 KiB each in 8 MiB: 250 ms */
	ck_assert_uint_ge(pages * 4096, 999 * 32768 / 4);
	ck_assert_uint_eq(pages & (pages - 1), 0);
}
END_TEST

START_TEST(small_samples_keep_the_minimum)
{
	struct rec_events_opts o = opts(99, false, 0);

	ck_assert_uint_eq(rec_events_default_pages(&o, 2, 4096), 128);
}
END_TEST

START_TEST(bounded_per_cpu_and_in_all)
{
	struct rec_events_opts o = opts(100000, true, 65528);

	ck_assert_uint_eq(rec_events_default_pages(&o, 2, 4096), 2048);
	/* 256 MiB over 512 CPUs: 128 pages each */
	ck_assert_uint_eq(rec_events_default_pages(&o, 512, 4096), 128);
	ck_assert_uint_le(rec_events_default_pages(&o, 64, 4096) * 4096 * 64,
			  256u << 20);
}
END_TEST

/* Parses `s` below `limit`; the count, the list in v (up to 8). */
static int
parse(const char *s, int limit, int *v, const char **bad)
{
	int *got = NULL, n = rec_cpus_parse(s, limit, &got, bad);

	if (n > 0) {
		ck_assert_int_le(n, 8);
		memcpy(v, got, (size_t)n * sizeof(*v));
		free(got);
	}
	return n;
}

START_TEST(cpu_lists_in_range)
{
	const char *bad;
	int v[8];

	ck_assert_int_eq(parse("0-3,6", 8, v, &bad), 5);
	ck_assert_int_eq(v[3], 3);
	ck_assert_int_eq(v[4], 6);
	ck_assert_int_eq(parse("1\n", 2, v, &bad), 1);
	ck_assert_int_eq(v[0], 1);
	ck_assert_int_eq(parse("1,0,1", 2, v, &bad), 3);
	ck_assert_int_eq(parse("0-1", 2, v, &bad), 2);
}
END_TEST

/*
 * Issue 24 item 16: -C 2147483647 overflowed the range loop (UBSan) and
 * ran for seconds through 2 GB; 0-4294967296 was taken as CPU 0.
 */
START_TEST(cpu_lists_out_of_range)
{
	static const struct {
		const char *s;
		const char *bad;
	} cases[] = {
		{ "2147483647", "2147483647" },
		{ "0-4294967296", "4294967296" },
		{ "4294967296", "4294967296" },
		{ "0-2", "2" },
		{ "1,2", "2" },
		{ "99999999999999999999999", "99999999999999999999999" },
	};
	const char *bad;
	size_t i;
	int v[8];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(parse(cases[i].s, 2, v, &bad), -ERANGE);
		ck_assert_str_eq(bad, cases[i].bad);
	}
}
END_TEST

START_TEST(cpu_lists_malformed)
{
	static const char *const cases[] = {
		"",   "0,",  ",0", "1-0",  " 1",  "-1",
		"+1", "0x1", "1-", "1--2", "0;1",
	};
	const char *bad;
	size_t i;
	int v[8];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(parse(cases[i], 8, v, &bad) == -EINVAL,
			      "'%s' accepted", cases[i]);
}
END_TEST

START_TEST(possible_covers_online)
{
	int *cpus, n = rec_cpus_online(&cpus), i;
	int possible = rec_cpus_possible();

	ck_assert_int_ge(n, 1);
	for (i = 0; i < n; i++)
		ck_assert_int_lt(cpus[i], possible);
	free(cpus);
}
END_TEST

START_TEST(sysctl_reads)
{
	long v = 12345, want;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%ld", &want), 1);
	fclose(f);
	ck_assert_int_eq(rec_sysctl_long("kernel.pid_max", &v), 0);
	ck_assert_int_eq(v, want);
	v = 12345;
	ck_assert_int_eq(rec_sysctl_long("kernel.no_such_setting", &v),
			 -ENOENT);
	ck_assert_int_eq(rec_sysctl_long("kernel.ostype", &v), -EBADMSG);
	ck_assert_int_eq(rec_sysctl_long("kernel.random.boot_id", &v),
			 -EBADMSG);
	ck_assert_int_eq(v, 12345);
}
END_TEST

/*
 * The reader is woken at a quarter of the ring (deep stacks are read
 * sooner by shorter polls, recorder.c); a Python target's wake_each
 * wakes it at every record.
 */
START_TEST(wake_at_a_quarter_or_each)
{
	struct rec_events_opts o = opts(999, true, 32768);
	struct rec_events ev;
	uint32_t quarter = 2048 * 4096 / 4;

	o.pages = 2048;
	ck_assert_int_eq(rec_events_init(&ev, &o), 0);
	ck_assert_uint_eq(ev.attr.wakeup_watermark, quarter);
	rec_events_release(&ev);
	o.wake_each = true;
	ck_assert_int_eq(rec_events_init(&ev, &o), 0);
	ck_assert_uint_eq(ev.attr.wakeup_watermark, 1);
	rec_events_release(&ev);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_events");
	TCase *tc = tcase_create("default_pages");

	tcase_add_test(tc, dwarf_at_999_hz_holds_a_quarter_second);
	tcase_add_test(tc, small_samples_keep_the_minimum);
	tcase_add_test(tc, bounded_per_cpu_and_in_all);
	tcase_add_test(tc, wake_at_a_quarter_or_each);
	suite_add_tcase(s, tc);
	tc = tcase_create("cpus");
	tcase_add_test(tc, cpu_lists_in_range);
	tcase_add_test(tc, cpu_lists_out_of_range);
	tcase_add_test(tc, cpu_lists_malformed);
	tcase_add_test(tc, possible_covers_online);
	tcase_add_test(tc, sysctl_reads);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
