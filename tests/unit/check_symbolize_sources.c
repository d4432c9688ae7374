/*
 * check_symbolize_sources.c: sp-symbolize's small symbol sources on
 *  crafted input: kallsyms tables, JIT perf maps, demangling, and the
 * mappings a perf map may override.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp-symbolize/elf/demangle.h"
#include "sp-symbolize/jit/jitdump.h"
#include "sp-symbolize/kernel/kallsyms.h"
#include "sp-symbolize/jit/perfmap.h"
#include "sp-symbolize/resolve.h"
#include "sp-symbolize/elf/symname.h"
#include "sp-symbolize/out/symres.h"

static FILE *
text(const char *s)
{
	FILE *f = fmemopen((void *)s, strlen(s), "r");

	ck_assert_ptr_nonnull(f);
	return f;
}

static const char kallsyms[] =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T startup_64\n"
    "ffffffff81000100 t __pfx_vfs_read\n"
    "ffffffff81100000 T vfs_read\n"
    "ffffffff81100200 D some_data\n"
    "ffffffff81100400 W weak_fn\n"
    "ffffffffc0010000 t wg_packet_tx_worker\t[wireguard]\n"
    "ffffffffc0010100 T wg_packet_receive\t[wireguard]\n";

START_TEST(kallsyms_lookup_with_modules)
{
	FILE *f = text(kallsyms);
	struct sym_kallsyms *k = sym_kallsyms_read(f, NULL);
	const char *name, *mod;
	uint64_t start;

	fclose(f);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(sym_kallsyms_count(k), 6); /* data dropped */
	ck_assert(
	    sym_kallsyms_lookup(k, 0xffffffff81100014, &name, &mod, &start));
	ck_assert_str_eq(name, "vfs_read");
	ck_assert_ptr_null(mod);
	ck_assert_uint_eq(start, 0xffffffff81100000);
	/* Aliases: the name with fewer leading underscores wins. */
	ck_assert(
	    sym_kallsyms_lookup(k, 0xffffffff81000004, &name, &mod, &start));
	ck_assert_str_eq(name, "startup_64");
	ck_assert(
	    sym_kallsyms_lookup(k, 0xffffffffc0010014, &name, &mod, &start));
	ck_assert_str_eq(name, "wg_packet_tx_worker");
	ck_assert_str_eq(mod, "[wireguard]");
	ck_assert(
	    !sym_kallsyms_lookup(k, 0xffffffff80000000, &name, &mod, &start));
	sym_kallsyms_free(k);
}
END_TEST

/* Modules come after the sorted kernel image, in any order. */
static const char kallsyms_unsorted[] = "ffffffff81000000 T _stext\n"
					"ffffffff81000100 t a_local\n"
					"ffffffff81000200 T b_global\n"
					"ffffffffc0020000 t m2\t[two]\n"
					"ffffffffc0010100 T m1b\t[one]\n"
					"ffffffff81000100 T a_global\t[alias]\n"
					"ffffffffc0010000 t m1a\t[one]\n";

START_TEST(kallsyms_unsorted_modules)
{
	FILE *f = text(kallsyms_unsorted);
	struct sym_kallsyms *k = sym_kallsyms_read(f, NULL);
	static const struct {
		uint64_t addr;
		const char *name, *mod;
	} want[] = {
		{ 0xffffffff81000004, "_stext", NULL },
		{ 0xffffffff81000104, "a_global", "[alias]" },
		{ 0xffffffff81000204, "b_global", NULL },
		{ 0xffffffffc0010004, "m1a", "[one]" },
		{ 0xffffffffc0010104, "m1b", "[one]" },
		{ 0xffffffffc0020004, "m2", "[two]" },
	};
	const char *name, *mod;
	uint64_t start;
	size_t i;

	fclose(f);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(sym_kallsyms_count(k), 6); /* one alias merged */
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert(
		    sym_kallsyms_lookup(k, want[i].addr, &name, &mod, &start));
		ck_assert_uint_eq(start, want[i].addr - 4);
		ck_assert_str_eq(name, want[i].name);
		if (want[i].mod)
			ck_assert_str_eq(mod, want[i].mod);
		else
			ck_assert_ptr_null(mod);
	}
	sym_kallsyms_free(k);
}
END_TEST

/*
 * The image's copy (what sp-symbolize keeps per boot) finds, for every
 * address, the whole table's symbol when that is the image's, and a
 * module symbol otherwise: never another image symbol.  Here a module
 * sits between image symbols, as where modules load near the image.
 */
static const char kallsyms_mixed[] = "ffffffff81000000 T _stext\n"
				     "ffffffff81000100 t a_local\n"
				     "ffffffff81000200 T b_global\n"
				     "ffffffff81000300 t m1\t[one]\n"
				     "ffffffff81000380 t m2\t[one]\n"
				     "ffffffff81000400 T c_after\n"
				     "ffffffffc0020000 t m3\t[two]\n"
				     "ffffffffc0020100 t m4\t[bpf]\n";

START_TEST(kallsyms_image_copy)
{
	FILE *f = text(kallsyms_mixed);
	struct sym_kallsyms *k = sym_kallsyms_read(f, NULL), *img;
	struct sp_buf b = SP_BUF_INIT;
	const char *n1, *m1, *n2, *m2;
	uint64_t s1, s2, a;
	bool f1, f2;

	fclose(f);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(sym_kallsyms_write_image(k, &b), 0);
	/* The image's 4 symbols and the first of each module run. */
	img = sym_kallsyms_parse(&b, NULL);
	ck_assert_ptr_nonnull(img);
	ck_assert_ptr_null(b.data);
	ck_assert_uint_eq(sym_kallsyms_count(img), 6);
	for (a = 0xffffffff80fffff0; a < 0xffffffff81000500; a += 4) {
		f1 = sym_kallsyms_lookup(k, a, &n1, &m1, &s1);
		f2 = sym_kallsyms_lookup(img, a, &n2, &m2, &s2);
		ck_assert_int_eq(f1, f2);
		if (!f1)
			continue;
		ck_assert_int_eq(m1 == NULL, m2 == NULL);
		if (!m1) {
			ck_assert_str_eq(n1, n2);
			ck_assert_uint_eq(s1, s2);
		}
	}
	ck_assert(sym_kallsyms_lookup(img, 0xffffffffc0020104, &n2, &m2, &s2));
	ck_assert_ptr_nonnull(m2);
	sym_kallsyms_free(img);
	sym_kallsyms_free(k);
	/* A damaged copy is refused with its line. */
	sp_buf_adds(&b, "ffffffff81000000 T a\nffffffff81 garbage\n");
	ck_assert_ptr_null(sym_kallsyms_parse(&b, NULL));
	ck_assert_int_eq(errno, EBADMSG);
}
END_TEST

START_TEST(kallsyms_hidden_addresses_and_bad_lines)
{
	FILE *f = text("0000000000000000 T a\n0000000000000000 t b\n");
	struct sym_kallsyms *k = sym_kallsyms_read(f, NULL);
	unsigned long line = 0;

	fclose(f);
	ck_assert_ptr_nonnull(k);
	ck_assert_uint_eq(sym_kallsyms_count(k), 0);
	sym_kallsyms_free(k);
	f = text("ffffffff81000000 T a\nnot a line\n");
	ck_assert_ptr_null(sym_kallsyms_read(f, &line));
	ck_assert_int_eq(errno, EBADMSG);
	ck_assert_uint_eq(line, 2);
	fclose(f);
	ck_assert_ptr_null(sym_kallsyms_load("/nonexistent/kallsyms", NULL));
}
END_TEST

START_TEST(perf_map_ranges_and_gaps)
{
	FILE *f = text("1000 c py::first:/tmp/app.py\n"
		       "1020 c py::second:/tmp/app.py\n"
		       "garbage line\n"
		       "0x3000 20 jit_func\n"
		       "4000 100 old\n"
		       "4000 100 recompiled\n"
		       "5000 0 empty\n");
	struct sym_perfmap *m = sym_perfmap_read(f);
	const char *name;
	uint64_t start;

	fclose(f);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(sym_perfmap_count(m), 5);
	ck_assert(sym_perfmap_lookup(m, 0x1008, &name, &start));
	ck_assert_str_eq(name, "py::first:/tmp/app.py");
	ck_assert(!sym_perfmap_lookup(m, 0x100e, &name, &start)); /* gap */
	ck_assert(sym_perfmap_lookup(m, 0x1024, &name, &start));
	ck_assert_str_eq(name, "py::second:/tmp/app.py");
	ck_assert(sym_perfmap_lookup(m, 0x3008, &name, &start));
	ck_assert_str_eq(name, "jit_func");
	ck_assert_uint_eq(start, 0x3000);
	ck_assert(sym_perfmap_lookup(m, 0x4050, &name, &start));
	ck_assert_str_eq(name, "recompiled"); /* the later entry wins */
	ck_assert(!sym_perfmap_lookup(m, 0x5000, &name, &start));
	ck_assert(!sym_perfmap_lookup(m, 0x10, &name, &start));
	sym_perfmap_free(m);
}
END_TEST

START_TEST(perf_map_python_entries)
{
	char *func, *file;

	ck_assert(sym_perfmap_python("py::work:/tmp/app.py", &func, &file));
	ck_assert_str_eq(func, "work");
	ck_assert_str_eq(file, "/tmp/app.py");
	free(func);
	free(file);
	ck_assert(sym_perfmap_python("py::bare", &func, &file));
	ck_assert_str_eq(func, "bare");
	ck_assert_str_eq(file, "");
	free(func);
	free(file);
	ck_assert(!sym_perfmap_python("jit_func", &func, &file));
}
END_TEST

/* A jitdump writer, independent of the reader: fields in host order,
 * or byte-swapped as a writer of the other byte order stores them. */
struct jdw {
	uint8_t b[4096];
	size_t n;
	bool swap;
};

static void
jd32(struct jdw *w, uint32_t v)
{
	v = w->swap ? __builtin_bswap32(v) : v;
	memcpy(w->b + w->n, &v, 4);
	w->n += 4;
}

static void
jd64(struct jdw *w, uint64_t v)
{
	v = w->swap ? __builtin_bswap64(v) : v;
	memcpy(w->b + w->n, &v, 8);
	w->n += 8;
}

static void
jd_header(struct jdw *w)
{
	jd32(w, 0x4a695444);
	jd32(w, 1);
	jd32(w, 40);
	jd32(w, 62);
	jd32(w, 0);
	jd32(w, 1234);
	jd64(w, 0);
	jd64(w, 0);
}

static void
jd_load(struct jdw *w, uint64_t addr, uint64_t size, const char *name)
{
	size_t len = strlen(name) + 1;

	jd32(w, 0);
	jd32(w, (uint32_t)(16 + 40 + len + size));
	jd64(w, 0);
	jd32(w, 1234);
	jd32(w, 1234);
	jd64(w, addr);
	jd64(w, addr);
	jd64(w, size);
	jd64(w, 7);
	memcpy(w->b + w->n, name, len);
	w->n += len;
	memset(w->b + w->n, 0x90, size);
	w->n += size;
}

/* Another record kind (unwinding info), skipped by its size. */
static void
jd_other(struct jdw *w)
{
	jd32(w, 4);
	jd32(w, 40);
	jd64(w, 0);
	memset(w->b + w->n, 0xee, 24);
	w->n += 24;
}

static void
jd_sample(struct jdw *w, bool swap)
{
	memset(w, 0, sizeof(*w));
	w->swap = swap;
	jd_header(w);
	jd_other(w);
	jd_load(w, 0x1000, 16, "py::work:/srv/app.py");
	jd_other(w);
	jd_load(w, 0x2000, 11, "jitted_thing");
}

START_TEST(jitdump_code_loads)
{
	struct sym_perfmap *m;
	struct jdw w;
	const char *name;
	uint64_t start;
	int swap;

	for (swap = 0; swap < 2; swap++) {
		jd_sample(&w, swap);
		m = sym_perfmap_new();
		ck_assert_int_eq(sym_jitdump_parse(w.b, w.n, m), 2);
		ck_assert(sym_perfmap_lookup(m, 0x100f, &name, &start));
		ck_assert_str_eq(name, "py::work:/srv/app.py");
		ck_assert_uint_eq(start, 0x1000);
		ck_assert(!sym_perfmap_lookup(m, 0x1010, &name, &start));
		ck_assert(sym_perfmap_lookup(m, 0x200a, &name, &start));
		ck_assert_str_eq(name, "jitted_thing");
		sym_perfmap_free(m);
	}
}
END_TEST

START_TEST(jitdump_hostile_input)
{
	struct sym_perfmap *m;
	struct jdw w;
	size_t cut, full, end1;
	long n;

	/* Cut at every byte: the loads wholly before the cut, no more. */
	jd_sample(&w, false);
	full = w.n;
	/* header, other record, the first load: 56 + 21 name + 16 code */
	end1 = 40 + 40 + 56 + 21 + 16;
	for (cut = 0; cut <= full; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);

		memcpy(copy, w.b, cut);
		m = sym_perfmap_new();
		n = sym_jitdump_parse(copy, cut, m);
		ck_assert_int_eq(n, cut < 40     ? -EBADMSG
				    : cut < end1 ? 0
				    : cut < full ? 1
						 : 2);
		sym_perfmap_free(m);
		free(copy);
	}
	/* Not a jitdump; a header size past the end. */
	m = sym_perfmap_new();
	ck_assert_int_eq(sym_jitdump_parse((const uint8_t *)"JiTX", 4, m),
			 -EBADMSG);
	jd_sample(&w, false);
	w.b[11] = 0x7f;
	ck_assert_int_eq(sym_jitdump_parse(w.b, w.n, m), -EBADMSG);
	/* A record of size 0 or 8 stops the walk (no endless loop). */
	jd_sample(&w, false);
	memset(w.b + 40 + 4, 0, 4);
	ck_assert_int_eq(sym_jitdump_parse(w.b, w.n, m), 0);
	w.b[44] = 8;
	ck_assert_int_eq(sym_jitdump_parse(w.b, w.n, m), 0);
	/* A name without its NUL inside the record stops it too. */
	jd_sample(&w, false);
	memset(w.b + 40 + 40 + 56, 'x', 21 + 16);
	ck_assert_int_eq(sym_jitdump_parse(w.b, w.n, m), 0);
	sym_perfmap_free(m);
}
END_TEST

START_TEST(demangles_cxx_and_rust)
{
	static const char *const cases[][2] = {
		{ "_ZN3foo3barEv", "foo::bar()" },
		{ "_ZNK3sym6Widget4spinEi", "sym::Widget::spin(int) const" },
		/* Rust legacy: the hash suffix is dropped. */
		{ "_ZN4core3fmt5write17h0123456789abcdefE",
		  "core::fmt::write" },
		/* Rust v0. */
		{ "_RNvCs1234_7mycrate3foo", "mycrate::foo" },
		{ "_ZN3foo3barEv@plt", "foo::bar()@plt" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *d = sym_demangle(cases[i][0], true);

		ck_assert_msg(d != NULL, "%s", cases[i][0]);
		ck_assert_str_eq(d, cases[i][1]);
		free(d);
	}
	ck_assert_ptr_null(sym_demangle("main", true));
	ck_assert_ptr_null(sym_demangle("_Zgarbage", true));
}
END_TEST

/* Shows `raw` with `o`, checks the result and frees it. */
static void
check_shown(const char *raw, const struct sym_nameopts *o, const char *want)
{
	char *got = sym_name_show(raw, o);

	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, want);
	free(got);
}

START_TEST(names_as_perf_shows_them)
{
	static const char *const cases[][2] = {
		{ "__libc_start_main@@GLIBC_2.34", "__libc_start_main" },
		{ "memcpy@GLIBC_2.2.5", "memcpy" },
		{ "puts@plt", "puts@plt" },
		{ "@odd", "@odd" },
		{ "msort_with_tmp.part.0", "msort_with_tmp" },
		{ "f.isra.0", "f" },
		{ "f.constprop.12", "f" },
		{ "f.lto_priv.0", "f" },
		{ "f.cold", "f" },
		{ "f.constprop.0.isra.0", "f" },
		{ "f.part.0.cold", "f" },
		/* BOLT's split fragments. */
		{ "f.warm", "f" },
		{ "f.cold.1", "f" },
		{ "f.isra.0.warm", "f" },
		{ "f.isra.0@@V2", "f" },
		/* Not clone suffixes: a whole name, other words, no dot. */
		{ ".cold", ".cold" },
		{ "f.coldish", "f.coldish" },
		{ ".warm", ".warm" },
		{ "f.warmer", "f.warmer" },
		{ "f.0", "f.0" },
		{ "fisra.0", "fisra.0" },
		/* C++: no return type, the clone folded before demangling. */
		{ "_ZN5va_gc7reserveI8cp_tokenS_EEvRP3vecIT_T0_8vl_embedEjb",
		  "va_gc::reserve<cp_token, va_gc>(vec<cp_token, va_gc, "
		  "vl_embed>*&, unsigned int, bool)" },
		{ "_ZN3foo3barEi.isra.0", "foo::bar(int)" },
		{ "_ZN3foo3barEi.cold", "foo::bar(int)" },
		{ "_ZN3foo3barEi.warm", "foo::bar(int)" },
		{ "_ZN4core3fmt5write17h0123456789abcdefE.warm",
		  "core::fmt::write" },
	};
	const struct sym_nameopts o = { false, true, true };
	const struct sym_nameopts noparams = { false, true, false };
	const struct sym_nameopts mangled = { false, false, true };
	const struct sym_nameopts raw = { true, true, true };
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_shown(cases[i][0], &o, cases[i][1]);
	check_shown("_ZN5va_gc7reserveI8cp_tokenS_EEvRP3vecIT_T0_8vl_embedEjb",
		    &noparams, "va_gc::reserve<cp_token, va_gc>");
	check_shown("_ZN3foo3barEi.isra.0@@V1", &mangled, "_ZN3foo3barEi");
	check_shown("f.isra.0@@V1", &raw, "f.isra.0@@V1");
	check_shown("_ZN3foo3barEi.isra.0", &raw, "_ZN3foo3barEi.isra.0");
}
END_TEST

START_TEST(perf_map_override_rules)
{
	static const char *const yes[] = {
		"",
		"[anon]",
		"[anon:sparse-seven]",
		"//anon",
		"[heap]",
		"[stack:42]",
		"/dev/zero (deleted)",
		"/anon_hugepage (deleted)",
		"/SYSV00000000 (deleted)",
		"/tmp/perf-123.map",
	};
	static const char *const no[] = {
		"/bin/bash",       "/usr/lib/libpython3.13.so.1.0",
		"/memfd:jit-code", "/memfd:jit-code (deleted)",
		"[vdso]",          "[vsyscall]",
	};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		ck_assert_msg(sym_perf_map_may_override(yes[i]), "%s", yes[i]);
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ck_assert_msg(!sym_perf_map_may_override(no[i]), "%s", no[i]);
}
END_TEST

START_TEST(flag_letters)
{
	char buf[8];

	sp_sym_flags_str(0, buf);
	ck_assert_str_eq(buf, "-");
	sp_sym_flags_str(SP_SYM_KERNEL | SP_SYM_UNRESOLVED, buf);
	ck_assert_str_eq(buf, "ku");
	sp_sym_flags_str(0x7f, buf);
	ck_assert_str_eq(buf, "kjiphtu");
}
END_TEST

static Suite *
sources_suite(void)
{
	Suite *s = suite_create("symbolize_sources");
	TCase *k = tcase_create("kallsyms");
	TCase *p = tcase_create("perf_maps");
	TCase *n = tcase_create("names");

	tcase_add_test(k, kallsyms_lookup_with_modules);
	tcase_add_test(k, kallsyms_unsorted_modules);
	tcase_add_test(k, kallsyms_hidden_addresses_and_bad_lines);
	tcase_add_test(k, kallsyms_image_copy);
	tcase_add_test(p, perf_map_ranges_and_gaps);
	tcase_add_test(p, perf_map_python_entries);
	tcase_add_test(p, perf_map_override_rules);
	tcase_add_test(p, jitdump_code_loads);
	tcase_add_test(p, jitdump_hostile_input);
	tcase_add_test(n, demangles_cxx_and_rust);
	tcase_add_test(n, names_as_perf_shows_them);
	tcase_add_test(n, flag_letters);
	suite_add_tcase(s, k);
	suite_add_tcase(s, p);
	suite_add_tcase(s, n);
	return s;
}

int
main(void)
{
	return ck_run(sources_suite());
}
