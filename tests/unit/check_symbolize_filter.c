/*
 * check_symbolize_filter.c: the record stream filter: records pass
 * through unchanged, symbol records follow each frame and pframe, and
 * malformed input stops with "line N: reason" after the records before
 * it.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "sp-symbolize/filter.h"
#include "sp-symbolize/resolve.h"

static char dir[] = "/tmp/sp-symfilt.XXXXXX";

static void
setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
teardown(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

/* Filters `input`; returns the status, output in *out, error in *err. */
static int
filter(const char *input, char **out, struct sp_buf *err)
{
	struct sym_resolver_opts o = {
		.sym = { .demangle = true, .inlines = true },
		.perf_map_dir = dir,
		.no_kallsyms = true,
	};
	struct sym_resolver *r = sym_resolver_new(&o, NULL);
	FILE *in = fmemopen((void *)input, strlen(input), "r");
	size_t len;
	FILE *o_f = open_memstream(out, &len);
	int rc;

	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(o_f);
	rc = sym_filter_run(r, in, o_f, false, err, NULL);
	fclose(o_f);
	fclose(in);
	sym_resolver_free(r);
	return rc;
}

START_TEST(records_pass_through_with_symbols)
{
	static const char in[] =
	    "spool\t1\t1700000000000000\t1000\n"
	    "host\trelease=x\\ty\tbootid=abc\n"
	    "module\t0\t77\t0x1000\t0x2000\t0x0\t0\tuser\t/no/such/libfoo.so\n"
	    "module\t1\t-1\t0xffffffffc0000000\t0xffffffffc0001000\t0x0\t0"
	    "\tkernel\t[wireguard]\n"
	    "frame\t0\tuser\t0x1a2b\t0\t0xa2b\n"
	    "frame\t1\tkernel\t0xffffffff81000010\t-\t-\n"
	    "frame\t2\ttruncated\t0x0\t-\t-\n"
	    "frame\t3\tuser\t0x5008\t-\t-\n"
	    "stack\t0\t-\t2\n"
	    "pframe\t3\t77\t-\t-\n"
	    "whatever\tnew\tkind\n"
	    "symbol\t0\t-\t0\t-\t-\t-\tstale\n"
	    "sample\t1\t77\t77\t0\n";
	static const char want[] =
	    "spool\t1\t1700000000000000\t1000\n"
	    "host\trelease=x\\ty\tbootid=abc\n"
	    "module\t0\t77\t0x1000\t0x2000\t0x0\t0\tuser\t/no/such/libfoo.so\n"
	    "module\t1\t-1\t0xffffffffc0000000\t0xffffffffc0001000\t0x0\t0"
	    "\tkernel\t[wireguard]\n"
	    "frame\t0\tuser\t0x1a2b\t0\t0xa2b\n"
	    "symbol\t0\t-\t0\tu\t-\t-\tlibfoo.so+0xa2b\n"
	    "frame\t1\tkernel\t0xffffffff81000010\t-\t-\n"
	    "symbol\t1\t-\t0\tku\t-\t-\t[kernel]+0xffffffff81000010\n"
	    "frame\t2\ttruncated\t0x0\t-\t-\n"
	    "symbol\t2\t-\t0\tt\t-\t-\t<stack truncated>\n"
	    "frame\t3\tuser\t0x5008\t-\t-\n"
	    "symbol\t3\t-\t0\tu\t-\t-\t<0x5008>\n"
	    "stack\t0\t-\t2\n"
	    "pframe\t3\t77\t-\t-\n"
	    "symbol\t3\t77\t0\t-\t0x8\t/tmp/a\\tb.py\tpy\\tfunc\n"
	    "whatever\tnew\tkind\n"
	    "sample\t1\t77\t77\t0\n";
	struct sp_buf err = SP_BUF_INIT;
	char path[PATH_MAX], *out;
	FILE *f;

	snprintf(path, sizeof(path), "%s/perf-77.map", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("5000 100 py::py\tfunc:/tmp/a\tb.py\n", f);
	fclose(f);
	ck_assert_int_eq(filter(in, &out, &err), 0);
	ck_assert_str_eq(out, want);
	free(out);
	sp_buf_release(&err);
}
END_TEST

static void
check_error(const char *in, const char *want_out, const char *want_err)
{
	struct sp_buf err = SP_BUF_INIT;
	char *out;

	ck_assert_int_lt(filter(in, &out, &err), 0);
	ck_assert_str_eq(out, want_out);
	ck_assert_str_eq((char *)err.data, want_err);
	free(out);
	sp_buf_release(&err);
}

#define HEAD "spool\t1\t0\t0\n"

/* The codec's checks (tests/unit/check_records.c has them all) stop the
 * filter after it wrote every record before the faulty line. */
START_TEST(malformed_records_stop_after_what_came_before)
{
	check_error("spool\t2\t0\t0\n", "",
		    "line 1: unsupported stream version '2'");
	check_error("frame\t0\tuser\t0x1\t-\t-\n", "",
		    "line 1: not a record stream (no spool record first)");
	check_error(HEAD "frame\t1\tuser\t0x1\t-\t-\n", HEAD,
		    "line 2: frame id 1 did not match expected 0");
	check_error(HEAD "frame\t0\tuser\t0x1\t3\t0x1\n", HEAD,
		    "line 2: unknown module id '3'");
	check_error(HEAD "frame\t0\tuser\t0x1\t-\t0x5\n", HEAD,
		    "line 2: malformed frame record: module context '-' "
		    "'0x5'");
	check_error(HEAD "module\t0\t1\t0x0\t0x1\t0x0\t0\tuser\tx\n"
			 "module\t0\t1\t0x0\t0x1\t0x0\t0\tuser\ty\n",
		    HEAD "module\t0\t1\t0x0\t0x1\t0x0\t0\tuser\tx\n",
		    "line 3: module id 0 did not match expected 1");
	check_error(HEAD "sample\t1\t2\t3\t-\nframe\t0\tus",
		    HEAD "sample\t1\t2\t3\t-\n",
		    "line 3: cut or binary line (no newline at the end, or a "
		    "NUL byte)");
}
END_TEST

START_TEST(process_records_are_accepted)
{
	static const char in[] = "spool\t1\t0\t0\n"
				 "exec\t5\t77\tpython\n"
				 "deactivate\t77\n"
				 "exit\t9\t77\t78\n"
				 "exit\t9\t77\t77\n";
	struct sp_buf err = SP_BUF_INIT;
	char *out;

	ck_assert_int_eq(filter(in, &out, &err), 0);
	ck_assert_str_eq(out, in);
	free(out);
	sp_buf_release(&err);
}
END_TEST

/* A frame keeps the context sp-dump gave it: a later module covering its
 * address does not resolve it (the reference's "future module" rule). */
START_TEST(later_modules_do_not_resolve_earlier_frames)
{
	static const char in[] =
	    "spool\t1\t0\t0\n"
	    "frame\t0\tuser\t0x1500\t-\t-\n"
	    "module\t0\t7\t0x1000\t0x2000\t0x0\t1\tuser\t/future\n"
	    "pframe\t0\t7\t-\t-\n";
	static const char want[] =
	    "spool\t1\t0\t0\n"
	    "frame\t0\tuser\t0x1500\t-\t-\n"
	    "symbol\t0\t-\t0\tu\t-\t-\t<0x1500>\n"
	    "module\t0\t7\t0x1000\t0x2000\t0x0\t1\tuser\t/future\n"
	    "pframe\t0\t7\t-\t-\n"
	    "symbol\t0\t7\t0\tu\t-\t-\t<0x1500>\n";
	struct sp_buf err = SP_BUF_INIT;
	char *out;

	ck_assert_int_eq(filter(in, &out, &err), 0);
	ck_assert_str_eq(out, want);
	free(out);
	sp_buf_release(&err);
}
END_TEST

static Suite *
filter_suite(void)
{
	Suite *s = suite_create("symbolize_filter");
	TCase *t = tcase_create("stream");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, records_pass_through_with_symbols);
	tcase_add_test(t, malformed_records_stop_after_what_came_before);
	tcase_add_test(t, process_records_are_accepted);
	tcase_add_test(t, later_modules_do_not_resolve_earlier_frames);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return ck_run(filter_suite());
}
