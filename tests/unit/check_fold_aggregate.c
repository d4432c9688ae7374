/*
 * check_fold_aggregate.c: sp-fold's aggregation: the folded set (counts,
 * bytewise order), the frame filters, the perf script reader (the
 * backtracking of stackcollapse-perf.pl's patterns) and the record stream
 * reader (names, comms, frames grouped by function, errors, what a
 * forget record frees).
 */
#include "tests/unit/ck.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "sp-fold/live/livetab.h"
#include "sp-fold/model/filter.h"
#include "sp-fold/model/foldset.h"
#include "sp-fold/model/profile.h"
#include "sp-fold/read/read_perfscript.h"
#include "sp-fold/read/read_records.h"
#include "sp-fold/write/write_folded.h"

/* The folded output of a set, as one string the caller frees. */
static char *
folded(struct fold_set *set)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(
	    fold_write_folded(f, &(struct fold_profile){ .set = set }), 0);
	fclose(f);
	return s;
}

/* Reads a record stream into `set`; returns the reader's status. */
static int
read_records(FILE *in, const struct fold_opts *o, struct fold_set *set)
{
	struct fold_profile p;
	struct fold_reader r;
	int rc;

	ck_assert_int_eq(fold_reader_init(&r, "", o), 0);
	rc = fold_reader_read(&r, in);
	fold_reader_profile(&r, &p);
	if (!rc)
		rc = fold_profile_fold(&p, &o->name, set) != 0;
	fold_reader_release(&r);
	return rc;
}

/* Folds `text` with a reader; returns its status and the output. */
static int
run(const char *text, const struct fold_opts *o, bool perf, char **out)
{
	struct fold_set *set = fold_set_new();
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int rc;

	ck_assert_ptr_nonnull(set);
	ck_assert_ptr_nonnull(in);
	rc = perf ? fold_read_perfscript(in, "", o, set)
		  : read_records(in, o, set);
	fclose(in);
	*out = folded(set);
	fold_set_free(set);
	return rc;
}

static void
expect(const char *text, const struct fold_opts *o, bool perf, const char *want)
{
	char *got;

	ck_assert_int_eq(run(text, o, perf, &got), 0);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(set_sums_and_sorts_bytewise)
{
	struct fold_set *s = fold_set_new();
	char *out;

	ck_assert_int_eq(fold_set_add(s, "b;c", 3, 2), 0);
	ck_assert_int_eq(fold_set_add(s, "a;b", 3, 1), 0);
	ck_assert_int_eq(fold_set_add(s, "b", 1, 5), 0);
	ck_assert_int_eq(fold_set_add(s, "b;c", 3, 3), 0);
	ck_assert_int_eq(fold_set_add(s, "B", 1, 1), 0);
	ck_assert_uint_eq(fold_set_total(s), 12);
	out = folded(s);
	ck_assert_str_eq(out, "B 1\na;b 1\nb 5\nb;c 5\n");
	free(out);
	fold_set_free(s);
}
END_TEST

START_TEST(filters_match_frames_not_the_comm)
{
	struct fold_filter_opts o = { 0 };
	bool comm = true;
	char s[64];
	size_t n;

	ck_assert_int_eq(regcomp(&o.include, "^wo", REG_EXTENDED), 0);
	o.has_include = true;
	memcpy(s, "work;main;x", 12);
	n = 11;
	ck_assert(
	    !fold_filter_frames(&o, comm, s, &n)); /* "work" is the comm */
	memcpy(s, "app;main;work", 14);
	n = 13;
	ck_assert(fold_filter_frames(&o, comm, s, &n));
	o.max_depth = 1;
	ck_assert(!fold_filter_frames(&o, comm, s, &n)); /* cut before work */
	ck_assert_uint_eq(n, 8);
	o.has_include = false;
	comm = false;
	n = 13;
	ck_assert(fold_filter_frames(&o, comm, s, &n));
	ck_assert_uint_eq(n, 3);
	regfree(&o.include);
	ck_assert_int_eq(regcomp(&o.exclude, "i", REG_EXTENDED), 0);
	o.has_exclude = true;
	o.max_depth = 0;
	n = 13;
	ck_assert(!fold_filter_frames(&o, comm, s, &n));
	regfree(&o.exclude);
}
END_TEST

START_TEST(perf_headers_follow_the_script)
{
	struct fold_opts o = { .name.tid = true };

	/* one-character comms do not match; multi-word comms do */
	expect("ab 5 1.0: ev:\n\t1 f (m)\n\n"
	       "V8 Worker 7/8 [001] 1.0: ev:\n\t1 g (m)\n\n"
	       "swapper 0/0 [000] 1.0: ev:\n\t1 h (m)\n\n"
	       "Thread 2 1234 1.0: ev:\n\t1 i (m)\n\n",
	       &o, true,
	       "Thread-?/2;i 1\nV8_Worker-7/8;g 1\nab-?/5;f 1\n"
	       "swapper-?/0;h 1\n");
}
END_TEST

START_TEST(perf_frames_backtrack_like_the_script)
{
	struct fold_opts o = { .name.addrs = true };

	expect("app 1 1.0: ev:\n"
	       "\tab (x)\n"
	       "\t12 f (a b) (/lib/m.so)\n"
	       "\t13 g+0x1f ((deleted))\n"
	       "\t14 [unknown] (/lib/libz.so.1)\n"
	       "\t15 [unknown] ([unknown])\n"
	       "\t16 k(int)+0x1 (/x)\n"
	       "\n",
	       &o, true, "app;k;[unknown <15>];[libz.so.1 <14>];g;f ;b 1\n");
}
END_TEST

START_TEST(perf_events_default_to_the_first)
{
	struct fold_opts o = { 0 };

	/* each sample counts its period, as stackcollapse-perf.pl counts */
	expect("a1 1 1.0: 100 cycles: \n\t1 f (m)\n\n"
	       "a1 1 1.0: 100 instructions: \n\t1 g (m)\n\n"
	       "a1 1 1.0: 100 cycles:\n\t1 f (m)\n\n",
	       &o, true, "a1;f 200\n");
	o.count.event_filter = "instructions";
	expect("a1 1 1.0: 100 cycles: \n\t1 f (m)\n\n"
	       "a1 1 1.0: 70 instructions: \n\t1 g (m)\n\n",
	       &o, true, "a1;g 70\n");
	o.weight_samples = true;
	expect("a1 1 1.0: 100 cycles: \n\t1 f (m)\n\n"
	       "a1 1 1.0: 70 instructions: \n\t1 g (m)\n\n",
	       &o, true, "a1;g 1\n");
}
END_TEST

static const char stream[] =
    "spool\t1\t0\t1000\n"
    "module\t0\t5\t0x1000\t0x2000\t0x0\t1\tuser\t/bin/a\\tb\n"
    "frame\t0\tuser\t0x1010\t0\t0x10\n"
    "frame\t1\tuser\t0x1020\t0\t0x20\n"
    "symbol\t1\t-\t0\t-\t0x0\t-\tf;g\n"
    "frame\t2\ttruncated\t0x0\t-\t-\n"
    "frame\t3\tuser\t0x9000\t-\t-\n"
    "pframe\t3\t5\t0\t0x30\n"
    "stack\t0\t-\t2\n"
    "stack\t1\t0\t0\n"
    "stack\t2\t1\t1\n"
    "stack\t3\t-\t3\n"
    "comm\t1\t5\t5\texec\tmy app\n"
    "comm\t2\t5\t6\tname\tw\n"
    "sample\t10\t5\t5\t2\n"
    "sample\t11\t5\t6\t2\n"
    "sample\t12\t5\t6\t3\n"
    "sample\t13\t5\t6\t-\n";

START_TEST(records_name_frames_and_threads)
{
	struct fold_opts o = { 0 };

	expect(stream, &o, false,
	       "my_app;<stack truncated>;[a?b];f:g 1\n"
	       "w 1\n"
	       "w;<stack truncated>;[a?b];f:g 1\n"
	       "w;[a?b] 1\n");
	o.process_name = true;
	o.name.pid = true;
	o.name.addrs = true;
	expect(stream, &o, false,
	       "my_app-5 1\n"
	       "my_app-5;<stack truncated>;a?b+0x10;f:g 2\n"
	       "my_app-5;a?b+0x30 1\n");
}
END_TEST

/*
 * Two call sites in one kernel function, two addresses in a stripped
 * binary (named by sp-symbolize, and bare as sp-dump leaves them), an
 * address outside any module and unresolved kernel code.
 */
static const char grouping[] =
    "spool\t1\t0\t1000\n"
    "module\t0\t5\t0x1000\t0x2000\t0x0\t1\tuser\t/usr/bin/cc1plus\n"
    "module\t1\t-1\t0xffffffff81000000\t0xffffffff82000000\t0x0\t0\t"
    "kernel\t[kernel.kallsyms]\n"
    "frame\t0\tuser\t0x1010\t0\t0x10\n"
    "symbol\t0\t-\t0\tu\t-\t-\tcc1plus+0x10\n"
    "frame\t1\tuser\t0x1020\t0\t0x20\n"
    "symbol\t1\t-\t0\tu\t-\t-\tcc1plus+0x20\n"
    "frame\t2\tuser\t0x1030\t0\t0x30\n"
    "frame\t3\tkernel\t0xffffffff81000044\t1\t0x44\n"
    "symbol\t3\t-\t0\tk\t0x44\t-\tdo_syscall_64+0x44\n"
    "frame\t4\tkernel\t0xffffffff81000070\t1\t0x70\n"
    "symbol\t4\t-\t0\tk\t0x70\t-\tdo_syscall_64+0x70\n"
    "frame\t5\tuser\t0x9000\t-\t-\n"
    "symbol\t5\t-\t0\tu\t-\t-\t<0x9000>\n"
    "frame\t6\tkernel\t0xffffffff81f00000\t-\t-\n"
    "symbol\t6\t-\t0\tku\t-\t-\t[kernel]+0xffffffff81f00000\n"
    "stack\t0\t-\t0\n"
    "stack\t1\t0\t3\n"
    "stack\t2\t-\t1\n"
    "stack\t3\t2\t4\n"
    "stack\t4\t-\t2\n"
    "stack\t5\t4\t5\n"
    "stack\t6\t5\t6\n"
    "comm\t1\t5\t5\texec\tcc1plus\n"
    "sample\t10\t5\t5\t1\n"
    "sample\t11\t5\t5\t3\n"
    "sample\t12\t5\t5\t3\n"
    "sample\t13\t5\t5\t6\n"
    "sample\t14\t5\t5\t4\n";

START_TEST(records_group_frames_by_function)
{
	struct fold_opts o = { 0 };

	expect(grouping, &o, false,
	       "cc1plus;[cc1plus] 1\n"
	       "cc1plus;[cc1plus];[unknown];[kernel] 1\n"
	       "cc1plus;[cc1plus];do_syscall_64 3\n");
	o.name.kernel = true;
	expect(grouping, &o, false,
	       "cc1plus;[cc1plus] 1\n"
	       "cc1plus;[cc1plus];[unknown];[kernel]_[k] 1\n"
	       "cc1plus;[cc1plus];do_syscall_64_[k] 3\n");
	o.name.kernel = false;
	o.name.addrs = true;
	expect(grouping, &o, false,
	       "cc1plus;cc1plus+0x10;do_syscall_64+0x44 1\n"
	       "cc1plus;cc1plus+0x20;do_syscall_64+0x70 2\n"
	       "cc1plus;cc1plus+0x30 1\n"
	       "cc1plus;cc1plus+0x30;<0x9000>;[kernel]+0xffffffff81f00000 1\n");
}
END_TEST

/* --live's table and its reader, as live.c holds them. */
struct live_ctx {
	struct fold_live_tab t;
	struct fold_reader r;
};

/* Feeds the table as live.c does. */
static int
to_live(void *ctx, const struct fold_model *m, const struct fold_sample *s)
{
	struct live_ctx *lc = ctx;

	(void)m;
	return fold_live_tab_add(&lc->t, &lc->r, s);
}

/*
 * Issue 24: the call-stack view showed one stack in several rows, one
 * per (stack id, thread), where the folded output has one line.  Two
 * threads, and two stack ids whose frames fall in one function, make one
 * row of four samples.  The process named itself with a terminal
 * escape: the row shows '?' for its control bytes (item 9).
 */
START_TEST(live_stacks_are_rows_of_folded_lines)
{
	static const char text[] =
	    "spool\t1\t0\t10\n"
	    "module\t0\t7\t0x1000\t0x2000\t0x0\t1\tuser\t/bin/app\n"
	    "frame\t0\tuser\t0x1010\t0\t0x10\n"
	    "frame\t1\tuser\t0x1020\t0\t0x20\n"
	    "symbol\t0\t-\t0\t-\t0x0\t-\twork\n"
	    "symbol\t1\t-\t0\t-\t0x10\t-\twork\n"
	    "stack\t0\t-\t0\nstack\t1\t-\t1\n"
	    "comm\t1\t7\t7\tname\t\\x1b]0;X\\x07pp\n"
	    "comm\t1\t7\t8\tname\t\\x1b]0;X\\x07pp\n"
	    "sample\t10\t7\t7\t0\nsample\t20\t7\t8\t0\n"
	    "sample\t30\t7\t7\t1\nsample\t40\t7\t8\t1\n";
	struct fold_opts o = { 0 };
	struct fold_live_show show = { .stacks = true };
	struct fold_live_screen wide = { 40, 200 }, narrow = { 40, 30 };
	char *line, *eol;
	struct live_ctx lc;
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);

	ck_assert_int_eq(fold_reader_init(&lc.r, "", &o), 0);
	ck_assert_int_eq(fold_live_tab_init(&lc.t), 0);
	lc.r.on_sample = to_live;
	lc.r.ctx = &lc;
	ck_assert_int_eq(fold_reader_read(&lc.r, in), 0);
	fold_live_tab_print(&lc.t, &lc.r, f, &wide, &show);
	fclose(f);
	ck_assert_msg(strstr(out, "\n   100.00%        4  ?]0:X?pp;work\n"),
		      "%s", out);
	ck_assert_ptr_null(strstr(strstr(out, "pp;work") + 1, "pp;work"));
	free(out);
	/* 30 columns: every line fits, and a stack keeps its leaf end. */
	f = open_memstream(&out, &n);
	fold_live_tab_print(&lc.t, &lc.r, f, &narrow, &show);
	fclose(f);
	ck_assert_msg(strstr(out, "\n   100.00%        4  ...p;work\n"), "%s",
		      out);
	for (line = out; *line; line = eol + 1) {
		eol = strchr(line, '\n');
		ck_assert_ptr_nonnull(eol);
		ck_assert_msg(eol - line <= 30, "too wide: %.*s",
			      (int)(eol - line), line);
	}
	free(out);
	fold_live_tab_release(&lc.t);
	fold_reader_release(&lc.r);
	fclose(in);
}
END_TEST

START_TEST(records_reject_bad_input)
{
	static const char *const bad[] = {
		"spool\t1\t0\t1\nstack\t0\t-\t0\n",
		"spool\t1\t0\t1\nstack\t1\t-\t0\n",
		"spool\t1\t0\t1\nframe\t0\tuser\t0x1\t-\t-\nstack\t0\t0\t0\n",
		"spool\t1\t0\t1\nframe\t0\tsideways\t0x1\t-\t-\n",
		"spool\t1\t0\t1\nsymbol\t0\t-\t0\t-\t-\t-\tx\n",
		"spool\t1\t0\t1\nframe\t0\tuser\t0x1\t-\t-\n"
		"symbol\t0\t-\t1\t-\t-\t-\tx\n",
		"spool\t1\t0\t1\ncomm\t1\t1\t1\tmaybe\tx\n",
		"spool\t1\t0\t1\nsample\t1\t1\t1\t-",
		"sample\t1\t1\t1\t-\n",
	};
	struct fold_opts o = { 0 };
	char *out;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(run(bad[i], &o, false, &out) == 1, "case %zu", i);
		free(out);
	}
}
END_TEST

/*
 * N processes, one a second, each named, with a pframe of the shared
 * module-less frame 0 and its own symbol there, a module of its own with
 * frame 1+i named fi in it, stack 1+i (frame 1+i over stack 0), one
 * sample there, then forgotten; pids from 100, `reuse` of them in turn
 * (0: all distinct).
 */
static char *
churn(int n, int reuse)
{
	struct sp_buf b = SP_BUF_INIT;
	int i, pid;

	sp_buf_adds(&b, "spool\t1\t0\t1000\nframe\t0\tuser\t0x7000\t-\t-\n"
			"stack\t0\t-\t0\n");
	for (i = 0; i < n; i++) {
		pid = 100 + (reuse ? i % reuse : i);
		sp_buf_addf(&b,
			    "thread\t%d\t%d\t%d\ncomm\t0\t%d\t%d\texec\tp%d\n"
			    "pframe\t0\t%d\t-\t-\nsymbol\t0\t%d\t0\t-\t-\t-\t"
			    "s%d\n",
			    i, pid, pid, pid, pid, i, pid, pid, i);
		sp_buf_addf(
		    &b,
		    "module\t%d\t%d\t0x400000\t0x401000\t0x0\t0\tuser"
		    "\t/p%d\nframe\t%d\tuser\t0x400010\t%d\t0x10\n"
		    "symbol\t%d\t-\t0\t-\t-\t-\tf%d\nstack\t%d\t0\t%d\n",
		    i, pid, i, 1 + i, i, 1 + i, i, 1 + i, 1 + i);
		sp_buf_addf(&b, "sample\t%d000000000\t%d\t%d\t%d\nforget\t%d\n",
			    i, pid, pid, 1 + i, pid);
	}
	sp_buf_addc(&b, 0);
	return (char *)b.data;
}

static int
count_sample(void *ctx, const struct fold_model *m,
	     const struct fold_sample *smp)
{
	(void)m;
	(void)smp;
	(*(int *)ctx)++;
	return 0;
}

/* Appends an interval's folded lines to the sp_buf `ctx`. */
static int
keep_interval(void *ctx, const struct fold_profile *p)
{
	static const struct fold_opts o = { .interval_ns = 1000000000 };
	struct fold_profile q = *p;
	char *s;

	q.set = fold_set_new();
	ck_assert_int_eq(fold_profile_fold(&q, &o.name, q.set), 0);
	s = folded(q.set);
	sp_buf_adds(ctx, s);
	free(s);
	fold_set_free(q.set);
	return 0;
}

/* Reads `text` with `r` set up by the caller; its status. */
static int
read_text(struct fold_reader *r, const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int rc;

	ck_assert_ptr_nonnull(in);
	rc = fold_reader_read(r, in);
	fclose(in);
	return rc;
}

START_TEST(forgotten_processes_free_their_state)
{
	struct fold_opts o = { 0 }, oi = { .interval_ns = 1000000000 };
	char *text = churn(50, 7), *distinct = churn(20, 0), *out;
	struct sp_buf got = SP_BUF_INIT, want = SP_BUF_INIT;
	struct fold_reader r;
	int n = 0, i;

	/* Streamed: names and pframes go at each forget, slots reused. */
	ck_assert_int_eq(fold_reader_init(&r, "", &o), 0);
	r.on_sample = count_sample;
	r.ctx = &n;
	ck_assert_int_eq(read_text(&r, text), 0);
	ck_assert_int_eq(n, 50);
	ck_assert_uint_eq(sp_htab_count(r.m.tname), 0);
	ck_assert_uint_eq(sp_htab_count(r.m.pname), 0);
	ck_assert_uint_eq(sp_htab_count(r.m.pframe_idx), 0);
	ck_assert_uint_le(r.m.npframes, 1);
	/* Only the shared frame 0 and stack 0 are left. */
	ck_assert_uint_eq(fold_model_live(&r.m, SP_ID_MODULE), 0);
	ck_assert_uint_eq(fold_model_live(&r.m, SP_ID_FRAME), 1);
	ck_assert_uint_eq(fold_model_live(&r.m, SP_ID_STACK), 1);
	fold_reader_release(&r);

	/* --interval: a process's pframes last until its interval is
	 * written, which still names its frame with its own symbol. */
	ck_assert_int_eq(fold_reader_init(&r, "", &oi), 0);
	r.on_interval = keep_interval;
	r.ctx = &got;
	ck_assert_int_eq(read_text(&r, distinct), 0);
	ck_assert_uint_eq(sp_htab_count(r.m.tname), 0);
	ck_assert_uint_le(sp_htab_count(r.m.pframe_idx), 1);
	ck_assert_uint_le(r.m.npframes, 2);
	/* The last process's module, frame and stack wait for main to
	 * write its interval; the others' are gone. */
	ck_assert_uint_eq(fold_model_live(&r.m, SP_ID_MODULE), 1);
	ck_assert_uint_eq(fold_model_live(&r.m, SP_ID_FRAME), 2);
	ck_assert_uint_eq(fold_model_live(&r.m, SP_ID_STACK), 2);
	for (i = 0; i < 19; i++) /* the last interval is main's to write */
		sp_buf_addf(&want, "p%d;s%d;f%d 1\n", i, i, i);
	sp_buf_addc(&got, 0);
	sp_buf_addc(&want, 0);
	ck_assert_str_eq((char *)got.data, (char *)want.data);
	fold_reader_release(&r);

	/* The whole profile at the end names every process's frames. */
	ck_assert_int_eq(run(distinct, &o, false, &out), 0);
	for (i = 0; i < 20; i++) {
		char line[48];

		snprintf(line, sizeof(line), "p%d;s%d;f%d 1\n", i, i, i);
		ck_assert_ptr_nonnull(strstr(out, line));
	}
	free(out);
	sp_buf_release(&got);
	sp_buf_release(&want);
	free(text);
	free(distinct);
}
END_TEST

/*
 * --interval: pid 7 forgotten and back within one interval.  The old
 * process's module, frame and stack last until that interval is
 * written; the new one's outlive it.
 */
START_TEST(a_pid_back_within_an_interval_keeps_its_frames)
{
	static const char text[] =
	    "spool\t1\t0\t1000\n"
	    "comm\t0\t7\t7\texec\tp\n"
	    "module\t0\t7\t0x400000\t0x401000\t0x0\t0\tuser\t/old\n"
	    "frame\t0\tuser\t0x400010\t0\t0x10\n"
	    "symbol\t0\t-\t0\t-\t-\t-\told\n"
	    "stack\t0\t-\t0\n"
	    "sample\t100000000\t7\t7\t0\n"
	    "forget\t7\n"
	    "comm\t0\t7\t7\texec\tp\n"
	    "module\t1\t7\t0x400000\t0x401000\t0x0\t0\tuser\t/new\n"
	    "frame\t1\tuser\t0x400010\t1\t0x10\n"
	    "symbol\t1\t-\t0\t-\t-\t-\tnew\n"
	    "stack\t1\t-\t1\n"
	    "sample\t500000000\t7\t7\t1\n"
	    "sample\t1500000000\t7\t7\t1\n"
	    "sample\t2500000000\t7\t7\t1\n";
	struct fold_opts oi = { .interval_ns = 1000000000 };
	struct sp_buf got = SP_BUF_INIT;
	struct fold_reader r;

	ck_assert_int_eq(fold_reader_init(&r, "", &oi), 0);
	r.on_interval = keep_interval;
	r.ctx = &got;
	ck_assert_int_eq(read_text(&r, text), 0);
	sp_buf_addc(&got, 0);
	ck_assert_str_eq((char *)got.data, "p;new 1\np;old 1\np;new 1\n");
	ck_assert_uint_eq(fold_model_live(&r.m, SP_ID_MODULE), 1);
	ck_assert_uint_eq(fold_model_live(&r.m, SP_ID_FRAME), 1);
	ck_assert_uint_eq(fold_model_live(&r.m, SP_ID_STACK), 1);
	fold_reader_release(&r);
	sp_buf_release(&got);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("fold aggregation");
	TCase *set = tcase_create("set and filters");
	TCase *perf = tcase_create("perf script");
	TCase *rec = tcase_create("record stream");

	tcase_add_test(set, set_sums_and_sorts_bytewise);
	tcase_add_test(set, filters_match_frames_not_the_comm);
	suite_add_tcase(s, set);
	tcase_add_test(perf, perf_headers_follow_the_script);
	tcase_add_test(perf, perf_frames_backtrack_like_the_script);
	tcase_add_test(perf, perf_events_default_to_the_first);
	suite_add_tcase(s, perf);
	tcase_add_test(rec, records_name_frames_and_threads);
	tcase_add_test(rec, records_group_frames_by_function);
	tcase_add_test(rec, records_reject_bad_input);
	tcase_add_test(rec, live_stacks_are_rows_of_folded_lines);
	tcase_add_test(rec, forgotten_processes_free_their_state);
	tcase_add_test(rec, a_pid_back_within_an_interval_keeps_its_frames);
	suite_add_tcase(s, rec);
	return ck_run(s);
}
