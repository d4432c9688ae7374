/*
 * check_fold_pymerge.c: Python frames merged into native stacks
 * (sp-fold/pymerge.h) on hand-written record streams: evaluator frames
 * replaced by their Python frames, the call glue between them hidden,
 * C extension frames above and start-up frames below kept, a truncated
 * Python part under the marker, an inconsistent one native only and
 * counted, --interpreter-frames keeping all, and -X perf stacks.
 */
#include "tests/unit/ck.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/records.h"
#include "sp-fold/model/expand.h"
#include "sp-fold/model/foldset.h"
#include "sp-fold/model/profile.h"
#include "sp-fold/model/pymerge.h"
#include "sp-fold/read/read_records.h"
#include "sp-fold/write/write_folded.h"
#include "sp-fold/write/write_perfscript.h"
#include "sp-fold/write/write_speedscope.h"

/*
 * One Python process: start-up, three evaluator calls (the second
 * reached through call glue, the third through builtin_sorted calling a
 * key function) and a C extension above the innermost.  Frame i of the
 * stack is frame record i; n = 12, so the evaluators at 3, 6 and 9 from
 * the root are 8, 5 and 2 from the leaf.
 */
static const char native[] =
    "spool\t1\t1700000000000000\t1000\n"
    "module\t0\t7\t0x400000\t0x500000\t0x0\t11\tuser\t/usr/bin/python3\n"
    "comm\t100\t7\t7\texec\tpython3\n"
    "frame\t0\tuser\t0x400000\t0\t0x0\n"
    "symbol\t0\t-\t0\t-\t0x0\t-\t_start\n"
    "frame\t1\tuser\t0x400010\t0\t0x10\n"
    "symbol\t1\t-\t0\tp\t0x0\t-\tPy_RunMain\n"
    "frame\t2\tuser\t0x400020\t0\t0x20\n"
    "symbol\t2\t-\t0\tp\t0x0\t-\tPyEval_EvalCode\n"
    "frame\t3\tuser\t0x400030\t0\t0x30\n"
    "symbol\t3\t-\t0\tp\t0x0\t-\t_PyEval_EvalFrameDefault\n"
    "frame\t4\tuser\t0x400040\t0\t0x40\n"
    "symbol\t4\t-\t0\tp\t0x0\t-\tPyObject_Vectorcall\n"
    "frame\t5\tuser\t0x400050\t0\t0x50\n"
    "symbol\t5\t-\t0\tp\t0x0\t-\t_PyFunction_Vectorcall\n"
    "symbol\t5\t-\t1\tpi\t-\t-\t_PyEval_Vector\n"
    "frame\t6\tuser\t0x400060\t0\t0x60\n"
    "symbol\t6\t-\t0\tp\t0x0\t-\t_PyEval_EvalFrameDefault.cold\n"
    "frame\t7\tuser\t0x400070\t0\t0x70\n"
    "symbol\t7\t-\t0\tp\t0x0\t-\tbuiltin_sorted\n"
    "frame\t8\tuser\t0x400080\t0\t0x80\n"
    "symbol\t8\t-\t0\tp\t0x0\t-\tcfunction_call\n"
    "frame\t9\tuser\t0x400090\t0\t0x90\n"
    "symbol\t9\t-\t0\tp\t0x0\t-\t_PyEval_EvalFrameDefault\n"
    "frame\t10\tuser\t0x4000a0\t0\t0xa0\n"
    "symbol\t10\t-\t0\tp\t0x0\t-\tcfunction_vectorcall_O\n"
    "frame\t11\tuser\t0x4000b0\t0\t0xb0\n"
    "symbol\t11\t-\t0\t-\t0x0\text.c:5\text_hash\n"
    "stack\t0\t-\t0\n"
    "stack\t1\t0\t1\n"
    "stack\t2\t1\t2\n"
    "stack\t3\t2\t3\n"
    "stack\t4\t3\t4\n"
    "stack\t5\t4\t5\n"
    "stack\t6\t5\t6\n"
    "stack\t7\t6\t7\n"
    "stack\t8\t7\t8\n"
    "stack\t9\t8\t9\n"
    "stack\t10\t9\t10\n"
    "stack\t11\t10\t11\n"
    "pycode\t0\t1\t<module>\t/app/main.py\n"
    "pycode\t1\t10\tmain\t/app/main.py\n"
    "pycode\t2\t20\tWorker.run\t/app/main.py\n"
    "pycode\t3\t30\t<lambda>\t/app/main.py\n"
    "pynode\t0\t-\t0\t40\tentry\n"
    "pynode\t1\t0\t1\t12\t-\n"
    "pynode\t2\t1\t2\t22\tentry\n"
    "pynode\t3\t2\t3\t31\tentry\n"
    /* The chain cut above main: its group lost its entry frame. */
    "pynode\t4\t-\t1\t13\t-\n"
    "pynode\t5\t4\t2\t23\tentry\n"
    "pynode\t6\t5\t3\t32\tentry\n";

static const char merged[] =
    "python3;_start;Py_RunMain;PyEval_EvalCode;<module>;main;Worker.run;"
    "builtin_sorted;<lambda>;cfunction_vectorcall_O;ext_hash";
static const char all_native[] =
    "python3;_start;Py_RunMain;PyEval_EvalCode;_PyEval_EvalFrameDefault;"
    "PyObject_Vectorcall;_PyFunction_Vectorcall;_PyEval_Vector;"
    "_PyEval_EvalFrameDefault.cold;builtin_sorted;cfunction_call;"
    "_PyEval_EvalFrameDefault;cfunction_vectorcall_O;ext_hash";

/* Reads every record of `d` into `r`, as sp-fold does. */
static void
step_all(struct fold_reader *r, struct sp_recdec *d)
{
	int rc;

	while ((rc = fold_reader_step(r, d)) == 1)
		;
	ck_assert_int_eq(rc, 0);
}

/*
 * Reads `text` and returns its folded
 * lines (the caller frees them); *native_only gets the reader's count.
 */
static char *
fold_text(const char *text, const struct fold_opts *o, uint64_t *native_only)
{
	char *s = NULL;
	FILE *in = fmemopen((void *)text, strlen(text), "r"), *out;
	struct fold_set *set = fold_set_new();
	struct sp_recdec *d = sp_recdec_new(in);
	struct fold_reader r;
	struct fold_profile p;
	size_t n = 0;

	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(fold_reader_init(&r, "", o), 0);
	step_all(&r, d);
	fold_reader_profile(&r, &p);
	ck_assert_int_eq(fold_profile_fold(&p, &o->name, set), 0);
	out = open_memstream(&s, &n);
	ck_assert_int_eq(
	    fold_write_folded(out, &(struct fold_profile){ .set = set }), 0);
	fclose(out);
	if (native_only)
		*native_only = r.py_native_only;
	fold_reader_release(&r);
	sp_recdec_free(d);
	fold_set_free(set);
	fclose(in);
	return s;
}

/*
 * Reads native + `tail` into `r` (set up here with `o`, released by the
 * caller), as fold_text does, keeping ticks or streaming to perf script
 * text in `ps` when it is not NULL.
 */
static void
read_into(struct fold_reader *r, const char *tail, const struct fold_opts *o,
	  struct fold_perfscript_out *ps)
{
	char *text = NULL;
	FILE *in;
	struct sp_recdec *d;

	ck_assert_int_ge(asprintf(&text, "%s%s", native, tail), 0);
	in = fmemopen(text, strlen(text), "r");
	d = sp_recdec_new(in);
	ck_assert_int_eq(fold_reader_init(r, "", o), 0);
	r->keep_ticks = !ps;
	if (ps) {
		r->on_sample = fold_write_perfscript_sample;
		r->ctx = ps;
	}
	step_all(r, d);
	sp_recdec_free(d);
	fclose(in);
	free(text);
}

/* Folds native + `tail` with default options and compares. */
static void
expect(const char *tail, const struct fold_opts *o, const char *want,
       uint64_t want_native_only)
{
	char *text = NULL, *got;
	uint64_t native_only = 0;

	ck_assert_int_ge(asprintf(&text, "%s%s", native, tail), 0);
	got = fold_text(text, o, &native_only);
	ck_assert_str_eq(got, want);
	ck_assert_uint_eq(native_only, want_native_only);
	free(got);
	free(text);
}

static char *
line1(const char *stack)
{
	char *s = NULL;

	ck_assert_int_ge(asprintf(&s, "%s 1\n", stack), 0);
	return s;
}

START_TEST(glue_is_hidden_extensions_and_startup_kept)
{
	struct fold_opts o = { 0 };
	char *want = line1(merged);

	expect("pystack\t3\tok\t8,5,2\nsample\t1000\t7\t7\t11\n", &o, want, 0);
	free(want);
}
END_TEST

START_TEST(interpreter_frames_keep_everything)
{
	struct fold_opts o = { .name.interpreter_frames = true };
	char *want =
	    line1("python3;_start;Py_RunMain;PyEval_EvalCode;"
		  "_PyEval_EvalFrameDefault;<module>;main;PyObject_Vectorcall;"
		  "_PyFunction_Vectorcall;_PyEval_Vector;"
		  "_PyEval_EvalFrameDefault.cold;Worker.run;builtin_sorted;"
		  "cfunction_call;_PyEval_EvalFrameDefault;<lambda>;"
		  "cfunction_vectorcall_O;ext_hash");

	expect("pystack\t3\tok\t8,5,2\nsample\t1000\t7\t7\t11\n", &o, want, 0);
	free(want);
}
END_TEST

START_TEST(inconsistent_is_native_only_and_counted)
{
	struct fold_opts o = { 0 };
	char *want = NULL;

	ck_assert_int_ge(asprintf(&want, "%s 1\n", all_native), 0);
	expect("pystack\t-\tinconsistent\t-\nsample\t1000\t7\t7\t11\n", &o,
	       want, 1);
	free(want);
}
END_TEST

/*
 * Groups that do not fit the stack (the decoder refuses them, so they
 * come here only from a reader that checks less): native only.
 */
START_TEST(misfits_are_native_only)
{
	struct fold_opts o = { 0 };
	struct fold_reader r;
	struct sp_ext_pystack few = { .leaf = 3,
				      .index = { 8, 5 },
				      .ngroups = 2 };
	struct sp_ext_pystack past = { .leaf = 3,
				       .index = { 12, 5, 2 },
				       .ngroups = 3 };
	struct sp_ext_pystack order = { .leaf = 3,
					.index = { 5, 8, 2 },
					.ngroups = 3 };
	uint32_t stack;
	bool native_only;

	read_into(&r, "", &o, NULL);
	ck_assert_int_eq(fold_pymerge_stack(&r.pm, &r.m, &o.name, 7, 11, &few,
					    &stack, &native_only),
			 0);
	ck_assert(native_only);
	ck_assert_uint_eq(stack, 11);
	ck_assert_int_eq(fold_pymerge_stack(&r.pm, &r.m, &o.name, 7, 11, &past,
					    &stack, &native_only),
			 0);
	ck_assert(native_only);
	ck_assert_int_eq(fold_pymerge_stack(&r.pm, &r.m, &o.name, 7, 11, &order,
					    &stack, &native_only),
			 0);
	ck_assert(native_only);
	/* Cached: the answer again, native only still. */
	ck_assert_int_eq(fold_pymerge_stack(&r.pm, &r.m, &o.name, 7, 11, &few,
					    &stack, &native_only),
			 0);
	ck_assert(native_only);
	ck_assert_uint_eq(stack, 11);
	fold_reader_release(&r);
}
END_TEST

START_TEST(truncated_goes_under_the_marker)
{
	struct fold_opts o = { 0 };
	char *want =
	    line1("python3;<stack truncated>;_start;Py_RunMain;PyEval_EvalCode;"
		  "_PyEval_EvalFrameDefault;PyObject_Vectorcall;"
		  "_PyFunction_Vectorcall;_PyEval_Vector;main;Worker.run;"
		  "builtin_sorted;<lambda>;cfunction_vectorcall_O;ext_hash");

	expect("pystack\t6\ttruncated\t5,2\nsample\t1000\t7\t7\t11\n", &o, want,
	       0);
	free(want);
}
END_TEST

START_TEST(no_python_is_native_as_before)
{
	struct fold_opts o = { 0 };
	char *want = NULL;

	ck_assert_int_ge(asprintf(&want, "%s 2\n", all_native), 0);
	expect("pystack\t-\tok\t-\nsample\t1000\t7\t7\t11\n"
	       "sample\t1001\t7\t7\t11\n",
	       &o, want, 0);
	free(want);
}
END_TEST

START_TEST(python_frames_carry_file_and_line)
{
	struct fold_opts o = { .name.no_comm = true };
	struct fold_reader r;
	struct fold_view v;
	struct sp_buf ids = SP_BUF_INIT;
	struct sp_ext_pystack ps = { .leaf = 3,
				     .index = { 8, 5, 2 },
				     .ngroups = 3 };
	FILE *in = fmemopen((void *)native, strlen(native), "r");
	struct sp_recdec *d = sp_recdec_new(in);
	const uint32_t *f;
	uint32_t stack, again;
	bool native_only;

	ck_assert_int_eq(fold_reader_init(&r, "", &o), 0);
	step_all(&r, d);
	ck_assert_int_eq(fold_pymerge_stack(&r.pm, &r.m, &o.name, 7, 11, &ps,
					    &stack, &native_only),
			 0);
	ck_assert(!native_only);
	ck_assert_int_eq(fold_model_walk(&r.m, stack, &ids), 0);
	f = (const uint32_t *)ids.data;
	ck_assert_uint_eq(ids.len / sizeof(*f), 10);
	/* Root first: _start, Py_RunMain, PyEval_EvalCode, <module>, main. */
	fold_model_view(&r.m, f[4], 7, &v);
	ck_assert_uint_eq(v.syms->n, 1);
	ck_assert_str_eq(v.syms->v[0].name, "main");
	ck_assert_str_eq(v.syms->v[0].source, "/app/main.py:12");
	ck_assert_uint_eq(v.syms->v[0].start_line, 10);
	ck_assert(v.syms->v[0].flags & FOLD_SYM_PYTHON);
	ck_assert_uint_eq(v.module, SP_NONE);
	/* The same node twice is one frame, one stack. */
	ck_assert_int_eq(fold_pymerge_stack(&r.pm, &r.m, &o.name, 7, 11, &ps,
					    &again, &native_only),
			 0);
	ck_assert_uint_eq(again, stack);
	sp_buf_release(&ids);
	fold_reader_release(&r);
	sp_recdec_free(d);
	fclose(in);
}
END_TEST

static const char one_sample[] =
    "pystack\t3\tok\t8,5,2\nsample\t1000\t7\t7\t11\n";

START_TEST(speedscope_frames_have_file_and_first_line)
{
	struct fold_opts o = { 0 };
	struct fold_reader r;
	struct fold_profile p;
	char *s = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&s, &n);

	read_into(&r, one_sample, &o, NULL);
	fold_reader_profile(&r, &p);
	ck_assert_int_eq(fold_write_speedscope(out, &p, &o.name, &o.count), 0);
	fclose(out);
	ck_assert_ptr_nonnull(strstr(s, "{\"name\":\"Worker.run\",\"file\":"
					"\"/app/main.py\",\"line\":20}"));
	ck_assert_ptr_nonnull(
	    strstr(s, "{\"name\":\"ext_hash\",\"file\":\"ext.c\"}"));
	ck_assert_ptr_null(strstr(s, "_PyEval_EvalFrameDefault"));
	free(s);
	fold_reader_release(&r);
}
END_TEST

START_TEST(perf_script_names_the_python_file)
{
	struct fold_opts o = { 0 };
	struct fold_reader r;
	char *s = NULL;
	size_t n = 0;
	struct fold_perfscript_out ps = { open_memstream(&s, &n), &o.name,
					  &o.count };

	read_into(&r, one_sample, &o, &ps);
	fclose(ps.out);
	ck_assert_ptr_nonnull(
	    strstr(s, "\t               0 Worker.run (/app/main.py)\n"
		      "\t               0 main (/app/main.py)\n"
		      "\t               0 <module> (/app/main.py)\n"
		      "\t              20 PyEval_EvalCode+0x0 "
		      "(/usr/bin/python3)\n"));
	free(s);
	fold_reader_release(&r);
}
END_TEST

/* A CPython 3.12 -X perf stack: trampolines called by the evaluator. */
static const char perf[] =
    "spool\t1\t1700000000000000\t1000\n"
    "module\t0\t7\t0x400000\t0x500000\t0x0\t11\tuser\t/usr/bin/python3\n"
    "module\t1\t7\t0x7f0000000000\t0x7f0000001000\t0x0\t0\tuser\t//anon\n"
    "comm\t100\t7\t7\texec\tpython3\n"
    "frame\t0\tuser\t0x400000\t0\t0x0\n"
    "symbol\t0\t-\t0\t-\t0x0\t-\t_start\n"
    "frame\t1\tuser\t0x400010\t0\t0x10\n"
    "symbol\t1\t-\t0\tp\t0x0\t-\tPyEval_EvalCode\n"
    "frame\t2\tuser\t0x400020\t0\t0x20\n"
    "symbol\t2\t-\t0\tp\t0x0\t-\t_PyEval_Vector\n"
    "symbol\t2\t-\t1\tpi\t-\t-\t_PyEval_EvalFrame\n"
    "frame\t3\tuser\t0x400030\t0\t0x30\n"
    "symbol\t3\t-\t0\tp\t0x0\t-\tpy_trampoline_evaluator\n"
    "frame\t4\tuser\t0x7f0000000010\t1\t0x7f0000000010\n"
    "symbol\t4\t-\t0\t-\t0x5\t/app/x.py\t<module>\n"
    "frame\t5\tuser\t0x400050\t0\t0x50\n"
    "symbol\t5\t-\t0\tp\t0x0\t-\t_PyEval_EvalFrameDefault\n"
    "frame\t6\tuser\t0x400060\t0\t0x60\n"
    "symbol\t6\t-\t0\tp\t0x0\t-\tPyObject_Vectorcall\n"
    "symbol\t6\t-\t1\tpi\t-\t-\t_PyObject_VectorcallTstate\n"
    "frame\t7\tuser\t0x400070\t0\t0x70\n"
    "symbol\t7\t-\t0\tp\t0x0\t-\tpy_trampoline_evaluator\n"
    "frame\t8\tuser\t0x7f0000000020\t1\t0x7f0000000020\n"
    "symbol\t8\t-\t0\t-\t0x5\t/app/x.py\twork\n"
    "frame\t9\tuser\t0x400090\t0\t0x90\n"
    "symbol\t9\t-\t0\tp\t0x0\t-\t_PyEval_EvalFrameDefault\n"
    "frame\t10\tuser\t0x4000a0\t0\t0xa0\n"
    "symbol\t10\t-\t0\tp\t0x0\t-\tcfunction_vectorcall_O\n"
    "frame\t11\tuser\t0x4000b0\t0\t0xb0\n"
    "symbol\t11\t-\t0\t-\t0x0\t-\text_fn\n"
    "stack\t0\t-\t0\n"
    "stack\t1\t0\t1\n"
    "stack\t2\t1\t2\n"
    "stack\t3\t2\t3\n"
    "stack\t4\t3\t4\n"
    "stack\t5\t4\t5\n"
    "stack\t6\t5\t6\n"
    "stack\t7\t6\t7\n"
    "stack\t8\t7\t8\n"
    "stack\t9\t8\t9\n"
    "stack\t10\t9\t10\n"
    "stack\t11\t10\t11\n"
    "sample\t1000\t7\t7\t11\n"
    "sample\t1001\t7\t7\t9\n"
    "sample\t1002\t7\t7\t2\n";

START_TEST(perf_trampoline_glue_is_hidden)
{
	struct fold_opts o = { 0 };
	char *got = fold_text(perf, &o, NULL);

	ck_assert_str_eq(got, "python3;_start;PyEval_EvalCode;_PyEval_Vector;"
			      "_PyEval_EvalFrame 1\n"
			      "python3;_start;PyEval_EvalCode;_PyEval_Vector;"
			      "_PyEval_EvalFrame;<module>;work 1\n"
			      "python3;_start;PyEval_EvalCode;_PyEval_Vector;"
			      "_PyEval_EvalFrame;<module>;work;"
			      "cfunction_vectorcall_O;ext_fn 1\n");
	free(got);
	o.name.interpreter_frames = true;
	got = fold_text(perf, &o, NULL);
	ck_assert_ptr_nonnull(strstr(
	    got, ";py_trampoline_evaluator;<module>;_PyEval_EvalFrameDefault;"
		 "PyObject_Vectorcall;_PyObject_VectorcallTstate;"
		 "py_trampoline_evaluator;work;_PyEval_EvalFrameDefault;"
		 "cfunction_vectorcall_O;ext_fn 1\n"));
	free(got);
}
END_TEST

START_TEST(perf_trampolines_give_way_to_python_frames)
{
	struct fold_opts o = { 0 };
	char *text = NULL, *got;
	uint64_t native_only = 0;

	/* A -X perf process whose Python stacks were read too. */
	ck_assert_int_ge(asprintf(&text,
				  "%spycode\t0\t1\t<module>\t/app/x.py\n"
				  "pycode\t1\t5\twork\t/app/x.py\n"
				  "pynode\t0\t-\t0\t3\tentry\n"
				  "pynode\t1\t0\t1\t6\tentry\n"
				  "pystack\t1\tok\t6,2\n"
				  "sample\t1003\t7\t7\t11\n"
				  "pystack\t-\tinconsistent\t-\n"
				  "sample\t1004\t7\t7\t11\n",
				  perf),
			 0);
	/* Inconsistent: native only, but without the -X perf glue. */
	got = fold_text(text, &o, &native_only);
	ck_assert_uint_eq(native_only, 1);
	ck_assert_ptr_nonnull(strstr(got, "python3;_start;PyEval_EvalCode;"
					  "_PyEval_Vector;_PyEval_EvalFrame;"
					  "<module>;work;"
					  "cfunction_vectorcall_O;ext_fn 3\n"));
	free(got);
	free(text);
}
END_TEST

START_TEST(glue_names_match_clones_only)
{
	ck_assert(fold_pymerge_glue("_PyEval_EvalFrameDefault"));
	ck_assert(fold_pymerge_glue("_PyEval_EvalFrameDefault.cold"));
	ck_assert(fold_pymerge_glue("PyObject_Vectorcall.constprop.0"));
	ck_assert(fold_pymerge_glue("method_vectorcall_VARARGS"));
	ck_assert(!fold_pymerge_glue("method_vectorcall_"));
	ck_assert(!fold_pymerge_glue("PyObject_Vectorcallx"));
	ck_assert(!fold_pymerge_glue("builtin_sorted"));
	ck_assert(!fold_pymerge_glue("_PyEval"));
}
END_TEST

static Suite *
pymerge_suite(void)
{
	Suite *s = suite_create("fold_pymerge");
	TCase *merge = tcase_create("merge");
	TCase *perf_tc = tcase_create("perf");

	tcase_add_test(merge, glue_is_hidden_extensions_and_startup_kept);
	tcase_add_test(merge, interpreter_frames_keep_everything);
	tcase_add_test(merge, inconsistent_is_native_only_and_counted);
	tcase_add_test(merge, misfits_are_native_only);
	tcase_add_test(merge, truncated_goes_under_the_marker);
	tcase_add_test(merge, no_python_is_native_as_before);
	tcase_add_test(merge, python_frames_carry_file_and_line);
	tcase_add_test(merge, speedscope_frames_have_file_and_first_line);
	tcase_add_test(merge, perf_script_names_the_python_file);
	tcase_add_test(perf_tc, perf_trampoline_glue_is_hidden);
	tcase_add_test(perf_tc, perf_trampolines_give_way_to_python_frames);
	tcase_add_test(perf_tc, glue_names_match_clones_only);
	suite_add_tcase(s, merge);
	suite_add_tcase(s, perf_tc);
	return s;
}

int
main(void)
{
	return ck_run(pymerge_suite());
}
