/*
 * check_fold_writers.c: sp-fold's writers from a folded set: the top
 * table, the SVG flame graph (a rect per frame, escaping), and the pprof
 * profile, decoded here with zlib and a small protobuf reader to the
 * folded lines and totals it was written from, and from a record stream
 * with its functions grouped as in folded output.
 */
#include "tests/unit/ck.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "sp-fold/model/foldset.h"
#include "sp-fold/read/read_records.h"
#include "sp-fold/write/write_folded.h"
#include "sp-fold/write/write_pprof.h"
#include "sp-fold/write/write_pprof_records.h"
#include "sp-fold/write/write_svg.h"
#include "sp-fold/write/write_top.h"

static const char *const lines[] = {
	"app;main;work;leaf",
	"app;main;work;leaf",
	"app;main;work",
	"app;main;a<b>&\"c\"",
	"sh;main",
	"app;main;rec;rec",
};

static struct fold_set *
sample_set(void)
{
	struct fold_set *s = fold_set_new();
	size_t i;

	ck_assert_ptr_nonnull(s);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		ck_assert_int_eq(fold_set_add(s, lines[i], strlen(lines[i]), 1),
				 0);
	return s;
}

/* Runs a writer into memory; the caller frees *out. */
#define CAPTURE(out, len, call)                                                \
	do {                                                                   \
		FILE *f_ = open_memstream(&(out), &(len));                     \
		ck_assert_ptr_nonnull(f_);                                     \
		ck_assert_int_eq((call), 0);                                   \
		fclose(f_);                                                    \
	} while (0)

START_TEST(top_counts_self_and_total_once_per_stack)
{
	struct fold_set *s = sample_set();
	struct fold_top_opts o = { 0 };
	char *out = NULL;
	size_t len = 0;

	CAPTURE(out, len,
		fold_write_top(f_, &(struct fold_profile){ .set = s }, &o));
	ck_assert_str_eq(
	    out, "# 6 samples, 5 functions\n"
		 "   self%   total%         self        total  function\n"
		 "  33.33%   33.33%            2            2  leaf\n"
		 "  16.67%  100.00%            1            6  main\n"
		 "  16.67%   50.00%            1            3  work\n"
		 "  16.67%   16.67%            1            1  a<b>&\"c\"\n"
		 "  16.67%   16.67%            1            1  rec\n");
	free(out);
	fold_set_free(s);
}
END_TEST

static size_t
count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s++;
	}
	return n;
}

START_TEST(svg_has_a_rect_per_frame_and_escapes)
{
	struct fold_set *s = sample_set();
	struct fold_svg_opts o = { .title = "t&t" };
	char *out = NULL;
	size_t len = 0;

	CAPTURE(out, len,
		fold_write_svg(f_, &(struct fold_profile){ .set = s }, &o));
	/* all app main work leaf a<b> rec rec sh main */
	ck_assert_uint_eq(count(out, "<g><title>"), 10);
	ck_assert_uint_eq(count(out, "<rect"), 11);
	ck_assert_ptr_nonnull(
	    strstr(out, "a&lt;b&gt;&amp;&quot;c&quot; (1 samples"));
	ck_assert_ptr_nonnull(strstr(out, ">t&amp;t</text>"));
	ck_assert_ptr_nonnull(strstr(out, "all (6 samples, 100.00%)"));
	ck_assert_ptr_nonnull(strstr(out, "</svg>\n"));
	ck_assert_ptr_null(strstr(out, "a<b"));
	free(out);
	fold_set_free(s);
}
END_TEST

/* ---------------------------------------------------------------- pprof */

struct pb {
	const unsigned char *p, *end;
};

static uint64_t
pb_varint(struct pb *b)
{
	uint64_t v = 0;
	int shift = 0;

	for (;;) {
		ck_assert(b->p < b->end && shift < 64);
		v |= (uint64_t)(*b->p & 0x7f) << shift;
		shift += 7;
		if (!(*b->p++ & 0x80))
			return v;
	}
}

/* Reads the next field; a length-delimited one sets *sub. */
static bool
pb_next(struct pb *b, unsigned *field, uint64_t *v, struct pb *sub)
{
	uint64_t key;

	if (b->p >= b->end)
		return false;
	key = pb_varint(b);
	*field = (unsigned)(key >> 3);
	if ((key & 7) == 0) {
		*v = pb_varint(b);
		return true;
	}
	ck_assert_uint_eq(key & 7, 2);
	*v = pb_varint(b);
	ck_assert((uint64_t)(b->end - b->p) >= *v);
	sub->p = b->p;
	sub->end = b->p + *v;
	b->p += *v;
	return true;
}

struct profile {
	char *strs[256];
	size_t nstrs;
	uint64_t func_name[64]; /* function id -> name index */
	uint64_t loc_func[64];  /* location id -> function id (one line) */
	size_t nfuncs;
	uint64_t total;
	char folded[1024];
	size_t nsamples;
};

static void
read_sample(struct profile *pr, struct pb s, char *line, size_t size)
{
	uint64_t locs[32], v, first = 0;
	size_t nlocs = 0;
	unsigned f;
	struct pb sub, lab;
	char thread[64] = "";

	while (pb_next(&s, &f, &v, &sub)) {
		if (f == 1)
			while (sub.p < sub.end)
				locs[nlocs++] = pb_varint(&sub);
		else if (f == 2)
			first = pb_varint(&sub);
		else if (f == 3) {
			uint64_t key = 0, str = 0;

			while (pb_next(&sub, &f, &v, &lab))
				*(f == 1 ? &key : &str) = v;
			if (strcmp(pr->strs[key], "thread"))
				continue; /* pid, tid */
			snprintf(thread, sizeof(thread), "%s", pr->strs[str]);
		}
	}
	pr->total += first;
	snprintf(line, size, "%s", thread);
	while (nlocs--) {
		uint64_t fn = pr->loc_func[locs[nlocs]];

		ck_assert_uint_ne(fn, 0);
		strncat(line, ";", size - strlen(line) - 1);
		strncat(line, pr->strs[pr->func_name[fn]],
			size - strlen(line) - 1);
	}
	snprintf(line + strlen(line), size - strlen(line), " %llu\n",
		 (unsigned long long)first);
}

static void
read_profile(struct profile *pr, const unsigned char *data, size_t len)
{
	struct pb b = { data, data + len }, sub, ln;
	char samples[16][128];
	uint64_t v, id = 0, name = 0, fn = 0;
	unsigned f, g;
	size_t i, j;

	memset(pr, 0, sizeof(*pr));
	while (pb_next(&b, &f, &v, &sub)) {
		if (f == 6) {
			ck_assert_uint_lt(pr->nstrs, 256);
			pr->strs[pr->nstrs++] = strndup((const char *)sub.p, v);
		} else if (f == 5) {
			while (pb_next(&sub, &g, &v, &ln))
				*(g == 1 ? &id : g == 2 ? &name : &v) = v;
			pr->func_name[id] = name;
			pr->nfuncs++;
		} else if (f == 4) {
			while (pb_next(&sub, &g, &v, &ln)) {
				if (g == 1)
					id = v;
				while (g == 4 && pb_next(&ln, &g, &v, &sub))
					if (g == 1)
						fn = v;
			}
			pr->loc_func[id] = fn;
		}
	}
	b.p = data;
	while (pb_next(&b, &f, &v, &sub))
		if (f == 2)
			read_sample(pr, sub, samples[pr->nsamples++], 128);
	/* the samples in folded (sorted) order */
	for (i = 0; i < pr->nsamples; i++)
		for (j = i + 1; j < pr->nsamples; j++)
			if (strcmp(samples[j], samples[i]) < 0) {
				char t[128];

				memcpy(t, samples[i], 128);
				memcpy(samples[i], samples[j], 128);
				memcpy(samples[j], t, 128);
			}
	for (i = 0; i < pr->nsamples; i++)
		strncat(pr->folded, samples[i],
			sizeof(pr->folded) - strlen(pr->folded) - 1);
}

static unsigned char *
gunzip(const char *in, size_t n, size_t *outlen)
{
	static unsigned char out[65536];
	z_stream z;

	memset(&z, 0, sizeof(z));
	ck_assert_int_eq(inflateInit2(&z, 15 + 32), Z_OK);
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = sizeof(out);
	ck_assert_int_eq(inflate(&z, Z_FINISH), Z_STREAM_END);
	*outlen = sizeof(out) - z.avail_out;
	inflateEnd(&z);
	return out;
}

START_TEST(pprof_decodes_to_the_folded_stacks)
{
	struct fold_set *s = sample_set();
	struct fold_profile p = { .set = s,
				  .meta = { .period_ns = 1000000,
					    .start_ns = 5,
					    .duration_ns = 7 } };
	struct profile pr;
	char *out = NULL, *fold = NULL;
	const unsigned char *raw;
	size_t len = 0, flen = 0, rawlen, i;

	CAPTURE(out, len, fold_write_pprof(f_, &p, false));
	CAPTURE(fold, flen, fold_write_folded(f_, &p));
	raw = gunzip(out, len, &rawlen);
	read_profile(&pr, raw, rawlen);
	ck_assert_str_eq(pr.strs[0], "");
	ck_assert_str_eq(pr.strs[1], "samples");
	ck_assert_uint_eq(pr.total, fold_set_total(s));
	ck_assert_str_eq(pr.folded, fold);
	for (i = 0; i < pr.nstrs; i++)
		free(pr.strs[i]);
	free(out);
	free(fold);
	fold_set_free(s);
}
END_TEST

/* Reads a record stream and writes its pprof profile. */
static char *
records_pprof(const char *text, const struct fold_opts *o, size_t *len)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	FILE *tmp = tmpfile();
	struct fold_profile p;
	struct fold_reader r;
	char *out;

	ck_assert(in && tmp);
	ck_assert_int_eq(fold_reader_init(&r, "", o), 0);
	ck_assert_int_eq(fold_reader_read(&r, in), 0);
	fold_reader_profile(&r, &p);
	ck_assert_int_eq(fold_write_pprof_records(tmp, &p, &o->name, &o->count),
			 0);
	fold_reader_release(&r);
	*len = (size_t)ftell(tmp);
	out = malloc(*len ? *len : 1);
	ck_assert_ptr_nonnull(out);
	rewind(tmp);
	ck_assert_uint_eq(fread(out, 1, *len, tmp), *len);
	fclose(tmp);
	fclose(in);
	return out;
}

/* Two call sites of a kernel function, two addresses in a stripped binary. */
static const char grouping[] =
    "spool\t1\t0\t1000\n"
    "module\t0\t5\t0x1000\t0x2000\t0x0\t1\tuser\t/usr/bin/cc1plus\n"
    "frame\t0\tuser\t0x1010\t0\t0x10\n"
    "symbol\t0\t-\t0\tu\t-\t-\tcc1plus+0x10\n"
    "frame\t1\tuser\t0x1020\t0\t0x20\n"
    "frame\t2\tkernel\t0xffffffff81000044\t-\t-\n"
    "symbol\t2\t-\t0\tk\t0x44\t-\tdo_syscall_64+0x44\n"
    "frame\t3\tkernel\t0xffffffff81000070\t-\t-\n"
    "symbol\t3\t-\t0\tk\t0x70\t-\tdo_syscall_64+0x70\n"
    "stack\t0\t-\t0\n"
    "stack\t1\t0\t2\n"
    "stack\t2\t-\t1\n"
    "stack\t3\t2\t3\n"
    "comm\t1\t5\t5\texec\tcc1plus\n"
    "sample\t10\t5\t5\t1\n"
    "sample\t11\t5\t5\t3\n"
    "sample\t12\t5\t5\t3\n";

static void
release_profile(struct profile *pr)
{
	size_t i;

	for (i = 0; i < pr->nstrs; i++)
		free(pr->strs[i]);
}

START_TEST(pprof_of_records_groups_by_function)
{
	struct fold_opts o = { .format = FOLD_PPROF };
	struct profile pr;
	const unsigned char *raw;
	size_t len, rawlen;
	char *out;

	out = records_pprof(grouping, &o, &len);
	raw = gunzip(out, len, &rawlen);
	read_profile(&pr, raw, rawlen);
	/* one sample per stack id, so the two call sites stay two lines */
	ck_assert_str_eq(pr.folded, "cc1plus;[cc1plus];do_syscall_64 1\n"
				    "cc1plus;[cc1plus];do_syscall_64 2\n");
	ck_assert_uint_eq(pr.nfuncs, 2);
	release_profile(&pr);
	free(out);
	o.name.addrs = true;
	out = records_pprof(grouping, &o, &len);
	raw = gunzip(out, len, &rawlen);
	read_profile(&pr, raw, rawlen);
	ck_assert_str_eq(pr.folded,
			 "cc1plus;cc1plus+0x10;do_syscall_64+0x44 1\n"
			 "cc1plus;cc1plus+0x20;do_syscall_64+0x70 2\n");
	ck_assert_uint_eq(pr.nfuncs, 4);
	release_profile(&pr);
	free(out);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("fold writers");
	TCase *text = tcase_create("top and svg");
	TCase *pprof = tcase_create("pprof");

	tcase_add_test(text, top_counts_self_and_total_once_per_stack);
	tcase_add_test(text, svg_has_a_rect_per_frame_and_escapes);
	suite_add_tcase(s, text);
	tcase_add_test(pprof, pprof_decodes_to_the_folded_stacks);
	tcase_add_test(pprof, pprof_of_records_groups_by_function);
	suite_add_tcase(s, pprof);
	return ck_run(s);
}
