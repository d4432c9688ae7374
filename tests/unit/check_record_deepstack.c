/*
 * check_record_deepstack.c: reading the stack above a sample's copy
 * (sp-record/deepstack.c) and the call-site checks of its frames
 * (sp-record/callsite.c).  The "stack" is an anonymous mapping of this
 * process, read through process_vm_readv as the recorder reads another's;
 * each test changes it under the reader and asserts what verify says.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sp-record/unwind/callsite.h"
#include "sp-record/unwind/deepstack.h"
#include "tests/unit/skip.h"

#define MAP_LEN (64u << 10)
#define COPY_LEN 4096u

/* The mapping standing for a thread's stack, and the sample's copy. */
static uint8_t *stk;
static uint8_t copy[COPY_LEN];
static struct rec_deepstack_maps maps = REC_DEEPSTACK_MAPS_INIT;
static struct rec_deepstack d;

static uint64_t
addr(size_t off)
{
	return (uint64_t)(uintptr_t)(stk + off);
}

/* A sample whose SP is `sp_off` into the mapping, copied COPY_LEN bytes. */
static void
sample(size_t sp_off)
{
	size_t i;

	for (i = 0; i < MAP_LEN / 8; i++)
		memcpy(stk + i * 8, &(uint64_t){ i * 0x1001 }, 8);
	memcpy(copy, stk + sp_off, COPY_LEN);
	rec_deepstack_begin(&d, getpid(), &maps, addr(sp_off), copy, COPY_LEN);
}

/* The mapping between two inaccessible pages, so that it merges with none. */
static void
setup(void)
{
	uint8_t *m = mmap(NULL, MAP_LEN + 8192, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(m, MAP_FAILED);
	stk = m + 4096;
	ck_assert_int_eq(mprotect(stk, MAP_LEN, PROT_READ | PROT_WRITE), 0);
	ck_assert_int_eq(rec_deepstack_init(&d, 16u << 10), 0);
}

static void
teardown(void)
{
	rec_deepstack_release(&d);
	rec_deepstack_maps_release(&maps);
	munmap(stk - 4096, MAP_LEN + 8192);
}

/* What was read live is what the mapping holds, and it verifies. */
START_TEST(test_read_and_verify)
{
	struct iovec l = { &(uint64_t){ 0 }, 8 }, r = { stk, 8 };
	uint64_t v, want;

	if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != 8) {
		unit_skip("process_vm_readv: %s", strerror(errno));
		return;
	}
	sample(1024);
	ck_assert(!rec_deepstack_used(&d));
	rec_deepstack_saw(&d, addr(1024 + COPY_LEN - 8));
	ck_assert(rec_deepstack_read(&d, addr(1024 + COPY_LEN + 9000), &v));
	memcpy(&want, stk + 1024 + COPY_LEN + 9000, 8);
	ck_assert_uint_eq(v, want);
	ck_assert(rec_deepstack_used(&d));
	ck_assert_int_eq(rec_deepstack_verify(&d), 0);
}
END_TEST

/* A word of the copy that the unwinder read changed: not the sample's. */
START_TEST(test_copy_word_changed)
{
	uint64_t v;

	sample(0);
	rec_deepstack_saw(&d, addr(COPY_LEN - 16));
	ck_assert(rec_deepstack_read(&d, addr(COPY_LEN + 64), &v));
	stk[COPY_LEN - 16] ^= 1;
	ck_assert_int_eq(rec_deepstack_verify(&d), -ESTALE);
}
END_TEST

/* A live word read changed before verify: the stack moved under us. */
START_TEST(test_live_word_changed)
{
	uint64_t v;

	sample(0);
	rec_deepstack_saw(&d, addr(COPY_LEN - 8));
	ck_assert(rec_deepstack_read(&d, addr(COPY_LEN + 4096), &v));
	ck_assert(rec_deepstack_read(&d, addr(COPY_LEN + 64), &v));
	stk[COPY_LEN + 4096 + 3] ^= 0x40;
	ck_assert_int_eq(rec_deepstack_verify(&d), -ESTALE);
	/* a word that was not read may change: locals do */
	sample(0);
	rec_deepstack_saw(&d, addr(COPY_LEN - 8));
	ck_assert(rec_deepstack_read(&d, addr(COPY_LEN + 64), &v));
	stk[COPY_LEN + 72] ^= 0x40;
	ck_assert_int_eq(rec_deepstack_verify(&d), 0);
}
END_TEST

/* Nothing noted from the copy: nothing ties the live part to it. */
START_TEST(test_nothing_seen)
{
	uint64_t v;

	sample(0);
	ck_assert(rec_deepstack_read(&d, addr(COPY_LEN), &v));
	ck_assert_int_eq(rec_deepstack_verify(&d), -ENODATA);
}
END_TEST

/* Reads stay within the mapping, the budget, and whole words. */
START_TEST(test_bounds)
{
	uint64_t v;

	sample(MAP_LEN - COPY_LEN - 4096);
	ck_assert(rec_deepstack_read(&d, addr(MAP_LEN - 8), &v));
	ck_assert(!rec_deepstack_read(&d, addr(MAP_LEN), &v));
	sample(0);
	ck_assert(!rec_deepstack_read(&d, addr(COPY_LEN + 3), &v));
	sample(0);
	ck_assert(!rec_deepstack_read(&d, addr(COPY_LEN - 8), &v));
	sample(0);
	ck_assert(rec_deepstack_read(&d, addr(COPY_LEN + (16u << 10) - 8), &v));
	ck_assert(!rec_deepstack_read(&d, addr(COPY_LEN + (16u << 10)), &v));
}
END_TEST

/*
 * An older stack segment (psm's switch): once the reads reached the top
 * of the stack, a read in another stack mapping opens a second span,
 * whose words verify too; before that, such a read is a stray one and
 * refused.  Steps go outward only, and never back to a span left.
 */
START_TEST(test_segments)
{
	uint8_t *m = mmap(NULL, MAP_LEN + 8192, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		*old = m + 4096;
	uint64_t v, want, o = (uint64_t)(uintptr_t)old;
	size_t sp = MAP_LEN - COPY_LEN - 8192, end = MAP_LEN - 8192;

	ck_assert_ptr_ne(m, MAP_FAILED);
	ck_assert_int_eq(mprotect(old, MAP_LEN, PROT_READ | PROT_WRITE), 0);
	memset(old, 0x5a, MAP_LEN);
	sample(sp);
	rec_deepstack_saw(&d, addr(end - 8));
	ck_assert(rec_deepstack_read(&d, addr(end + 8), &v));
	ck_assert(!rec_deepstack_read(&d, o + 8192, &v));
	ck_assert_uint_eq(d.segments, 0);
	ck_assert(rec_deepstack_read(&d, addr(MAP_LEN - 8), &v));
	ck_assert(rec_deepstack_outward(&d, addr(sp), addr(end + 16)));
	ck_assert(!rec_deepstack_outward(&d, addr(end + 16), addr(sp)));
	ck_assert(rec_deepstack_read(&d, o + 8192, &v));
	memcpy(&want, old + 8192, 8);
	ck_assert_uint_eq(v, want);
	ck_assert_uint_eq(d.segments, 1);
	/* into the older segment, wherever it lies; never back */
	ck_assert(rec_deepstack_outward(&d, addr(end + 16), o + 8200));
	ck_assert(!rec_deepstack_outward(&d, o + 8200, addr(end + 32)));
	/* a stack's top is its own: a switch's SP once its callee returned */
	ck_assert(rec_deepstack_outward(&d, addr(end + 16), addr(MAP_LEN)));
	ck_assert(rec_deepstack_read(&d, o + 9000, &v));
	ck_assert_int_eq(rec_deepstack_verify(&d), 0);
	old[9000 + 2] ^= 1;
	ck_assert_int_eq(rec_deepstack_verify(&d), -ESTALE);
	munmap(m, MAP_LEN + 8192);
}
END_TEST

/* A budget of 0 reads nothing. */
START_TEST(test_off)
{
	struct rec_deepstack off;
	uint64_t v;

	ck_assert_int_eq(rec_deepstack_init(&off, 0), 0);
	rec_deepstack_begin(&off, getpid(), &maps, addr(0), copy, COPY_LEN);
	ck_assert(!rec_deepstack_read(&off, addr(COPY_LEN), &v));
	ck_assert(!rec_deepstack_used(&off));
	rec_deepstack_release(&off);
}
END_TEST

/* A process that is gone reads nothing, and verifies nothing. */
START_TEST(test_gone)
{
	uint64_t v;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	memcpy(copy, stk, COPY_LEN);
	rec_deepstack_begin(&d, pid, &maps, addr(0), copy, COPY_LEN);
	ck_assert(!rec_deepstack_read(&d, addr(COPY_LEN), &v));
}
END_TEST

START_TEST(test_callsite_direct)
{
	/* call rel32 -16: from ra 0x1005, the target is 0x0ff5 */
	static const uint8_t call[5] = { 0xe8, 0xf0, 0xff, 0xff, 0xff };
	static const uint8_t indirect[5] = { 0x00, 0x00, 0x00, 0xff, 0xd0 };
	uint64_t t = 0;

	ck_assert(rec_callsite_target(call, 0x1005, &t));
	ck_assert_uint_eq(t, 0x0ff5);
	ck_assert(!rec_callsite_target(indirect, 0x1005, &t));
}
END_TEST

START_TEST(test_callsite_plt)
{
	static const uint8_t plt[7] = { 0xff, 0x25, 1, 2, 3, 4, 0x68 };
	static const uint8_t plt_sec[7] = { 0xf3, 0x0f, 0x1e, 0xfa,
					    0xf2, 0xff, 0x25 };
	static const uint8_t ibt[7] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xff, 0x25, 0 };
	static const uint8_t fn[7] = {
		0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89
	};

	ck_assert(rec_callsite_is_plt(plt));
	ck_assert(rec_callsite_is_plt(plt_sec));
	ck_assert(rec_callsite_is_plt(ibt));
	ck_assert(!rec_callsite_is_plt(fn));
}
END_TEST

/* Indirect calls of every addressing form end at the return address. */
START_TEST(test_callsite_indirect)
{
	static const uint8_t yes[][REC_CALLSITE_INDIRECT] = {
		{ 0, 0, 0, 0, 0, 0, 0xff, 0xd1 },       /* call *%rcx */
		{ 0, 0, 0, 0, 0, 0x41, 0xff, 0xd4 },    /* call *%r12 */
		{ 0, 0, 0, 0, 0, 0xff, 0x50, 0x18 },    /* call *0x18(%rax) */
		{ 0, 0, 0, 0, 0xff, 0x54, 0x24, 0x08 }, /* call *8(%rsp) */
		{ 0, 0, 0xff, 0x15, 1, 2, 3, 4 },       /* call *x(%rip) */
		{ 0, 0, 0xff, 0x90, 1, 2, 3, 4 },       /* call *x(%rax) */
		{ 0, 0x41, 0xff, 0x14, 0x24, 0, 0, 0 }, /* not: ends early */
	};
	static const uint8_t no[][REC_CALLSITE_INDIRECT] = {
		{ 0, 0, 0, 0, 0, 0, 0xff, 0xe1 }, /* jmp *%rcx */
		{ 0, 0, 0, 0xe8, 1, 2, 3, 4 },    /* a direct call */
		{ 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90 },
	};
	size_t i;

	for (i = 0; i + 1 < sizeof(yes) / sizeof(yes[0]); i++)
		ck_assert_msg(rec_callsite_indirect(yes[i]), "form %zu", i);
	ck_assert(!rec_callsite_indirect(yes[i]));
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ck_assert_msg(!rec_callsite_indirect(no[i]), "non-call %zu", i);
}
END_TEST

/* Jumps out of a function are its possible tail calls; jumps inside not. */
START_TEST(test_callsite_jumps)
{
	/* at 0x1000: jmp +0x100 (out); jne -8 (in); jmp -0x2000 (out) */
	static const uint8_t code[] = { 0xe9, 0x00, 0x01, 0x00, 0x00, 0x0f,
					0x85, 0xf8, 0xff, 0xff, 0xff, 0xe9,
					0x00, 0xe0, 0xff, 0xff };
	uint64_t out[4];

	ck_assert_uint_eq(
	    rec_callsite_jumps(code, sizeof(code), 0x1000, out, 4), 2);
	ck_assert_uint_eq(out[0], 0x1105);
	ck_assert_uint_eq(out[1], 0x1010 - 0x2000);
	ck_assert_uint_eq(
	    rec_callsite_jumps(code, sizeof(code), 0x1000, out, 1), 2);
	ck_assert_uint_eq(rec_callsite_jumps(code, 4, 0x1000, out, 4), 0);
}
END_TEST

/*
 * A word taken from a cache (rec_deepstack_expect) is verified as if
 * read: it must hold its value in the live stack, and where it was read
 * in this sample it must agree with what was read.
 */
START_TEST(test_expect)
{
	uint64_t v, want;

	sample(0);
	rec_deepstack_saw(&d, addr(COPY_LEN - 8));
	memcpy(&want, stk + COPY_LEN + 6000, 8);
	ck_assert(rec_deepstack_expect(&d, addr(COPY_LEN + 6000), want));
	ck_assert(rec_deepstack_used(&d));
	ck_assert_int_eq(rec_deepstack_verify(&d), 0);
	/* the live word is not what the cache says */
	sample(0);
	rec_deepstack_saw(&d, addr(COPY_LEN - 8));
	ck_assert(rec_deepstack_expect(&d, addr(COPY_LEN + 6000), want ^ 2));
	ck_assert_int_eq(rec_deepstack_verify(&d), -ESTALE);
	/* read in this sample: the value must agree, without reading again */
	sample(0);
	rec_deepstack_saw(&d, addr(COPY_LEN - 8));
	ck_assert(rec_deepstack_read(&d, addr(COPY_LEN + 64), &v));
	ck_assert(!rec_deepstack_expect(&d, addr(COPY_LEN + 64), v + 1));
	ck_assert(rec_deepstack_expect(&d, addr(COPY_LEN + 64), v));
	/* the bounds of a read: the copy, the budget, other mappings */
	ck_assert(!rec_deepstack_expect(&d, addr(COPY_LEN - 8), v));
	ck_assert(!rec_deepstack_expect(&d, addr(COPY_LEN + (16u << 10)), v));
	ck_assert(!rec_deepstack_expect(&d, (uint64_t)(uintptr_t)&v, v));
	ck_assert_int_eq(rec_deepstack_verify(&d), 0);
}
END_TEST

/*
 * The re-read reads only the pages that hold a marked word: a page in
 * between may be gone, and a change anywhere among the words is seen.
 */
START_TEST(test_sparse_reread)
{
	uint64_t v, off[3] = { COPY_LEN + 8, COPY_LEN + 3 * 4096 + 16,
			       COPY_LEN + 3 * 4096 + 2048 };
	size_t i;

	sample(0);
	rec_deepstack_saw(&d, addr(COPY_LEN - 8));
	for (i = 0; i < 3; i++)
		ck_assert(rec_deepstack_read(&d, addr(off[i]), &v));
	ck_assert_int_eq(mprotect(stk + COPY_LEN + 4096, 8192, PROT_NONE), 0);
	ck_assert_int_eq(rec_deepstack_verify(&d), 0);
	stk[off[2] + 7] ^= 0x10;
	ck_assert_int_eq(rec_deepstack_verify(&d), -ESTALE);
	ck_assert_int_eq(
	    mprotect(stk + COPY_LEN + 4096, 8192, PROT_READ | PROT_WRITE), 0);
}
END_TEST

static Suite *
deepstack_suite(void)
{
	Suite *s = suite_create("record_deepstack");
	TCase *tr = tcase_create("reads");
	TCase *tc = tcase_create("callsite");

	tcase_add_checked_fixture(tr, setup, teardown);
	tcase_add_test(tr, test_read_and_verify);
	tcase_add_test(tr, test_copy_word_changed);
	tcase_add_test(tr, test_live_word_changed);
	tcase_add_test(tr, test_nothing_seen);
	tcase_add_test(tr, test_bounds);
	tcase_add_test(tr, test_segments);
	tcase_add_test(tr, test_off);
	tcase_add_test(tr, test_gone);
	tcase_add_test(tr, test_expect);
	tcase_add_test(tr, test_sparse_reread);
	suite_add_tcase(s, tr);
	tcase_add_test(tc, test_callsite_direct);
	tcase_add_test(tc, test_callsite_plt);
	tcase_add_test(tc, test_callsite_jumps);
	tcase_add_test(tc, test_callsite_indirect);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(deepstack_suite());

	return unit_run(sr);
}
