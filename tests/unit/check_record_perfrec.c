/*
 * check_record_perfrec.c: decoding perf records (samples with callchains,
 * user registers and stack copies, MMAP2, COMM, FORK/EXIT, LOST) from
 * crafted bytes, every truncation of them, and splitting callchains into
 * kernel and user frames with return addresses turned into call sites.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/modtab.h"
#include "sp-record/perf/perfrec.h"
#include "sp-record/unwind/stack.h"

#define ST_BASE                                                                \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                 \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define ST_DWARF (ST_BASE | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

/* A record being built: u64 words after the header. */
struct rb {
	uint64_t w[64];
	size_t n;
};

static void
put(struct rb *b, uint64_t v)
{
	ck_assert_uint_lt(b->n, 64);
	b->w[b->n++] = v;
}

static void
put32x2(struct rb *b, uint32_t lo, uint32_t hi)
{
	put(b, (uint64_t)hi << 32 | lo);
}

static void
put_str(struct rb *b, const char *s)
{
	size_t len = strlen(s) + 1, words = (len + 7) / 8;

	ck_assert_uint_le(b->n + words, 64);
	memset(&b->w[b->n], 0, words * 8);
	memcpy(&b->w[b->n], s, len);
	b->n += words;
}

/* Sets the header; returns the record length in bytes. */
static size_t
finish(struct rb *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { type, misc, (uint16_t)(b->n * 8) };

	memcpy(&b->w[0], &h, sizeof(h));
	return b->n * 8;
}

/* The sample_id_all trailer for TID|TIME|CPU. */
static void
put_trailer(struct rb *b, uint32_t pid, uint32_t tid, uint64_t time)
{
	put32x2(b, pid, tid);
	put(b, time);
	put32x2(b, 1, 0);
}

static size_t
sample_base(struct rb *b)
{
	b->n = 1;
	put(b, 0x401234);     /* ip */
	put32x2(b, 100, 101); /* pid, tid */
	put(b, 5000);         /* time */
	put32x2(b, 3, 0);     /* cpu */
	put(b, 1000000);      /* period */
	put(b, 6);            /* callchain nr */
	put(b, (uint64_t)PERF_CONTEXT_KERNEL);
	put(b, 0xffffffff81001000ULL);
	put(b, 0xffffffff81002001ULL);
	put(b, (uint64_t)PERF_CONTEXT_USER);
	put(b, 0x401234);
	put(b, 0x401301);
	return finish(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL);
}

START_TEST(sample_fields)
{
	struct rec_perfrec_layout l;
	struct rec_perfrec_sample s;
	struct rb b;
	size_t len = sample_base(&b);
	uint64_t ts;

	ck_assert_int_eq(rec_perfrec_layout_init(&l, ST_BASE, 0), 0);
	ck_assert_int_eq(rec_perfrec_sample_parse(&l, b.w, len, &s), 0);
	ck_assert_uint_eq(s.ip, 0x401234);
	ck_assert_uint_eq(s.pid, 100);
	ck_assert_uint_eq(s.tid, 101);
	ck_assert_uint_eq(s.time, 5000);
	ck_assert_uint_eq(s.cpu, 3);
	ck_assert_uint_eq(s.period, 1000000);
	ck_assert_uint_eq(s.nchain, 6);
	ck_assert_uint_eq(s.chain[5], 0x401301);
	ck_assert_ptr_null(s.regs);
	ck_assert_ptr_null(s.stack);
	ck_assert_int_eq(rec_perfrec_time_of(&l, b.w, len, &ts), 0);
	ck_assert_uint_eq(ts, 5000);
}
END_TEST

START_TEST(truncated_samples_are_rejected)
{
	struct rec_perfrec_layout l;
	struct rec_perfrec_sample s;
	struct rb b;
	size_t len = sample_base(&b), cut;
	uint8_t *copy;

	ck_assert_int_eq(rec_perfrec_layout_init(&l, ST_BASE, 0), 0);
	for (cut = 0; cut < len; cut++) {
		/* An exact-size heap copy: ASan catches any overread. */
		copy = malloc(cut ? cut : 1);
		memcpy(copy, b.w, cut);
		ck_assert_int_eq(rec_perfrec_sample_parse(&l, copy, cut, &s),
				 -EBADMSG);
		free(copy);
	}
	/* A callchain count that claims more than the record holds. */
	b.w[6] = 1000;
	ck_assert_int_eq(rec_perfrec_sample_parse(&l, b.w, len, &s), -EBADMSG);
}
END_TEST

START_TEST(sample_with_registers_and_stack)
{
	struct rec_perfrec_layout l;
	struct rec_perfrec_sample s;
	struct rb b;
	size_t len;

	sample_base(&b);
	put(&b, PERF_SAMPLE_REGS_ABI_64);
	put(&b, 0x11); /* three registers in mask 0x103 */
	put(&b, 0x22);
	put(&b, 0x33);
	put(&b, 16); /* stack size */
	put(&b, 0xaaaa);
	put(&b, 0xbbbb);
	put(&b, 8); /* dyn_size */
	len = finish(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	ck_assert_int_eq(rec_perfrec_layout_init(&l, ST_DWARF, 0x103), 0);
	ck_assert_int_eq(rec_perfrec_sample_parse(&l, b.w, len, &s), 0);
	ck_assert_uint_eq(s.abi, PERF_SAMPLE_REGS_ABI_64);
	ck_assert_uint_eq(s.regs[2], 0x33);
	ck_assert_uint_eq(s.stack_len, 8);
	ck_assert_uint_eq(s.stack[0], 0xaa);
	/* dyn_size above the copied size is malformed. */
	b.w[b.n - 1] = 24;
	ck_assert_int_eq(rec_perfrec_sample_parse(&l, b.w, len, &s), -EBADMSG);
	/* No registers (a kernel thread): the abi word alone. */
	sample_base(&b);
	put(&b, PERF_SAMPLE_REGS_ABI_NONE);
	put(&b, 0);
	len = finish(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	ck_assert_int_eq(rec_perfrec_sample_parse(&l, b.w, len, &s), 0);
	ck_assert_ptr_null(s.regs);
	ck_assert_ptr_null(s.stack);
}
END_TEST

START_TEST(stack_copies_shrink_to_what_was_filled)
{
	struct perf_event_header hdr;
	uint64_t out[64];
	struct rec_perfrec_layout l;
	struct rec_perfrec_sample s;
	struct rb b;
	size_t len, n, i;

	ck_assert_int_eq(rec_perfrec_layout_init(&l, ST_DWARF, 0x1), 0);
	sample_base(&b);
	put(&b, PERF_SAMPLE_REGS_ABI_64);
	put(&b, 0x11);
	put(&b, 32); /* stack size */
	for (i = 0; i < 4; i++)
		put(&b, 0x0101010101010101ULL * (i + 1));
	put(&b, 12); /* dyn_size */
	len = finish(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	n = rec_perfrec_sample_compact(&l, b.w, len, out);
	ck_assert_uint_eq(n, len - 16);
	ck_assert_int_eq(rec_perfrec_sample_parse(&l, out, n, &s), 0);
	memcpy(&hdr, out, sizeof(hdr));
	ck_assert_uint_eq(hdr.size, n);
	ck_assert_uint_eq(s.stack_len, 12);
	ck_assert_uint_eq(s.stack[0], 1);
	ck_assert_uint_eq(s.stack[11], 2);
	ck_assert_uint_eq(s.regs[0], 0x11);
	ck_assert_uint_eq(s.nchain, 6);
	/* Nothing filled: the copy goes, and so does dyn_size. */
	b.w[b.n - 1] = 0;
	n = rec_perfrec_sample_compact(&l, b.w, len, out);
	ck_assert_uint_eq(n, len - 40);
	ck_assert_int_eq(rec_perfrec_sample_parse(&l, out, n, &s), 0);
	ck_assert_ptr_null(s.stack);
	/* All of it filled: nothing to gain. */
	b.w[b.n - 1] = 32;
	ck_assert_uint_eq(rec_perfrec_sample_compact(&l, b.w, len, out), 0);
	/* Without stack copies the layout has nothing to shrink. */
	ck_assert_int_eq(rec_perfrec_layout_init(&l, ST_BASE, 0), 0);
	len = sample_base(&b);
	ck_assert_uint_eq(rec_perfrec_sample_compact(&l, b.w, len, out), 0);
}
END_TEST

/*
 * A full copy with the bytes above it appended (deepbpf.h): one record
 * whose copy is both, its user registers found by number.
 */
START_TEST(full_copies_extend_with_more)
{
	static const uint8_t more[20] = { 9, 8, 7 };
	uint64_t out[64], sp = 0;
	struct rec_perfrec_layout l;
	struct rec_perfrec_sample s, t;
	struct rb b;
	size_t len, n, i;

	/* registers 0 and 7 (the SP) */
	ck_assert_int_eq(rec_perfrec_layout_init(&l, ST_DWARF, 0x81), 0);
	sample_base(&b);
	put(&b, PERF_SAMPLE_REGS_ABI_64);
	put(&b, 0x11);
	put(&b, 0x7ff000);
	put(&b, 16); /* stack size */
	for (i = 0; i < 2; i++)
		put(&b, 0x0101010101010101ULL * (i + 1));
	put(&b, 16); /* dyn_size: all of it */
	len = finish(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	ck_assert_uint_eq(rec_perfrec_sample_compact_size(&l, b.w, len, &s), 0);
	ck_assert(rec_perfrec_regs_value(s.regs, l.regs_mask, 7, &sp) &&
		  sp == 0x7ff000);
	ck_assert(!rec_perfrec_regs_value(s.regs, l.regs_mask, 6, &sp));
	ck_assert(!rec_perfrec_regs_value(NULL, l.regs_mask, 7, &sp));
	n = rec_perfrec_sample_extended_size(&s, sizeof(more));
	ck_assert_uint_eq(n, len + 24); /* 20 bytes, padded to 24 */
	ck_assert_uint_le(n, sizeof(out));
	rec_perfrec_sample_extend_write(b.w, &s, more, sizeof(more), out);
	ck_assert_int_eq(rec_perfrec_sample_parse(&l, out, n, &t), 0);
	ck_assert_uint_eq(t.stack_len, 16 + sizeof(more));
	ck_assert_uint_eq(t.stack[15], 2);
	ck_assert_uint_eq(t.stack[16], 9);
	ck_assert_uint_eq(t.stack[18], 7);
	ck_assert_uint_eq(t.regs[1], 0x7ff000);
	ck_assert_uint_eq(t.nchain, 6);
}
END_TEST

START_TEST(unknown_sample_bits_are_refused)
{
	struct rec_perfrec_layout l;

	ck_assert_int_eq(
	    rec_perfrec_layout_init(&l, ST_BASE | PERF_SAMPLE_BRANCH_STACK, 0),
	    -EINVAL);
}
END_TEST

/* A tracepoint's raw data (sched_switch's, for --off-cpu's states). */
START_TEST(raw_data_is_found_and_bounded)
{
	struct rec_perfrec_layout l;
	struct rec_perfrec_sample s;
	struct rb b;
	size_t len;
	uint32_t size;

	ck_assert_int_eq(
	    rec_perfrec_layout_init(&l, ST_BASE | PERF_SAMPLE_RAW, 0), 0);
	sample_base(&b);
	b.n--; /* past the callchain: u32 size 12, 12 bytes */
	put(&b, 0x401301);
	size = 12;
	put(&b, (uint64_t)0x11223344 << 32 | size);
	put(&b, 0x5566778899aabbccULL);
	len = finish(&b, PERF_RECORD_SAMPLE, 0);
	ck_assert_int_eq(rec_perfrec_sample_parse(&l, b.w, len, &s), 0);
	ck_assert_uint_eq(s.raw_len, 12);
	ck_assert_uint_eq(s.raw[0], 0x44);
	ck_assert_uint_eq(s.raw[11], 0x55);
	/* A size past the record's end is refused. */
	b.w[b.n - 2] = (uint64_t)0x11223344 << 32 | 13;
	ck_assert_int_eq(rec_perfrec_sample_parse(&l, b.w, len, &s), -EBADMSG);
	b.w[b.n - 2] = (uint64_t)0x11223344 << 32 | 12;
	ck_assert_int_eq(rec_perfrec_sample_parse(&l, b.w, len - 8, &s),
			 -EBADMSG);
}
END_TEST

START_TEST(mmap2_and_comm)
{
	struct rec_perfrec_layout l;
	struct rec_perfrec_mmap2 m;
	struct rec_perfrec_comm c;
	struct rec_perfrec_id id;
	struct rb b;
	size_t len;
	uint64_t ts;

	ck_assert_int_eq(rec_perfrec_layout_init(&l, ST_BASE, 0), 0);
	b.n = 1;
	put32x2(&b, 100, 102);
	put(&b, 0x7f0000001000ULL); /* addr */
	put(&b, 0x3000);            /* len */
	put(&b, 0x2000);            /* pgoff */
	put32x2(&b, 8, 1);          /* maj, min */
	put(&b, 4242);              /* ino */
	put(&b, 0);                 /* ino generation */
	put32x2(&b, 5, 2);          /* prot r-x, flags */
	put_str(&b, "/usr/lib/libfoo.so");
	put_trailer(&b, 100, 102, 7000);
	len = finish(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	ck_assert_int_eq(rec_perfrec_mmap2_parse(&l, b.w, len, &m), 0);
	ck_assert_uint_eq(m.pid, 100);
	ck_assert_uint_eq(m.addr, 0x7f0000001000ULL);
	ck_assert_uint_eq(m.pgoff, 0x2000);
	ck_assert_uint_eq(m.ino, 4242);
	ck_assert_uint_eq(m.prot, 5);
	ck_assert_str_eq(m.path, "/usr/lib/libfoo.so");
	ck_assert_uint_eq(m.path_len, 18);
	ck_assert_int_eq(rec_perfrec_time_of(&l, b.w, len, &ts), 0);
	ck_assert_uint_eq(ts, 7000);
	ck_assert_int_eq(rec_perfrec_id_of(&l, b.w, len, &id), 0);
	ck_assert_uint_eq(id.tid, 102);
	/* A name without its NUL before the trailer is malformed. */
	memset((uint8_t *)&b.w[b.n - 3] - 8, 'x', 8);
	ck_assert_int_eq(rec_perfrec_mmap2_parse(&l, b.w, len, &m), -EBADMSG);

	b.n = 1;
	put32x2(&b, 100, 100);
	put_str(&b, "python3");
	put_trailer(&b, 100, 100, 8000);
	len = finish(&b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	ck_assert_int_eq(rec_perfrec_comm_parse(&l, b.w, len, &c), 0);
	ck_assert(c.is_exec);
	ck_assert_str_eq(c.name, "python3");
	ck_assert_int_eq(rec_perfrec_comm_parse(&l, b.w, 16, &c), -EBADMSG);
}
END_TEST

START_TEST(task_and_lost)
{
	struct rec_perfrec_task t;
	struct rb b;
	uint64_t lost;
	size_t len;

	b.n = 1;
	put32x2(&b, 200, 100);
	put32x2(&b, 201, 101);
	put(&b, 9000);
	put_trailer(&b, 200, 201, 9000);
	len = finish(&b, PERF_RECORD_FORK, 0);
	ck_assert_int_eq(rec_perfrec_task_parse(b.w, len, &t), 0);
	ck_assert_uint_eq(t.pid, 200);
	ck_assert_uint_eq(t.ppid, 100);
	ck_assert_uint_eq(t.tid, 201);
	ck_assert_uint_eq(t.ptid, 101);
	ck_assert_int_eq(rec_perfrec_task_parse(b.w, 20, &t), -EBADMSG);

	b.n = 1;
	put(&b, 77); /* id */
	put(&b, 12); /* lost */
	len = finish(&b, PERF_RECORD_LOST, 0);
	ck_assert_int_eq(rec_perfrec_lost_parse(b.w, len, &lost), 0);
	ck_assert_uint_eq(lost, 12);
	b.n = 1;
	put(&b, 5);
	len = finish(&b, PERF_RECORD_LOST_SAMPLES, 0);
	ck_assert_int_eq(rec_perfrec_lost_parse(b.w, len, &lost), 0);
	ck_assert_uint_eq(lost, 5);
	ck_assert_int_eq(rec_perfrec_lost_parse(b.w, 8, &lost), -EBADMSG);
}
END_TEST

START_TEST(callchain_contexts_start_with_an_ip)
{
	const uint64_t chain[] = {
		(uint64_t)PERF_CONTEXT_KERNEL,
		0xffff1000,
		0xffff2000,
		(uint64_t)PERF_CONTEXT_USER,
		0x1000,
		0x2000,
		0x3000,
	};
	struct rec_stack_rawframe f[8];
	uint64_t skipped = 0;
	size_t n;

	n = rec_stack_callchain_split(
	    chain, 7, REC_STACK_CHAIN_KERNEL | REC_STACK_CHAIN_USER, f, 8,
	    NULL);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(f[0].addr, 0xffff1000);
	ck_assert_int_eq(f[0].mode, SP_FRAME_KERNEL);
	ck_assert_uint_eq(f[1].addr, 0xffff1fff);
	ck_assert_uint_eq(f[2].addr, 0x1000); /* the user ip: kept */
	ck_assert_int_eq(f[2].mode, SP_FRAME_USER);
	ck_assert_uint_eq(f[3].addr, 0x1fff);
	ck_assert_uint_eq(f[4].addr, 0x2fff);

	n = rec_stack_callchain_split(chain, 7, REC_STACK_CHAIN_KERNEL, f, 8,
				      &skipped);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(skipped, 3);
	n = rec_stack_callchain_split(chain, 7, REC_STACK_CHAIN_USER, f, 2,
				      NULL);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(f[1].addr, 0x1fff);
	/* A zero return address ends the walk; a zero ip stays. */
	{
		const uint64_t zeros[] = { (uint64_t)PERF_CONTEXT_USER, 0,
					   0x2000, 0 };

		n = rec_stack_callchain_split(zeros, 4, REC_STACK_CHAIN_USER, f,
					      8, NULL);
		ck_assert_uint_eq(n, 2);
		ck_assert_uint_eq(f[0].addr, 0);
		ck_assert_uint_eq(f[1].addr, 0x1fff);
	}
	/* No marker at all: user mode, first entry is the ip. */
	n = rec_stack_callchain_split(chain + 4, 3, REC_STACK_CHAIN_USER, f, 8,
				      NULL);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(f[0].addr, 0x1000);
}
END_TEST

START_TEST(stack_build_resolves_and_marks_truncation)
{
	struct sp_module exe = { 0, 100,   0x400000, 0x402000, 0x1000,
				 1, false, "/bin/x", 6 };
	struct sp_frame out[REC_STACK_MAX];
	struct rec_stack st;
	struct rec_perfrec_layout l;
	struct rec_perfrec_sample s;
	struct sp_modtab *t = sp_modtab_new();
	struct rb b;
	size_t len = sample_base(&b), n;
	uint32_t id;

	ck_assert_int_eq(sp_modtab_intern(t, &exe, NULL, &id), 0);
	ck_assert_int_eq(rec_perfrec_layout_init(&l, ST_BASE, 0), 0);
	ck_assert_int_eq(rec_perfrec_sample_parse(&l, b.w, len, &s), 0);
	ck_assert_int_eq(rec_stack_init(&st, REC_CG_FP, 0, 127, NULL), 0);
	n = rec_stack_build(&st, t, 100, &s, out);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(out[0].mode, SP_FRAME_KERNEL);
	ck_assert_uint_eq(out[2].module_id, id);
	ck_assert_uint_eq(out[2].rel_ip, 0x1234 + 0x1000);
	ck_assert_uint_eq(out[3].abs_ip, 0x401300);
	/* A chain as deep as the kernel's limit was cut: marker at the root. */
	st.max_chain = 4;
	n = rec_stack_build(&st, t, 100, &s, out);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(out[4].mode, SP_FRAME_TRUNCATED);
	ck_assert_uint_eq(st.stats.truncated, 1);
	/* No callchain: the sample ip alone, in the mode misc says. */
	s.nchain = 0;
	st.kernel = true;
	n = rec_stack_build(&st, t, 100, &s, out);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(out[0].mode, SP_FRAME_KERNEL);
	ck_assert_uint_eq(out[0].abs_ip, 0x401234);
	/* Unless kernel frames are not wanted: no user pc, no frame. */
	st.kernel = false;
	n = rec_stack_build(&st, t, 100, &s, out);
	ck_assert_uint_eq(n, 0);
	rec_stack_release(&st);
	sp_modtab_free(t);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_perfrec");
	TCase *tp = tcase_create("decode");
	TCase *tc = tcase_create("callchain");

	tcase_add_test(tp, sample_fields);
	tcase_add_test(tp, truncated_samples_are_rejected);
	tcase_add_test(tp, sample_with_registers_and_stack);
	tcase_add_test(tp, stack_copies_shrink_to_what_was_filled);
	tcase_add_test(tp, full_copies_extend_with_more);
	tcase_add_test(tp, unknown_sample_bits_are_refused);
	tcase_add_test(tp, raw_data_is_found_and_bounded);
	tcase_add_test(tp, mmap2_and_comm);
	tcase_add_test(tp, task_and_lost);
	tcase_add_test(tc, callchain_contexts_start_with_an_ip);
	tcase_add_test(tc, stack_build_resolves_and_marks_truncation);
	suite_add_tcase(s, tp);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
