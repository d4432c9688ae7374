/*
 * check_record_evname.c: -e names: perf's names and aliases, modifiers,
 * raw events, and the errors for everything else.  Tracepoints depend on
 * the machine's tracefs and are tested end to end (t1023).
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <string.h>

#include <linux/perf_event.h>

#include "sp-record/perf/evname.h"

static struct rec_evname_spec e;
static struct sp_buf msg = SP_BUF_INIT;
static const char *err = "";

/* err: the message of the last parse ("" when none). */
static int
parse(const char *s)
{
	int rc;

	sp_buf_reset(&msg);
	rc = rec_evname_parse(s, &e, &msg);
	err = msg.len ? (const char *)msg.data : "";
	return rc;
}

START_TEST(names_and_aliases)
{
	ck_assert_int_eq(parse("page-faults"), 0);
	ck_assert_uint_eq(e.type, PERF_TYPE_SOFTWARE);
	ck_assert_uint_eq(e.config, PERF_COUNT_SW_PAGE_FAULTS);
	ck_assert(!e.is_time);
	ck_assert_int_eq(parse("faults"), 0);
	ck_assert_str_eq(e.name, "page-faults");
	ck_assert_int_eq(parse("cs"), 0);
	ck_assert_str_eq(e.name, "context-switches");
	ck_assert_int_eq(parse("cpu-cycles"), 0);
	ck_assert_str_eq(e.name, "cycles");
	ck_assert_uint_eq(e.type, PERF_TYPE_HARDWARE);
	ck_assert_int_eq(parse("task-clock"), 0);
	ck_assert(e.is_time);
	ck_assert_int_eq(parse("major-faults"), 0);
	ck_assert_uint_eq(e.config, PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	rec_evname_default(&e);
	ck_assert_str_eq(e.name, "cycles");
	rec_evname_cpu_clock(&e);
	ck_assert_str_eq(e.name, "cpu-clock");
	ck_assert(e.is_time);
}
END_TEST

START_TEST(modifiers_choose_where_events_count)
{
	ck_assert_int_eq(parse("instructions:u"), 0);
	ck_assert(e.exclude_kernel && !e.exclude_user);
	ck_assert_str_eq(e.name, "instructions:u");
	ck_assert_int_eq(parse("cycles:k"), 0);
	ck_assert(e.exclude_user && !e.exclude_kernel);
	ck_assert_int_eq(parse("cycles:uk"), 0);
	ck_assert(!e.exclude_user && !e.exclude_kernel);
	ck_assert_int_eq(parse("page-faults:u"), 0);
	ck_assert(e.exclude_kernel);
	ck_assert_int_eq(parse("cycles:x"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "'cycles:x'"));
}
END_TEST

START_TEST(raw_events_are_hex)
{
	ck_assert_int_eq(parse("r1a8"), 0);
	ck_assert_uint_eq(e.type, PERF_TYPE_RAW);
	ck_assert_uint_eq(e.config, 0x1a8);
	ck_assert_int_eq(parse("r01c2:u"), 0);
	ck_assert_uint_eq(e.config, 0x1c2);
	ck_assert(e.exclude_kernel);
	ck_assert_int_eq(parse("rxyz"), -EINVAL);
	ck_assert_int_eq(parse("r"), -EINVAL);
}
END_TEST

START_TEST(unknown_names_say_where_to_look)
{
	char sw[256];

	ck_assert_int_eq(parse("bogus"), -EINVAL);
	ck_assert_str_eq(err, "unknown event 'bogus' (sp-record -l lists the "
			      "events this machine offers)");
	ck_assert_int_eq(parse(""), -EINVAL);
	ck_assert_int_eq(parse("../x:y"), -EINVAL);
	ck_assert_int_eq(parse("sys:"), -EINVAL);
	rec_evname_software_names(sw, sizeof(sw));
	ck_assert_ptr_nonnull(strstr(sw, "cpu-clock, task-clock, page-faults"));
	rec_evname_software_names(sw, 12);
	ck_assert_uint_lt(strlen(sw), 12);
}
END_TEST

/* sched_switch's prev_state, as the kernel reports it since 4.14. */
START_TEST(wait_states_from_prev_state)
{
	struct rec_evname_spec sp = { .state_off = 8, .state_size = 8 };
	static const struct {
		uint64_t v;
		enum sp_wait_state want;
	} cases[] = {
		{ 0x1, SP_WAIT_SLEEP },   { 0x2, SP_WAIT_IO },
		{ 0x80, SP_WAIT_SLEEP },  { 0x100, SP_WAIT_PREEMPTED },
		{ 0, SP_WAIT_PREEMPTED }, { 0x4, SP_WAIT_BLOCKED },
	};
	uint8_t raw[16] = { 0 };
	uint32_t v32 = 2;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(raw + 8, &cases[i].v, 8);
		ck_assert_int_eq(rec_evname_wait_state(&sp, raw, 16),
				 cases[i].want);
	}
	/* Out of the data, or no state field: not said. */
	ck_assert_int_eq(rec_evname_wait_state(&sp, raw, 15), SP_WAIT_NONE);
	ck_assert_int_eq(rec_evname_wait_state(&sp, NULL, 0), SP_WAIT_NONE);
	sp.state_size = 4;
	memcpy(raw + 8, &v32, 4);
	ck_assert_int_eq(rec_evname_wait_state(&sp, raw, 12), SP_WAIT_IO);
	sp.state_size = 0;
	ck_assert_int_eq(rec_evname_wait_state(&sp, raw, 16), SP_WAIT_NONE);
}
END_TEST

int
main(void)
{
	Suite *su = suite_create("record_evname");
	TCase *tc = tcase_create("evname");

	tcase_add_test(tc, names_and_aliases);
	tcase_add_test(tc, modifiers_choose_where_events_count);
	tcase_add_test(tc, raw_events_are_hex);
	tcase_add_test(tc, unknown_names_say_where_to_look);
	tcase_add_test(tc, wait_states_from_prev_state);
	suite_add_tcase(su, tc);
	return ck_run(su);
}
