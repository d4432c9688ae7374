/*
 * check_record_cfirule.c: the recorder's own reading of CFI rows
 * (sp-record/cfirule.c) on .eh_frame bytes built here, one CIE and one
 * FDE, and the memo that keeps the rules by file identity and address
 * (sp-record/cfimemo.c): hit, miss, a file changed in place, the bound.
 * That these rules unwind as libunwind does is check_record_unwind.c's.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sp-record/unwind/cfimemo.h"
#include "sp-record/unwind/cfirule.h"

#define SEC_VADDR 0x2000u /* where the built section lies */
#define FUNC 0x1000u      /* the function its FDE covers */
#define FUNC_LEN 0x40u

/* An .eh_frame section being built. */
struct sec {
	uint8_t b[512];
	size_t n;
	size_t fde; /* offset of the FDE */
};

static void
put(struct sec *s, const void *p, size_t n)
{
	ck_assert_uint_le(s->n + n, sizeof(s->b));
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void
put32(struct sec *s, uint32_t v)
{
	put(s, &v, 4);
}

/* Patches the length field at `at` to cover what follows it. */
static void
close_entry(struct sec *s, size_t at)
{
	uint32_t len = (uint32_t)(s->n - at - 4);

	memcpy(s->b + at, &len, 4);
}

/*
 * A CIE with augmentation `aug` ("zR" or "zRS"; code 1, data -8, return
 * address in column 16, pointers pc-relative sdata4), whose initial
 * instructions are CFA = SP + 8 and the return address at CFA - 8, then
 * an FDE for [FUNC, FUNC + FUNC_LEN) with program `prog`.
 */
static void
build(struct sec *s, const char *aug, const uint8_t *prog, size_t len)
{
	static const uint8_t cie_body[] = { 1,    0x78, 16, 1,    0x1b,
					    0x0c, 7,    8,  0x90, 1 };
	int32_t loc;

	memset(s, 0, sizeof(*s));
	put32(s, 0);
	put32(s, 0); /* CIE id */
	put(s, "\1", 1);
	put(s, aug, strlen(aug) + 1);
	put(s, cie_body, sizeof(cie_body));
	close_entry(s, 0);
	s->fde = s->n;
	put32(s, 0);
	put32(s, (uint32_t)(s->n)); /* back to the CIE at 0 */
	loc = (int32_t)(FUNC - (SEC_VADDR + s->n));
	put(s, &loc, 4);
	put32(s, FUNC_LEN);
	put(s, "\0", 1); /* no augmentation data */
	put(s, prog, len);
	close_entry(s, s->fde);
}

static int
find(const struct sec *s, uint64_t pc, struct rec_cfirule *r)
{
	return rec_cfirule_find(s->b, s->n, SEC_VADDR, SEC_VADDR + s->fde, pc,
				r);
}

/* The rule at `pc` must be CFA = reg + off, RA at ra, BP's rule bp. */
static void
expect(const struct sec *s, uint64_t pc, int reg, int32_t off, int16_t ra,
       int16_t bp)
{
	struct rec_cfirule r, back;

	ck_assert_int_eq(find(s, pc, &r), 0);
	ck_assert_int_eq(r.cfa_reg, reg);
	ck_assert_int_eq(r.cfa_off, off);
	ck_assert_int_eq(r.ra, ra);
	ck_assert_int_eq(r.bp, bp);
	rec_cfirule_unpack(rec_cfirule_pack(&r), &back);
	ck_assert_int_eq(back.cfa_reg, reg);
	ck_assert_int_eq(back.cfa_off, off);
	ck_assert_int_eq(back.ra, ra);
	ck_assert_int_eq(back.bp, bp);
	/* only the FDE's first and last bytes have a neighbour outside it */
	ck_assert(r.prev_in == (pc > FUNC) && back.prev_in == r.prev_in);
	ck_assert(r.next_in == (pc + 1 < FUNC + FUNC_LEN) &&
		  back.next_in == r.next_in);
	ck_assert(!r.tiny && !back.tiny); /* FUNC_LEN is 0x40 */
}

/* push %rbp; mov %rsp,%rbp; ...; leave (remembered); ret; more code */
static const uint8_t frame_prog[] = {
	0x41,        /* advance 1 */
	0x0e, 16,    /* CFA = SP + 16 */
	0x86, 2,     /* BP at CFA - 16 */
	0x43,        /* advance 3 */
	0x0d, 6,     /* CFA = BP + 16 */
	0x0a,        /* remember */
	0x4c,        /* advance 12: at FUNC + 0x10 */
	0x0c, 7,  8, /* CFA = SP + 8 */
	0xc6,        /* restore BP: same */
	0x41,        /* advance 1 */
	0x0b,        /* restore the remembered row */
	0x5f,        /* advance 31: at FUNC + 0x30 */
	0x07, 16,    /* RA undefined: the outermost frame */
};

START_TEST(test_rows)
{
	const int16_t same = REC_CFIRULE_SAME;
	struct rec_cfirule r;
	struct sec s;

	build(&s, "zR", frame_prog, sizeof(frame_prog));
	expect(&s, FUNC, REC_CFA_SP, 8, -8, same);
	expect(&s, FUNC + 1, REC_CFA_SP, 16, -8, -16);
	expect(&s, FUNC + 3, REC_CFA_SP, 16, -8, -16);
	expect(&s, FUNC + 4, REC_CFA_BP, 16, -8, -16);
	expect(&s, FUNC + 0x0f, REC_CFA_BP, 16, -8, -16);
	expect(&s, FUNC + 0x10, REC_CFA_SP, 8, -8, same);
	expect(&s, FUNC + 0x11, REC_CFA_BP, 16, -8, -16);
	expect(&s, FUNC + 0x2f, REC_CFA_BP, 16, -8, -16);
	expect(&s, FUNC + 0x30, REC_CFA_BP, 16, REC_CFIRULE_UNDEF, -16);
	expect(&s, FUNC + FUNC_LEN - 1, REC_CFA_BP, 16, REC_CFIRULE_UNDEF, -16);
	ck_assert_int_eq(find(&s, FUNC - 1, &r), -ENOENT);
	ck_assert_int_eq(find(&s, FUNC + FUNC_LEN, &r), -ENOENT);
}
END_TEST

/* An FDE of a trampoline's size says so (the unwinder reads its code). */
START_TEST(test_tiny)
{
	uint32_t len = 9;
	struct rec_cfirule r, back;
	struct sec s;

	build(&s, "zR", frame_prog, sizeof(frame_prog));
	memcpy(s.b + s.fde + 12, &len, 4); /* the FDE's address range */
	ck_assert_int_eq(find(&s, FUNC, &r), 0);
	rec_cfirule_unpack(rec_cfirule_pack(&r), &back);
	ck_assert(r.tiny && back.tiny && !back.prev_in && back.next_in);
	ck_assert_int_eq(find(&s, FUNC + len, &r), -ENOENT);
}
END_TEST

/*
 * A CIE "zPLR" as Rust and C++ code has: a personality routine reached
 * through the GOT (encoding 0x9b: indirect, pc-relative, sdata4) and an
 * LSDA pointer in each FDE.  The rules only skip both.
 */
START_TEST(test_personality)
{
	static const uint8_t cie_body[] = { 1,    0x78, 16,   7,    0x9b, 0,
					    0x10, 0,    0,    0x1b, 0x1b, 0x0c,
					    7,    8,    0x90, 1 };
	struct sec s;
	int32_t loc;

	memset(&s, 0, sizeof(s));
	put32(&s, 0);
	put32(&s, 0); /* CIE id */
	put(&s, "\1zPLR", 6);
	put(&s, cie_body, sizeof(cie_body));
	close_entry(&s, 0);
	s.fde = s.n;
	put32(&s, 0);
	put32(&s, (uint32_t)(s.n)); /* back to the CIE at 0 */
	loc = (int32_t)(FUNC - (SEC_VADDR + s.n));
	put(&s, &loc, 4);
	put32(&s, FUNC_LEN);
	put(&s, "\4", 1); /* augmentation data: the LSDA pointer */
	put32(&s, 0x100);
	put(&s, frame_prog, sizeof(frame_prog));
	close_entry(&s, s.fde);
	expect(&s, FUNC, REC_CFA_SP, 8, -8, REC_CFIRULE_SAME);
	expect(&s, FUNC + 4, REC_CFA_BP, 16, -8, -16);
}
END_TEST

/* Rows libunwind would read otherwise, or not at all, are refused. */
START_TEST(test_refused)
{
	static const uint8_t expr_cfa[] = { 0x41, 0x0f, 2, 0x77, 8 };
	static const uint8_t expr_rbx[] = { 0x41, 0x10, 3, 1, 0x9c };
	static const uint8_t cfa_rbx[] = { 0x41, 0x0c, 3, 8 };
	static const uint8_t val_off[] = { 0x41, 0x14, 6, 2 };
	static const uint8_t high_reg[] = { 0x41, 0x05, 17, 2 };
	static const uint8_t restore_none[] = { 0x41, 0x0b };
	struct rec_cfirule r;
	struct sec s;

	build(&s, "zR", expr_cfa, sizeof(expr_cfa));
	ck_assert_int_eq(find(&s, FUNC, &r), 0); /* the row before is kept */
	ck_assert_int_eq(find(&s, FUNC + 1, &r), -ENOTSUP);
	build(&s, "zR", expr_rbx, sizeof(expr_rbx));
	ck_assert_int_eq(find(&s, FUNC + 1, &r), -ENOTSUP);
	build(&s, "zR", cfa_rbx, sizeof(cfa_rbx));
	ck_assert_int_eq(find(&s, FUNC + 1, &r), -ENOTSUP);
	build(&s, "zR", val_off, sizeof(val_off));
	ck_assert_int_eq(find(&s, FUNC + 1, &r), -ENOTSUP);
	build(&s, "zR", high_reg, sizeof(high_reg));
	ck_assert_int_eq(find(&s, FUNC + 1, &r), -ENOTSUP);
	build(&s, "zR", restore_none, sizeof(restore_none));
	ck_assert_int_eq(find(&s, FUNC + 1, &r), -ENOTSUP);
	/* a signal frame's CIE: libunwind looks its caller up differently */
	build(&s, "zRS", frame_prog, sizeof(frame_prog));
	ck_assert_int_eq(find(&s, FUNC, &r), -ENOTSUP);
}
END_TEST

/* Cut anywhere, the section gives an error, never a read past its end. */
START_TEST(test_cut)
{
	struct rec_cfirule r;
	struct sec s;
	uint8_t *copy;
	size_t cut;
	int rc;

	build(&s, "zR", frame_prog, sizeof(frame_prog));
	for (cut = 0; cut < s.n; cut++) {
		copy = malloc(cut ? cut : 1); /* ASan sees a read past it */
		ck_assert_ptr_nonnull(copy);
		memcpy(copy, s.b, cut);
		rc = rec_cfirule_find(copy, cut, SEC_VADDR, SEC_VADDR + s.fde,
				      FUNC + 0x30, &r);
		ck_assert_int_lt(rc, 0);
		free(copy);
	}
	ck_assert_int_eq(find(&s, FUNC + 0x30, &r), 0);
}
END_TEST

/* ------------------------------------------------------------- memo */

static void
id_of(const char *path, struct rec_filememo_id *id)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	rec_filememo_id_of(&st, id);
}

START_TEST(test_memo_hit_miss_changed)
{
	char path[] = "/tmp/sp-cfimemo-XXXXXX";
	struct rec_cfimemo *m = rec_cfimemo_new(16);
	struct timespec t[2] = { { 0, UTIME_OMIT }, { 0, 0 } };
	struct rec_filememo_id a, b;
	uint64_t w = 0;
	int fd = mkstemp(path);

	ck_assert_ptr_nonnull(m);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "one", 3), 3);
	id_of(path, &a);
	ck_assert(!rec_cfimemo_get(m, &a, 0x1234, &w));
	ck_assert_int_eq(rec_cfimemo_put(m, &a, 0x1234, 77), 0);
	id_of(path, &b); /* the same file seen again */
	ck_assert(rec_cfimemo_get(m, &b, 0x1234, &w));
	ck_assert_uint_eq(w, 77);
	ck_assert(!rec_cfimemo_get(m, &b, 0x1235, &w)); /* another address */
	/* rewritten in place, its time moved on: the old rule is not its */
	ck_assert_int_eq(pwrite(fd, "two", 3, 0), 3);
	t[1].tv_sec = 1000000000;
	ck_assert_int_eq(futimens(fd, t), 0);
	id_of(path, &b);
	ck_assert(!rec_cfimemo_get(m, &b, 0x1234, &w));
	ck_assert_int_eq(rec_cfimemo_put(m, &b, 0x1234, 78), 0);
	/* grown without a new time: the size tells */
	ck_assert_int_eq(write(fd, "more", 4), 4);
	ck_assert_int_eq(futimens(fd, t), 0);
	id_of(path, &a);
	ck_assert(!rec_cfimemo_get(m, &a, 0x1234, &w));
	close(fd);
	unlink(path);
	rec_cfimemo_free(m);
}
END_TEST

START_TEST(test_memo_bounded)
{
	struct rec_cfimemo *m = rec_cfimemo_new(3);
	struct rec_filememo_id id;
	uint64_t v, w;

	ck_assert_ptr_nonnull(m);
	memset(&id, 0, sizeof(id));
	id.ino = 5;
	for (v = 0; v < 10; v++) {
		ck_assert_int_eq(rec_cfimemo_put(m, &id, v, v + 100), 0);
		ck_assert_uint_le(rec_cfimemo_count(m), 3);
		ck_assert(
		    rec_cfimemo_get(m, &id, v, &w)); /* the newest stays */
		ck_assert_uint_eq(w, v + 100);
	}
	ck_assert_uint_ge(rec_cfimemo_resets(m), 3);
	/* a word put again replaces its old one: no reset */
	v = rec_cfimemo_resets(m);
	ck_assert_int_eq(rec_cfimemo_put(m, &id, 9, 1), 0);
	ck_assert_uint_eq(rec_cfimemo_resets(m), v);
	ck_assert(rec_cfimemo_get(m, &id, 9, &w));
	ck_assert_uint_eq(w, 1);
	rec_cfimemo_free(m);
}
END_TEST

static Suite *
cfirule_suite(void)
{
	Suite *s = suite_create("record_cfirule");
	TCase *tr = tcase_create("rows");
	TCase *tm = tcase_create("memo");

	tcase_add_test(tr, test_rows);
	tcase_add_test(tr, test_tiny);
	tcase_add_test(tr, test_personality);
	tcase_add_test(tr, test_refused);
	tcase_add_test(tr, test_cut);
	tcase_add_test(tm, test_memo_hit_miss_changed);
	tcase_add_test(tm, test_memo_bounded);
	suite_add_tcase(s, tr);
	suite_add_tcase(s, tm);
	return s;
}

int
main(void)
{
	return ck_run(cfirule_suite());
}
