/*
 * check_records.c: the record stream codec of common/records.h: every
 * kind decodes to its fields, writing a decoded record gives the line
 * back, every malformed field and every id out of place is refused with
 * its line number, and a cut stream yields every complete record first.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/inkind.h"
#include "common/records.h"

/* One line of every kind, as sp-dump and sp-symbolize write them. */
static const char every_kind[] =
    "spool\t1\t1700000000000000\t1000\n"
    "host\trelease=6.1.0\tbootid=a\\tb\n"
    "module\t0\t42\t0x400000\t0x401000\t0x1000\t77\tuser\t/bin/a\\\\b\n"
    "module\t1\t-1\t0xffffffff81000000\t0xffffffff82000000\t0x0\t0\t"
    "kernel\t[kernel]\n"
    "buildid\t0\t0a1b2c\n"
    "frame\t0\tuser\t0x400123\t0\t0x1123\n"
    "symbol\t0\t-\t0\t-\t0x3\tsrc/a.c:12\tmain\n"
    "funcline\t0\t-\t0\t9\n"
    "symbol\t0\t-\t1\ti\t-\t-\tinlined\n"
    "frame\t1\tkernel\t0xffffffff81000010\t1\t0x10\n"
    "frame\t2\tuser\t0x7f0000001000\t-\t-\n"
    "pframe\t2\t42\t0\t0x1000\n"
    "symbol\t2\t42\t0\tju\t-\t-\tpy::f:x.py\n"
    "frame\t3\ttruncated\t0x0\t-\t-\n"
    "stack\t0\t-\t0\n"
    "stack\t1\t0\t1\n"
    "thread\t0\t42\t43\n"
    "event\t0\tsched:sched_switch\tperiod\t1\n"
    "event\t1\tpage\\tfaults\tfreq\t999\n"
    "sample\t100\t42\t43\t1\n"
    "sample\t101\t42\t43\t-\n"
    "sample\t102\t42\t43\t1\t1\t4096\n"
    "sample\t103\t42\t43\t1\t0\t250000\tsleep\n"
    "run\t104\t190\t5\t42\t43\t1\n"
    "run\t105\t105\t1\t42\t43\t-\t1\t4096\tio\n"
    "exec\t5\t42\tpython\n"
    "deactivate\t42\n"
    "comm\t6\t42\t43\tname\twork\\x01er\n"
    "lost\t7\t3\n"
    "stats\tsamples=2\tlost=0\n"
    "exit\t8\t42\t43\n"
    "forget\t42\n"
    "ext\t99\t00ff\n";

static FILE *
text_file(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	ck_assert_ptr_nonnull(f);
	return f;
}

START_TEST(every_kind_decodes_and_writes_back)
{
	FILE *in = text_file(every_kind);
	struct sp_recdec *d = sp_recdec_new(in);
	char *out = NULL;
	size_t outlen = 0;
	FILE *w = open_memstream(&out, &outlen);
	struct sp_rec rec;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (sp_recdec_next(d, &rec) == 1) {
		ck_assert_int_ne(rec.kind, SP_REC_UNKNOWN);
		sp_rec_write(w, &rec);
		n++;
	}
	ck_assert_str_eq(sp_recdec_errmsg(d), "no error");
	fclose(w);
	ck_assert_int_eq(n, 33);
	ck_assert_str_eq(out, every_kind);
	free(out);
	sp_recdec_free(d);
	fclose(in);
}
END_TEST

/* Decodes `text` to its last record; returns the last status. */
static int
decode_all(const char *text, struct sp_rec *rec, char *msg, size_t len)
{
	FILE *in = text_file(text);
	struct sp_recdec *d = sp_recdec_new(in);
	int rc;

	while ((rc = sp_recdec_next(d, rec)) == 1)
		;
	snprintf(msg, len, "%s", sp_recdec_errmsg(d));
	sp_recdec_free(d);
	fclose(in);
	return rc;
}

/* Decodes `text` to its last record, kept valid in the open decoder. */
static struct sp_recdec *
decode_last(FILE *in, struct sp_rec *rec)
{
	struct sp_recdec *d = sp_recdec_new(in);
	struct sp_rec r;

	ck_assert_ptr_nonnull(d);
	while (sp_recdec_next(d, &r) == 1)
		*rec = r;
	ck_assert_str_eq(sp_recdec_errmsg(d), "no error");
	return d;
}

START_TEST(fields_decode_to_their_values)
{
	static const char text[] =
	    "spool\t1\t5\t250\n"
	    "module\t0\t42\t0x400000\t0x401000\t0x1000\t77\tuser\t/a\\tb\n"
	    "frame\t0\tuser\t0x400123\t0\t0x1123\n"
	    "symbol\t0\t7\t0\tkh\t0x3\tx:y.c:12\tf\\\\g\n";
	FILE *in = text_file(text);
	struct sp_rec r;
	struct sp_recdec *d = decode_last(in, &r);

	/* The last record stays valid until the next call. */
	ck_assert_int_eq(r.kind, SP_REC_SYMBOL);
	ck_assert_uint_eq(r.u.symbol.frame, 0);
	ck_assert(r.u.symbol.has_pid && r.u.symbol.pid == 7);
	ck_assert_uint_eq(r.u.symbol.flags, SP_SYM_KERNEL | SP_SYM_HIDDEN);
	ck_assert(r.u.symbol.has_offset && r.u.symbol.offset == 3);
	ck_assert_str_eq(r.u.symbol.file, "x:y.c");
	ck_assert_uint_eq(r.u.symbol.line, 12);
	ck_assert_str_eq(r.u.symbol.name, "f\\g");
	sp_recdec_free(d);
	fclose(in);
}
END_TEST

START_TEST(runs_decode_to_their_samples)
{
	static const char text[] = "spool\t1\t5\t250\n"
				   "sample\t7\t42\t43\t-\n"
				   "run\t10\t99\t1000\t42\t43\t-\n";
	FILE *in = text_file(text);
	struct sp_recdec *d = sp_recdec_new(in);
	struct sp_rec r;

	/* A sample is a run of one: count 1, its time first and last. */
	ck_assert_int_eq(sp_recdec_next(d, &r), 1);
	ck_assert_int_eq(sp_recdec_next(d, &r), 1);
	ck_assert_int_eq(r.kind, SP_REC_SAMPLE);
	ck_assert(r.u.sample.count == 1 && r.u.sample.last_ts == 7);
	ck_assert_int_eq(sp_recdec_next(d, &r), 1);
	ck_assert_int_eq(r.kind, SP_REC_RUN);
	ck_assert(r.u.sample.ts == 10 && r.u.sample.last_ts == 99);
	ck_assert(r.u.sample.count == 1000 && r.u.sample.pid == 42);
	ck_assert(r.u.sample.tid == 43 && r.u.sample.stack == SP_NONE);
	ck_assert(!r.u.sample.has_event);
	sp_recdec_free(d);
	fclose(in);
}
END_TEST

START_TEST(module_path_is_unescaped_with_its_length)
{
	static const char text[] =
	    "spool\t1\t5\t250\n"
	    "module\t0\t42\t0x400000\t0x401000\t0x1000\t77\tuser\t/a\\tb\n";
	FILE *in = text_file(text);
	struct sp_rec r;
	struct sp_recdec *d = decode_last(in, &r);

	ck_assert_int_eq(r.kind, SP_REC_MODULE);
	ck_assert_str_eq(r.u.module.path, "/a\tb");
	ck_assert_uint_eq(r.u.module.path_len, 4);
	ck_assert_uint_eq(r.u.module.start, 0x400000);
	ck_assert_uint_eq(r.u.module.file_offset, 0x1000);
	ck_assert_uint_eq(r.u.module.inode, 77);
	sp_recdec_free(d);
	fclose(in);
}
END_TEST

#define HEAD "spool\t1\t5\t250\n"
#define MOD "module\t0\t1\t0x1000\t0x2000\t0x0\t1\tuser\t/x\n"
#define FRAME "frame\t0\tuser\t0x1000\t0\t0x0\n"

/* Each input ends in a faulty line; its error names that line. */
static const struct {
	const char *text, *error;
} faults[] = {
	{ "frame\t0\tuser\t0x1\t-\t-\n",
	  "line 1: not a record stream (no spool record first)" },
	{ "spool\t2\t0\t0\n", "line 1: unsupported stream version '2'" },
	{ "spool\t1\t0\t0\nsample\t1\t2\t3\t-\t0\t1\n",
	  "line 2: unknown event id '0'" },
	{ "spool\t1\t0\t0\nevent\t0\tx\tperiod\t1\nsample\t1\t2\t3\t-\t0\n",
	  "line 3: sample record with 6 fields, not 5, 7 or 8" },
	{ "spool\t1\t0\t0\nevent\t0\tx\tperiod\t1\n"
	  "sample\t1\t2\t3\t-\t0\t1\tdozing\n",
	  "line 3: malformed sample record: bad STATE 'dozing'" },
	{ "spool\t1\t0\t0\nframe\t0\tuser\t0x1\t-\t-\n"
	  "funcline\t0\t-\t0\t0\n",
	  "line 3: malformed funcline record: bad LINE '0'" },
	{ "spool\t1\t0\t0\nfuncline\t0\t-\t0\t5\n",
	  "line 2: unknown frame id '0'" },
	{ "spool\t1\t0\t0\nsample\t1\t2\t3\t-\t0\t1\tio\tx\n",
	  "line 2: sample record with 9 fields, not 5 to 8" },
	{ "spool\t1\t0\t0\nevent\t1\tx\tperiod\t1\n",
	  "line 2: event id 1 did not match expected 0" },
	{ "spool\t1\t0\t0\nevent\t0\tx\tevery\t1\n",
	  "line 2: malformed event record: bad mode 'every'" },
	{ "spool\t1\t0\t0\nevent\t0\tx\tfreq\t0\n",
	  "line 2: malformed event record: bad VALUE '0'" },
	{ HEAD "spool\t1\t0\t0\n", "line 2: a second spool record" },
	{ HEAD "spool\t1\t0\n", "line 2: spool record with 3 fields, not 4" },
	{ HEAD "module\t1\t1\t0x1000\t0x2000\t0x0\t1\tuser\t/x\n",
	  "line 2: module id 1 did not match expected 0" },
	{ HEAD MOD MOD, "line 3: module id 0 did not match expected 1" },
	{ HEAD "module\t0\tx\t0x1000\t0x2000\t0x0\t1\tuser\t/x\n",
	  "line 2: malformed module record: bad PID 'x'" },
	{ HEAD "module\t0\t1\t1000\t0x2000\t0x0\t1\tuser\t/x\n",
	  "line 2: malformed module record: bad START '1000'" },
	{ HEAD "module\t0\t1\t0x1000\t0x2000\t0x0\t1\tboth\t/x\n",
	  "line 2: malformed module record: bad mode 'both'" },
	{ HEAD "module\t0\t1\t0x1000\t0x2000\t0x0\t1\tuser\t/x\\q\n",
	  "line 2: malformed module record: bad escape in PATH" },
	{ HEAD "module\t0\t1\t0x1000\t0x2000\t0x0\t1\tuser\t/x\\x00y\n",
	  "line 2: malformed module record: PATH holds a NUL byte" },
	{ HEAD MOD "frame\t0\tuser\t0x1000\t-\t0x5\n",
	  "line 3: malformed frame record: module context '-' '0x5'" },
	{ HEAD MOD "frame\t0\tuser\t0x1000\t0\t-\n",
	  "line 3: malformed frame record: module context '0' '-'" },
	{ HEAD MOD "frame\t0\tuser\t0x1000\t3\t0x5\n",
	  "line 3: unknown module id '3'" },
	{ HEAD MOD "frame\t0\tnone\t0x1000\t-\t-\n",
	  "line 3: malformed frame record: bad mode 'none'" },
	{ HEAD MOD FRAME "frame\t0\tuser\t0x1000\t-\t-\n",
	  "line 4: frame id 0 did not match expected 1" },
	{ HEAD MOD FRAME "pframe\t1\t5\t-\t-\n",
	  "line 4: unknown frame id '1'" },
	{ HEAD MOD FRAME "pframe\t0\t-5\t-\t-\n",
	  "line 4: malformed pframe record: bad PID '-5'" },
	{ HEAD MOD FRAME "stack\t0\t0\t0\n", "line 4: unknown stack id '0'" },
	{ HEAD MOD FRAME "stack\t0\t-\t9\n", "line 4: unknown frame id '9'" },
	{ HEAD "sample\t1\t2\t3\t0\n", "line 2: unknown stack id '0'" },
	{ HEAD "run\t1\t2\t3\t4\t5\t0\n", "line 2: unknown stack id '0'" },
	{ HEAD "run\t1\t2\t0\t4\t5\t-\n",
	  "line 2: malformed run record: bad COUNT '0'" },
	{ HEAD "run\t3\t2\t1\t4\t5\t-\n",
	  "line 2: malformed run record: bad LAST_NS '2'" },
	{ HEAD "run\t1\t2\t1\t4\t5\t-\t0\n",
	  "line 2: run record with 8 fields, not 7, 9 or 10" },
	{ HEAD "run\t1\t2\t1\t4\t5\t-\t0\t1\n",
	  "line 2: unknown event id '0'" },
	{ HEAD "run\t1\t2\t1\t4\t5\n",
	  "line 2: run record with 6 fields, not 7 to 10" },
	{ HEAD "pycode\t0\t1\tf\t/a.py\npynode\t0\t-\t0\t1\t-\n"
	       "pystack\t0\tok\t-\nrun\t1\t2\t3\t7\t7\t-\n",
	  "line 5: a run after a pystack record, which belongs to a sample" },
	{ HEAD "sample\tx\t2\t3\t-\n",
	  "line 2: malformed sample record: bad TIMESTAMP_NS 'x'" },
	{ HEAD "thread\t1\t2\t3\n",
	  "line 2: thread id 1 did not match expected 0" },
	{ HEAD "exec\t1\t2\tperl\n",
	  "line 2: malformed exec record: bad kind 'perl'" },
	{ HEAD "deactivate\tme\n",
	  "line 2: malformed deactivate record: bad PID 'me'" },
	{ HEAD "host\trelease\n", "line 2: host field 'release' is not "
				  "KEY=VALUE" },
	{ HEAD "stats\tsamples=many\n",
	  "line 2: malformed stats record: bad count 'many'" },
	{ HEAD "comm\t1\t2\t3\tfork\tx\n",
	  "line 2: malformed comm record: bad kind 'fork'" },
	{ HEAD "lost\t1\t-3\n", "line 2: malformed lost record: bad COUNT "
				"'-3'" },
	{ HEAD "exit\t1\t2\n", "line 2: exit record with 3 fields, not 4" },
	{ HEAD MOD "buildid\t0\t0A\n",
	  "line 3: malformed buildid record: bad HEX '0A'" },
	{ HEAD "buildid\t0\tab\n", "line 2: unknown module id '0'" },
	{ HEAD "ext\t4294967296\tab\n",
	  "line 2: malformed ext record: bad TAG '4294967296'" },
	{ HEAD "ext\t5\tabc\n", "line 2: malformed ext record: bad HEX 'abc'" },
	{ HEAD MOD FRAME "symbol\t0\t-\t0\tq\t-\t-\tf\n",
	  "line 4: malformed symbol record: bad FLAGS 'q'" },
	{ HEAD MOD FRAME "symbol\t0\t-\t0\tkk\t-\t-\tf\n",
	  "line 4: malformed symbol record: bad FLAGS 'kk'" },
	{ HEAD MOD FRAME "symbol\t0\t-\t0\t-\t3\t-\tf\n",
	  "line 4: malformed symbol record: bad OFFSET '3'" },
	{ HEAD MOD FRAME "symbol\t1\t-\t0\t-\t-\t-\tf\n",
	  "line 4: unknown frame id '1'" },
	{ HEAD MOD FRAME "symbol\t0\t-\tz\t-\t-\t-\tf\n",
	  "line 4: malformed symbol record: bad INDEX 'z'" },
	{ HEAD "lost\t1\t2\r\n", "line 2: line ends in a carriage return "
				 "(CRLF text?); records end in a newline "
				 "only" },
	{ HEAD "lost\t1\t2",
	  "line 2: cut or binary line (no newline at the end, or a NUL "
	  "byte)" },
};

START_TEST(faults_name_their_line_and_field)
{
	struct sp_rec r;
	char msg[300];

	ck_assert_int_eq(decode_all(faults[_i].text, &r, msg, sizeof(msg)),
			 -EBADMSG);
	ck_assert_str_eq(msg, faults[_i].error);
}
END_TEST

START_TEST(records_before_a_fault_come_first)
{
	static const char text[] = HEAD MOD "lost\t1\t2\nlost\t1\t";
	FILE *in = text_file(text);
	struct sp_recdec *d = sp_recdec_new(in);
	struct sp_rec r;
	size_t len;

	ck_assert_int_eq(sp_recdec_next(d, &r), 1);
	ck_assert_int_eq(sp_recdec_next(d, &r), 1);
	ck_assert_int_eq(sp_recdec_next(d, &r), 1);
	ck_assert_int_eq(r.kind, SP_REC_LOST);
	ck_assert_uint_eq(r.u.lost.count, 2);
	ck_assert_str_eq(sp_recdec_line(d, &len), "lost\t1\t2");
	ck_assert_uint_eq(len, 8);
	ck_assert_int_eq(sp_recdec_next(d, &r), -EBADMSG);
	ck_assert_uint_eq(sp_recdec_lineno(d), 4);
	sp_recdec_free(d);
	fclose(in);
}
END_TEST

/* Decodes the `len` bytes of `text`; the last status, its message. */
static int
decode_bytes(const char *text, size_t len, char *msg, size_t size)
{
	FILE *in = fmemopen((void *)text, len, "r");
	struct sp_recdec *d;
	struct sp_rec r;
	int rc;

	ck_assert_ptr_nonnull(in);
	d = sp_recdec_new(in);
	while ((rc = sp_recdec_next(d, &r)) == 1)
		;
	snprintf(msg, size, "%s", sp_recdec_errmsg(d));
	sp_recdec_free(d);
	fclose(in);
	return rc;
}

START_TEST(lines_are_bounded_and_reads_checked)
{
	const size_t max = SP_RECORDS_MAX_LINE, head = strlen(HEAD);
	char *text = malloc(head + max + 2), msg[300];
	FILE *dir;
	struct sp_recdec *d;
	struct sp_rec r;

	/* The longest line, its newline included, is read (an unknown
	 * kind passes); one byte more is refused. */
	ck_assert_ptr_nonnull(text);
	memcpy(text, HEAD, head);
	memset(text + head, 'x', max + 1);
	text[head + max - 1] = '\n';
	ck_assert_int_eq(decode_bytes(text, head + max, msg, sizeof(msg)), 0);
	text[head + max - 1] = 'x';
	text[head + max] = '\n';
	ck_assert_int_eq(decode_bytes(text, head + max + 1, msg, sizeof(msg)),
			 -EBADMSG);
	ck_assert_str_eq(msg, "line 2: longer than 64 MiB, not a record");
	free(text);
	/* NUL bytes anywhere in a line, the first one included. */
	ck_assert_int_eq(
	    decode_bytes(HEAD "\0lost\t1\t2\n", head + 10, msg, sizeof(msg)),
	    -EBADMSG);
	ck_assert_str_eq(msg, "line 2: cut or binary line (no newline at the "
			      "end, or a NUL byte)");
	ck_assert_int_eq(
	    decode_bytes(HEAD "lost\t1\0\t2\n", head + 10, msg, sizeof(msg)),
	    -EBADMSG);
	ck_assert_str_eq(msg, "line 2: cut or binary line (no newline at the "
			      "end, or a NUL byte)");
	ck_assert_int_eq(decode_bytes("SPULSE1\0\1\2\n", 11, msg, sizeof(msg)),
			 -EBADMSG);
	ck_assert_ptr_nonnull(strstr(msg, "line 1: this is a spool"));
	/* A read that fails is no end of input. */
	dir = fopen("/", "r");
	ck_assert_ptr_nonnull(dir);
	d = sp_recdec_new(dir);
	ck_assert_int_eq(sp_recdec_next(d, &r), -EIO);
	ck_assert_str_eq(sp_recdec_errmsg(d), "line 1: read error: Is a "
					      "directory");
	sp_recdec_free(d);
	fclose(dir);
}
END_TEST

START_TEST(unknown_kinds_and_empty_lines_pass)
{
	static const char text[] = HEAD "\nfuture\tx\ty\n";
	FILE *in = text_file(text);
	struct sp_recdec *d = sp_recdec_new(in);
	struct sp_rec r;
	size_t len;

	ck_assert_int_eq(sp_recdec_next(d, &r), 1);
	ck_assert_int_eq(sp_recdec_next(d, &r), 1);
	ck_assert_int_eq(r.kind, SP_REC_UNKNOWN);
	ck_assert_uint_eq(sp_recdec_lineno(d), 3);
	ck_assert_str_eq(sp_recdec_line(d, &len), "future\tx\ty");
	ck_assert_int_eq(sp_recdec_next(d, &r), 0);
	sp_recdec_free(d);
	fclose(in);
}
END_TEST

/* Issue 24: an endless line is an error, and so is a failed read. */
START_TEST(long_lines_and_read_errors_are_errors)
{
	FILE *in = fopen("/dev/zero", "r");
	struct sp_recdec *d = sp_recdec_new(in);
	struct sp_rec r;

	ck_assert_int_eq(sp_recdec_next(d, &r), -EBADMSG);
	ck_assert_str_eq(sp_recdec_errmsg(d),
			 "line 1: longer than 64 MiB, not a record");
	sp_recdec_free(d);
	fclose(in);
	/* A directory opens, and each read of it fails (EISDIR). */
	in = fopen(".", "r");
	d = sp_recdec_new(in);
	ck_assert_int_eq(sp_recdec_next(d, &r), -EIO);
	ck_assert_ptr_nonnull(strstr(sp_recdec_errmsg(d), "read error"));
	sp_recdec_free(d);
	fclose(in);
}
END_TEST

START_TEST(flag_letters_round_trip)
{
	char buf[8];
	unsigned f;

	sp_sym_flags_str(0, buf);
	ck_assert_str_eq(buf, "-");
	for (f = 1; f < 1u << 7; f++) {
		sp_sym_flags_str(f, buf);
		ck_assert_uint_eq(strlen(buf), (size_t)__builtin_popcount(f));
	}
	sp_sym_flags_str(SP_SYM_JIT | SP_SYM_UNRESOLVED, buf);
	ck_assert_str_eq(buf, "ju");
}
END_TEST

/* Issue 26: what an input holds, from its first line alone. */
START_TEST(input_kinds_from_first_line)
{
	static const struct {
		const char *line;
		enum sp_input_kind kind;
	} cases[] = {
		{ "spool\t1\t0\t1000\n", SP_IN_RECORDS },
		{ "app;main;work 3\n", SP_IN_FOLDED },
		{ "app;main 1", SP_IN_FOLDED }, /* no newline: the last line */
		{ "[unknown] 12\n", SP_IN_FOLDED },
		{ "app 7/7 1.000000: 1000 cpu-clock:\n", SP_IN_PERF_SCRIPT },
		{ "python3 12345 [001] 1234.567890: 1 cycles:u:\n",
		  SP_IN_PERF_SCRIPT },
		{ "# ========\n", SP_IN_PERF_SCRIPT },
		{ "app;main;work\n", SP_IN_UNKNOWN },      /* no count */
		{ "app;main  3\n", SP_IN_UNKNOWN },        /* two spaces */
		{ "sample\t1\t2\t3\t4\n", SP_IN_UNKNOWN }, /* a record */
		{ "3\n", SP_IN_UNKNOWN },
		{ "", SP_IN_UNKNOWN },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(
		    sp_input_kind(cases[i].line, strlen(cases[i].line)) ==
			cases[i].kind,
		    "'%s'", cases[i].line);
	ck_assert_int_eq(sp_input_kind("SPULSE1\0\1\2", 10), SP_IN_SPOOL);
	ck_assert_str_eq(sp_input_kind_name(SP_IN_FOLDED), "folded stacks");
}
END_TEST

/* Process 42 (module 0, frame 0, stacks 1-2, thread 0) is forgotten. */
static const char forgotten[] =
    "spool\t1\t0\t1000\n"
    "module\t0\t42\t0x400000\t0x401000\t0x0\t7\tuser\t/a\n"
    "frame\t0\tuser\t0x400010\t0\t0x10\n"
    "frame\t1\tuser\t0x7f00\t-\t-\n"
    "stack\t0\t-\t1\n"
    "stack\t1\t0\t0\n"
    "stack\t2\t1\t1\n"
    "thread\t0\t42\t42\n"
    "sample\t1\t42\t42\t2\n"
    "forget\t42\n";

START_TEST(forgotten_ids_are_refused)
{
	static const struct {
		const char *line, *msg;
	} cases[] = {
		{ "sample\t2\t42\t42\t2\n",
		  "line 11: stack id '2' belongs to a forgotten process" },
		{ "stack\t3\t1\t1\n",
		  "line 11: stack id '1' belongs to a forgotten process" },
		{ "stack\t3\t-\t0\n",
		  "line 11: frame id '0' belongs to a forgotten process" },
		{ "frame\t2\tuser\t0x400010\t0\t0x10\n",
		  "line 11: module id '0' belongs to a forgotten process" },
		{ "symbol\t0\t-\t0\t-\t-\t-\tf\n",
		  "line 11: frame id '0' belongs to a forgotten process" },
		{ "buildid\t0\tab\n",
		  "line 11: module id '0' belongs to a forgotten process" },
		{ "forget\t-1\n",
		  "line 11: malformed forget record: bad PID '-1'" },
	};
	char text[1024], msg[256];
	struct sp_rec rec;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "%s%s", forgotten, cases[i].line);
		ck_assert_int_eq(decode_all(text, &rec, msg, sizeof(msg)),
				 -EBADMSG);
		ck_assert_str_eq(msg, cases[i].msg);
	}
	/* The shared node and frame stay; ids keep counting. */
	snprintf(text, sizeof(text),
		 "%sstack\t3\t0\t1\nthread\t1\t42\t42\n"
		 "sample\t3\t42\t42\t3\n",
		 forgotten);
	ck_assert_int_eq(decode_all(text, &rec, msg, sizeof(msg)), 0);
	ck_assert_str_eq(msg, "no error");
}
END_TEST

/* Processes that come and go leave the decoder what the live ones own. */
START_TEST(churn_keeps_the_decoder_bounded)
{
	enum { N = 20000 };
	struct sp_buf text = SP_BUF_INIT;
	struct sp_recdec *d;
	struct sp_rec rec;
	size_t most = 0;
	FILE *in;
	int i, pid, rc;

	sp_buf_addf(&text, "spool\t1\t0\t1000\n");
	for (i = 0; i < N; i++) {
		pid = 100 + i % 500;
		sp_buf_addf(&text,
			    "module\t%d\t%d\t0x1000\t0x2000\t0x0\t1\tuser\t/p\n"
			    "frame\t%d\tuser\t0x1010\t%d\t0x10\n"
			    "stack\t%d\t-\t%d\n"
			    "thread\t%d\t%d\t%d\n",
			    i, pid, i, i, i, i, i, pid, pid);
		sp_buf_addf(&text, "sample\t%d\t%d\t%d\t%d\nforget\t%d\n", i,
			    pid, pid, i, pid);
	}
	in = fmemopen(text.data, text.len, "r");
	ck_assert_ptr_nonnull(in);
	d = sp_recdec_new(in);
	while ((rc = sp_recdec_next(d, &rec)) == 1)
		most = sp_recdec_live(d) > most ? sp_recdec_live(d) : most;
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_le(most, 4);
	ck_assert_uint_eq(sp_recdec_live(d), 0);
	sp_recdec_free(d);
	fclose(in);
	sp_buf_release(&text);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("records");
	TCase *tc = tcase_create("codec");

	tcase_add_test(tc, every_kind_decodes_and_writes_back);
	tcase_add_test(tc, fields_decode_to_their_values);
	tcase_add_test(tc, module_path_is_unescaped_with_its_length);
	tcase_add_test(tc, runs_decode_to_their_samples);
	tcase_add_loop_test(tc, faults_name_their_line_and_field, 0,
			    sizeof(faults) / sizeof(faults[0]));
	tcase_add_test(tc, records_before_a_fault_come_first);
	tcase_add_test(tc, unknown_kinds_and_empty_lines_pass);
	tcase_add_test(tc, flag_letters_round_trip);
	tcase_add_test(tc, long_lines_and_read_errors_are_errors);
	tcase_add_test(tc, input_kinds_from_first_line);
	tcase_add_test(tc, forgotten_ids_are_refused);
	tcase_add_test(tc, churn_keeps_the_decoder_bounded);
	suite_add_tcase(s, tc);
	/* Two lines of 64 MiB: seconds under the sanitizers on a busy host. */
	tc = tcase_create("bounds");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, lines_are_bounded_and_reads_checked);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
