/*
 * check_ext_py.c: the Python frame records of common/ext_py.h: payloads
 * decode to what was encoded, every cut and every bad field is refused,
 * the checks refuse ids out of order, undefined references and groups
 * that do not match their chain; the text forms (records.h) decode,
 * write back the same lines, and faults name their line.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ext_py.h"
#include "common/records.h"
#include "common/spool.h"

static struct sp_buf
payload_code(uint32_t id, int32_t first, const char *name, const char *file)
{
	struct sp_ext_pycode c = { id,           first, name,
				   strlen(name), file,  strlen(file) };
	struct sp_buf b = SP_BUF_INIT;

	ck_assert_int_eq(sp_ext_pycode_encode(&b, &c), 0);
	return b;
}

START_TEST(pycode_round_trips)
{
	struct sp_buf b = payload_code(7, -3, "Spinner.spin", "/a/b.py");
	struct sp_ext_pycode c;
	size_t cut;

	ck_assert_int_eq(sp_ext_pycode_decode(b.data, b.len, &c), 0);
	ck_assert_uint_eq(c.id, 7);
	ck_assert_int_eq(c.firstline, -3);
	ck_assert_uint_eq(c.name_len, 12);
	ck_assert(!memcmp(c.name, "Spinner.spin", 12));
	ck_assert(!memcmp(c.file, "/a/b.py", 7));
	for (cut = 0; cut < b.len; cut++)
		ck_assert_int_eq(sp_ext_pycode_decode(b.data, cut, &c),
				 -EBADMSG);
	sp_buf_addc(&b, 0);
	ck_assert_int_eq(sp_ext_pycode_decode(b.data, b.len, &c), -EBADMSG);
	sp_buf_release(&b);
}
END_TEST

START_TEST(pynode_round_trips_and_refuses_flags)
{
	struct sp_ext_pynode in = { 3, SP_NONE, 2, -1, SP_PYNODE_ENTRY }, out;
	struct sp_buf b = SP_BUF_INIT;
	size_t cut;

	ck_assert_int_eq(sp_ext_pynode_encode(&b, &in), 0);
	ck_assert_int_eq(sp_ext_pynode_decode(b.data, b.len, &out), 0);
	ck_assert_uint_eq(out.id, 3);
	ck_assert_uint_eq(out.prefix, SP_NONE);
	ck_assert_uint_eq(out.code, 2);
	ck_assert_int_eq(out.line, -1);
	ck_assert_uint_eq(out.flags, SP_PYNODE_ENTRY);
	for (cut = 0; cut < b.len; cut++)
		ck_assert_int_eq(sp_ext_pynode_decode(b.data, cut, &out),
				 -EBADMSG);
	b.data[b.len - 1] = 2; /* an unknown flag */
	ck_assert_int_eq(sp_ext_pynode_decode(b.data, b.len, &out), -EBADMSG);
	sp_buf_reset(&b);
	in.code = SP_NONE; /* only a prefix may be none */
	ck_assert_int_eq(sp_ext_pynode_encode(&b, &in), 0);
	ck_assert_int_eq(sp_ext_pynode_decode(b.data, b.len, &out), -EBADMSG);
	sp_buf_release(&b);
}
END_TEST

START_TEST(pystack_round_trips_and_bounds_groups)
{
	struct sp_ext_pystack in, out;
	struct sp_buf b = SP_BUF_INIT;
	size_t cut;

	memset(&in, 0, sizeof(in));
	in.leaf = 5;
	in.flags = SP_PYSTACK_TRUNCATED;
	in.ngroups = 3;
	in.index[0] = 300;
	in.index[1] = 9;
	in.index[2] = 2;
	ck_assert_int_eq(sp_ext_pystack_encode(&b, &in), 0);
	ck_assert_int_eq(sp_ext_pystack_decode(b.data, b.len, &out), 0);
	ck_assert_uint_eq(out.leaf, 5);
	ck_assert_uint_eq(out.flags, SP_PYSTACK_TRUNCATED);
	ck_assert_uint_eq(out.ngroups, 3);
	ck_assert_uint_eq(out.index[0], 300);
	ck_assert_uint_eq(out.index[2], 2);
	for (cut = 0; cut < b.len; cut++)
		ck_assert_int_eq(sp_ext_pystack_decode(b.data, cut, &out),
				 -EBADMSG);
	in.ngroups = SP_PYSTACK_GROUPS_MAX + 1;
	ck_assert_int_eq(sp_ext_pystack_encode(&b, &in), -EINVAL);
	sp_buf_reset(&b);
	/* ngroups past the bound, then a flag past the known ones. */
	sp_buf_add(&b, "\x01\x00\x81\x02", 4);
	ck_assert_int_eq(sp_ext_pystack_decode(b.data, b.len, &out), -EBADMSG);
	sp_buf_reset(&b);
	sp_buf_add(&b, "\x01\x04\x00", 3);
	ck_assert_int_eq(sp_ext_pystack_decode(b.data, b.len, &out), -EBADMSG);
	sp_buf_release(&b);
}
END_TEST

/* Feeds one spool payload to the checks; returns their reason or NULL. */
static const char *
check(struct sp_py_bounds *pb, uint8_t tag, const void *payload, size_t n)
{
	return sp_py_check_ext(pb, tag, payload, n, "malformed");
}

static const char *
check_node(struct sp_py_bounds *pb, uint32_t id, uint32_t prefix, uint32_t code,
	   bool entry)
{
	struct sp_ext_pynode nd = { id, prefix, code, 1,
				    entry ? SP_PYNODE_ENTRY : 0 };

	return sp_py_check_node(pb, &nd);
}

/* The depth the last good pystack asked of its sample. */
static uint32_t need_depth;

/* Checks a pystack, then (when good) a deep sample after it. */
static const char *
check_stack(struct sp_py_bounds *pb, uint32_t leaf, uint8_t flags, uint32_t n,
	    uint32_t i0, uint32_t i1)
{
	struct sp_ext_pystack s;
	const char *why;

	memset(&s, 0, sizeof(s));
	s.leaf = leaf;
	s.flags = flags;
	s.ngroups = n;
	s.index[0] = i0;
	s.index[1] = i1;
	why = sp_py_check_stack(pb, &s);
	if (!why) {
		need_depth = pb->need_depth;
		ck_assert_ptr_null(sp_py_check_sample(pb, UINT32_MAX));
	}
	return why;
}

START_TEST(checks_refuse_what_no_reader_could_use)
{
	struct sp_py_bounds pb;
	struct sp_buf b;

	memset(&pb, 0, sizeof(pb));
	b = payload_code(1, 1, "f", "x.py");
	ck_assert_str_eq(check(&pb, SP_EXT_PYCODE, b.data, b.len),
			 "pycode id out of order");
	sp_buf_release(&b);
	b = payload_code(0, 1, "f", "x.py");
	ck_assert_ptr_null(check(&pb, SP_EXT_PYCODE, b.data, b.len));
	ck_assert_str_eq(check(&pb, SP_EXT_PYCODE, b.data, b.len - 1),
			 "malformed");
	sp_buf_release(&b);
	b = payload_code(1, 1, "f\0g", "x.py");
	b.data[3] = 0; /* "f\0" as the name: refused, as NUL-free text */
	ck_assert_ptr_nonnull(check(&pb, SP_EXT_PYCODE, b.data, b.len));
	sp_buf_release(&b);
	/* A chain: 0 (entry) <- 1 <- 2 (entry). */
	ck_assert_str_eq(check_node(&pb, 0, 0, 0, true),
			 "pynode prefix not defined before");
	ck_assert_str_eq(check_node(&pb, 0, SP_NONE, 1, true),
			 "pynode pycode not defined before");
	ck_assert_ptr_null(check_node(&pb, 0, SP_NONE, 0, true));
	ck_assert_str_eq(check_node(&pb, 2, 0, 0, false),
			 "pynode id out of order");
	ck_assert_ptr_null(check_node(&pb, 1, 0, 0, false));
	ck_assert_ptr_null(check_node(&pb, 2, 1, 0, true));
	ck_assert_ptr_null(check_stack(&pb, 2, 0, 2, 9, 4));
	ck_assert_uint_eq(need_depth, 10);
	ck_assert_ptr_null(check_stack(&pb, 1, 0, 1, 3, 0));
	ck_assert_ptr_null(check_stack(&pb, SP_NONE, 0, 0, 0, 0));
	ck_assert_ptr_null(
	    check_stack(&pb, 2, SP_PYSTACK_INCONSISTENT, 0, 0, 0));
	ck_assert_str_eq(check_stack(&pb, 3, 0, 0, 0, 0),
			 "pystack leaf not defined before");
	ck_assert_ptr_nonnull(check_stack(&pb, 2, 0, 1, 9, 0));
	ck_assert_ptr_nonnull(
	    check_stack(&pb, 2, SP_PYSTACK_INCONSISTENT, 2, 9, 4));
	ck_assert_ptr_nonnull(check_stack(&pb, SP_NONE, 0, 1, 9, 0));
	ck_assert_str_eq(check_stack(&pb, 2, 0, 2, 4, 4),
			 "pystack indexes not strictly decreasing");
	/* A second pystack before a sample; a sample too shallow. */
	ck_assert_ptr_null(sp_py_check_stack(
	    &pb, &(struct sp_ext_pystack){ .leaf = SP_NONE }));
	ck_assert_str_eq(check_stack(&pb, SP_NONE, 0, 0, 0, 0),
			 "a second pystack before its sample");
	ck_assert_ptr_null(sp_py_check_sample(&pb, 0));
	ck_assert_ptr_null(check_stack(&pb, 1, 0, 1, 3, 0));
	ck_assert_ptr_null(sp_py_check_stack(
	    &pb, &(struct sp_ext_pystack){
		     .leaf = 1, .ngroups = 1, .index = { 3 } }));
	ck_assert_ptr_nonnull(sp_py_check_sample(&pb, 3));
	ck_assert_ptr_null(sp_py_check_sample(&pb, 0));
	sp_py_bounds_release(&pb);
}
END_TEST

static const char py_lines[] = "pycode\t0\t12\tSpinner.spin\t/t/a\\tb.py\n"
			       "pycode\t1\t-1\t<module>\t<frozen x>\n"
			       "pynode\t0\t-\t1\t40\tentry\n"
			       "pynode\t1\t0\t0\t-1\t-\n"
			       "pystack\t1\tok\t3\n"
			       "sample\t10\t42\t42\t1\n"
			       "pystack\t-\tinconsistent\t-\n"
			       "sample\t20\t42\t42\t1\n"
			       "pystack\t0\ttruncated\t0\n"
			       "sample\t30\t42\t42\t0\n";

static FILE *
stream(const char *body)
{
	FILE *f = tmpfile();

	ck_assert_ptr_nonnull(f);
	fputs("spool\t1\t0\t1000\n"
	      "module\t0\t42\t0x400000\t0x401000\t0x0\t7\tuser\t/bin/a\n"
	      "frame\t0\tuser\t0x400100\t0\t0x100\n"
	      "stack\t0\t-\t0\n"
	      "stack\t1\t0\t0\n",
	      f);
	fputs(body, f);
	rewind(f);
	return f;
}

START_TEST(text_forms_decode_and_write_back)
{
	FILE *in = stream(py_lines), *out = tmpfile();
	struct sp_recdec *d = sp_recdec_new(in);
	struct sp_rec rec;
	char got[sizeof(py_lines) + 64];
	size_t n;
	int rc, i = 0;

	while ((rc = sp_recdec_next(d, &rec)) == 1) {
		if (i++ < 5)
			continue;
		sp_rec_write(out, &rec);
	}
	ck_assert_msg(rc == 0, "%s", sp_recdec_errmsg(d));
	rewind(out);
	n = fread(got, 1, sizeof(got) - 1, out);
	got[n] = 0;
	ck_assert_str_eq(got, py_lines);
	sp_recdec_free(d);
	fclose(in);
	fclose(out);
}
END_TEST

START_TEST(pystack_goes_with_the_next_sample)
{
	FILE *in = stream("thread\t0\t42\t42\n" /* not a sample: kept on */
			  "pycode\t0\t1\tf\tx.py\n"
			  "pynode\t0\t-\t0\t1\tentry\n"
			  "pystack\t0\tok\t1\n"
			  "sample\t10\t42\t42\t1\n"
			  "sample\t11\t42\t42\t1\n");
	struct sp_recdec *d = sp_recdec_new(in);
	struct sp_rec rec;
	int samples = 0;

	while (sp_recdec_next(d, &rec) == 1) {
		if (rec.kind != SP_REC_SAMPLE)
			continue;
		if (samples++ == 0) {
			ck_assert_ptr_nonnull(rec.u.sample.py);
			ck_assert_uint_eq(rec.u.sample.py->leaf, 0);
			ck_assert_uint_eq(rec.u.sample.py->index[0], 1);
		} else {
			ck_assert_ptr_null(rec.u.sample.py);
		}
	}
	ck_assert_int_eq(samples, 2);
	sp_recdec_free(d);
	fclose(in);
}
END_TEST

static const struct {
	const char *body, *msg;
} faults[] = {
	{ "pycode\t1\t1\tf\tx.py\n", "line 6: pycode record: pycode id out "
				     "of order" },
	{ "pycode\t0\tx\tf\tx.py\n", "line 6: malformed pycode record: bad "
				     "FIRSTLINE 'x'" },
	{ "pycode\t0\t1\tf\\\tx.py\n", "line 6: malformed pycode record: "
				       "bad NAME 'f\\\\'" },
	{ "pycode\t0\t1\tf\n", "line 6: pycode record with 4 fields, not 5" },
	{ "pycode\t0\t1\tf\tx.py\npynode\t0\t-\t1\t1\t-\n",
	  "line 7: pynode record: pynode pycode not defined before" },
	{ "pycode\t0\t1\tf\tx.py\npynode\t0\t0\t0\t1\t-\n",
	  "line 7: pynode record: pynode prefix not defined before" },
	{ "pycode\t0\t1\tf\tx.py\npynode\t0\t-\t0\t1\tyes\n",
	  "line 7: malformed pynode record: bad flag 'yes'" },
	{ "pystack\t0\tok\t-\n",
	  "line 6: pystack record: pystack leaf not defined before" },
	{ "pystack\t-\tfine\t-\n",
	  "line 6: malformed pystack record: bad flag 'fine'" },
	{ "pystack\t-\tok\t1,,2\n",
	  "line 6: malformed pystack record: bad INDEX list '1,,2'" },
	{ "pycode\t0\t1\tf\tx.py\npynode\t0\t-\t0\t1\tentry\n"
	  "pystack\t0\tok\t-\n",
	  "line 8: pystack record: pystack groups do not match the entry "
	  "nodes of its chain" },
	{ "pystack\t-\tok\t-\npystack\t-\tok\t-\n",
	  "line 7: pystack record: a second pystack before its sample" },
};

START_TEST(faults_name_their_line)
{
	FILE *in = stream(faults[_i].body);
	struct sp_recdec *d = sp_recdec_new(in);
	struct sp_rec rec;
	int rc;

	while ((rc = sp_recdec_next(d, &rec)) == 1)
		;
	ck_assert_int_eq(rc, -EBADMSG);
	ck_assert_str_eq(sp_recdec_errmsg(d), faults[_i].msg);
	sp_recdec_free(d);
	fclose(in);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("ext_py");
	TCase *tc = tcase_create("payloads");

	tcase_add_test(tc, pycode_round_trips);
	tcase_add_test(tc, pynode_round_trips_and_refuses_flags);
	tcase_add_test(tc, pystack_round_trips_and_bounds_groups);
	tcase_add_test(tc, checks_refuse_what_no_reader_could_use);
	suite_add_tcase(s, tc);
	tc = tcase_create("text");
	tcase_add_test(tc, text_forms_decode_and_write_back);
	tcase_add_test(tc, pystack_goes_with_the_next_sample);
	tcase_add_loop_test(tc, faults_name_their_line, 0,
			    sizeof(faults) / sizeof(faults[0]));
	suite_add_tcase(s, tc);
	return ck_run(s);
}
