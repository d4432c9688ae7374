/*
 * check_record_fpwalk.c: the frame-pointer walk of a stopped thread
 * (sp-record/fpwalk.c), over frame records laid out here: some in a
 * stack copy, the rest in this process's memory, read as a traced
 * thread's would be.
 */
#include "tests/unit/ck.h"
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp-record/ptrace/fpwalk.h"

#define IP 0x401000u

/* Writes the record (next, ra) at `at`. */
static void
put(uint64_t *at, uint64_t next, uint64_t ra)
{
	at[0] = next;
	at[1] = ra;
}

START_TEST(test_copy_then_memory)
{
	/* real: where sp points in "the thread"; copy: what was copied */
	uint64_t real[16] = { 0 }, copy[16] = { 0 }, chain[16];
	uint64_t *far = aligned_alloc(4096, 8192);
	uint64_t sp = (uint64_t)(uintptr_t)real;
	uint64_t far_at = (uint64_t)(uintptr_t)(far + 511); /* across pages */
	size_t n;

	ck_assert_ptr_nonnull(far);
	put(&copy[2], sp + 6 * 8, 0x1111);
	put(&copy[6], (uint64_t)(uintptr_t)&far[4], 0x2222);
	put(&far[4], far_at, 0x3333);
	put(&far[511], (uint64_t)(uintptr_t)&far[600], 0x4444);
	put(&far[600], 0, 0x5555);
	n = rec_fpwalk(getpid(), IP, sp + 2 * 8, sp, (uint8_t *)copy,
		       sizeof(copy), chain, 16);
	ck_assert_uint_eq(n, 7);
	ck_assert_uint_eq(chain[0], (uint64_t)PERF_CONTEXT_USER);
	ck_assert_uint_eq(chain[1], IP);
	ck_assert_uint_eq(chain[2], 0x1111);
	ck_assert_uint_eq(chain[3], 0x2222);
	ck_assert_uint_eq(chain[4], 0x3333);
	ck_assert_uint_eq(chain[5], 0x4444);
	ck_assert_uint_eq(chain[6], 0x5555);
	/* the copy, not the thread's memory now, for words inside it */
	ck_assert_uint_eq(real[3], 0);
	free(far);
}
END_TEST

START_TEST(test_ends)
{
	uint64_t copy[8] = { 0 }, chain[8];
	uint64_t sp = 0x7ff000000000u;

	/* no frame pointer, a misaligned one, one nothing is mapped at */
	ck_assert_uint_eq(rec_fpwalk(getpid(), IP, 0, sp, (uint8_t *)copy,
				     sizeof(copy), chain, 8),
			  2);
	ck_assert_uint_eq(rec_fpwalk(getpid(), IP, sp + 4, sp, (uint8_t *)copy,
				     sizeof(copy), chain, 8),
			  2);
	ck_assert_uint_eq(rec_fpwalk(getpid(), IP, 0x10, sp, (uint8_t *)copy,
				     sizeof(copy), chain, 8),
			  2);
	/* a zero return address ends it; so does a record cut by the copy */
	put(&copy[0], sp + 16, 0xaaaa);
	put(&copy[2], sp + 32, 0);
	ck_assert_uint_eq(rec_fpwalk(getpid(), IP, sp, sp, (uint8_t *)copy,
				     sizeof(copy), chain, 8),
			  3);
	ck_assert_uint_eq(rec_fpwalk(getpid(), IP, sp + 56, sp, (uint8_t *)copy,
				     sizeof(copy), chain, 8),
			  2);
	ck_assert_uint_eq(rec_fpwalk(getpid(), IP, sp, sp, (uint8_t *)copy,
				     sizeof(copy), chain, 1),
			  0);
}
END_TEST

START_TEST(test_loop_bounded)
{
	uint64_t copy[2], *chain = calloc(REC_FPWALK_MAX + 10, 8);
	uint64_t sp = (uint64_t)(uintptr_t)copy;

	ck_assert_ptr_nonnull(chain);
	put(copy, sp, 0x1234); /* a record naming itself */
	ck_assert_uint_eq(rec_fpwalk(getpid(), IP, sp, sp, (uint8_t *)copy,
				     sizeof(copy), chain, REC_FPWALK_MAX + 10),
			  REC_FPWALK_MAX + 2);
	ck_assert_uint_eq(rec_fpwalk(getpid(), IP, sp, sp, (uint8_t *)copy,
				     sizeof(copy), chain, 5),
			  5);
	free(chain);
}
END_TEST

static Suite *
fpwalk_suite(void)
{
	Suite *s = suite_create("record_fpwalk");
	TCase *tc = tcase_create("walk");

	tcase_add_test(tc, test_copy_then_memory);
	tcase_add_test(tc, test_ends);
	tcase_add_test(tc, test_loop_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return ck_run(fpwalk_suite());
}
