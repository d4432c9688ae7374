/*
 * check_symbolize_imgtab.c: DWARF dropped and opened again, on copies of
 * tests/programs/sym_elf.c built at test time.  An image whose DWARF is
 * dropped between lookups gives, byte for byte, the frames of one that
 * kept it; addresses it resolved before answer without opening it again;
 * and the image table keeps the DWARF it holds under its byte bound,
 * dropping the least recently used first, never the image in use.
 */
#include "tests/unit/ck.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sp-symbolize/image/image.h"
#include "sp-symbolize/image/imgtab.h"
#include "sp-symbolize/out/symres.h"
#include "tests/unit/fixture.h"

/* The file offsets probed: the fixture's code lies in the first 16 KiB. */
#define PROBE_END 0x4000
#define PROBE_STEP 3

static void
build_fixtures(void)
{
	fixture_mkdir("symimg");
	ck_assert_int_eq(sh("cd %s && cc -O2 -g -fPIE -pie -o a %s/sym_elf.c "
			    "&& cp a b && cp a c",
			    fixture_dir, programs()),
			 0);
}

static const struct sym_symopts opts = {
	true, true, NULL, 0, false, false, true
};

static void
same_entry(const struct sym_entry *a, const struct sym_entry *b)
{
	ck_assert_str_eq(a->name, b->name);
	ck_assert_int_eq(!!a->file, !!b->file);
	if (a->file)
		ck_assert_str_eq(a->file, b->file);
	ck_assert_uint_eq(a->line, b->line);
	ck_assert_uint_eq(a->start_line, b->start_line);
	ck_assert_uint_eq(a->flags, b->flags);
	ck_assert_int_eq(a->has_offset, b->has_offset);
	ck_assert_uint_eq(a->offset, b->offset);
}

/* Resolves `off` in both; returns the frames, which must be the same. */
static int
same_frames(struct sym_image *kept, struct sym_image *dropped, uint64_t off)
{
	struct sym_res a = SYM_RES_INIT, b = SYM_RES_INIT;
	int n = sym_image_resolve(kept, off, &a);
	size_t i;

	ck_assert_int_eq(sym_image_resolve(dropped, off, &b), n);
	for (i = 0; i < a.n; i++)
		same_entry(&a.v[i], &b.v[i]);
	sym_res_release(&a);
	sym_res_release(&b);
	return n;
}

START_TEST(dropped_dwarf_gives_the_same_frames)
{
	struct sym_image *kept = sym_image_open(fixture_path("a"), &opts, NULL);
	struct sym_image *img = sym_image_open(fixture_path("a"), &opts, NULL);
	size_t chains = 0, bytes;
	uint64_t off;

	ck_assert_ptr_nonnull(kept);
	ck_assert_ptr_nonnull(img);
	ck_assert(sym_image_dwarf_held(img));
	bytes = sym_image_dwarf_bytes(img);
	ck_assert_uint_gt(bytes, 0);
	for (off = 0; off < PROBE_END; off += PROBE_STEP) {
		if (off % 2)
			sym_image_drop_dwarf(img);
		if (same_frames(kept, img, off) > 1)
			chains++;
	}
	/* Inlined frames, which only DWARF gives, were among them. */
	ck_assert_uint_gt(chains, 0);
	/* Its units' tables were counted as lookups built them. */
	ck_assert_uint_ge(sym_image_dwarf_bytes(img), bytes);
	sym_image_free(kept);
	sym_image_free(img);
}
END_TEST

START_TEST(resolved_addresses_do_not_open_dwarf_again)
{
	struct sym_image *img = sym_image_open(fixture_path("a"), &opts, NULL);
	struct sym_res r = SYM_RES_INIT;
	uint64_t off;

	ck_assert_ptr_nonnull(img);
	for (off = 0; off < PROBE_END; off += PROBE_STEP)
		ck_assert_int_ge(sym_image_resolve(img, off, &r), 0);
	sym_image_drop_dwarf(img);
	ck_assert(!sym_image_dwarf_held(img));
	ck_assert_uint_gt(sym_image_dwarf_bytes(img), 0);
	for (off = 0; off < PROBE_END; off += PROBE_STEP)
		ck_assert_int_ge(sym_image_resolve(img, off, &r), 0);
	ck_assert(!sym_image_dwarf_held(img));
	/* A new address opens it. */
	ck_assert_int_ge(sym_image_resolve(img, 1, &r), 0);
	ck_assert(sym_image_dwarf_held(img));
	sym_res_release(&r);
	sym_image_free(img);
}
END_TEST

START_TEST(names_only_holds_no_dwarf)
{
	struct sym_symopts o = opts;
	struct sym_image *img;

	o.names_only = true;
	img = sym_image_open(fixture_path("a"), &o, NULL);
	ck_assert_ptr_nonnull(img);
	ck_assert(!sym_image_dwarf_held(img));
	ck_assert_uint_eq(sym_image_dwarf_bytes(img), 0);
	sym_image_drop_dwarf(img);
	sym_image_free(img);
}
END_TEST

/* Which of a, b, c hold their DWARF now, as "abc" with '-' for not. */
static const char *
held(struct sym_imgent *e[3])
{
	static char s[4];
	int i;

	for (i = 0; i < 3; i++)
		s[i] = e[i] && e[i]->img && sym_image_dwarf_held(e[i]->img)
			   ? "abc"[i]
			   : '-';
	s[3] = '\0';
	return s;
}

START_TEST(table_keeps_dwarf_under_its_bound)
{
	struct sym_imgtab *t;
	struct sym_imgent *e[3] = { NULL, NULL, NULL };
	struct sym_imgtab_stats st;
	struct sym_res r = SYM_RES_INIT;
	size_t one;

	/* Room for two files' DWARF, not three. */
	t = sym_imgtab_new(&opts, 10, 1, NULL, NULL);
	ck_assert_ptr_nonnull(t);
	e[0] = sym_imgtab_get(t, fixture_path("a"));
	ck_assert_ptr_nonnull(e[0]->img);
	one = sym_image_dwarf_bytes(e[0]->img);
	sym_imgtab_free(t);

	t = sym_imgtab_new(&opts, 10, 2 * one + one / 2, NULL, NULL);
	ck_assert_ptr_nonnull(t);
	e[0] = sym_imgtab_get(t, fixture_path("a"));
	e[1] = sym_imgtab_get(t, fixture_path("b"));
	ck_assert_str_eq(held(e), "ab-");
	e[2] = sym_imgtab_get(t, fixture_path("c"));
	ck_assert_str_eq(held(e), "-bc");
	/*
	 * After a use of b, a's return drops c, the least recently used,
	 * and a's next new address opens a's DWARF again.
	 */
	ck_assert_ptr_nonnull(sym_imgtab_image(t, e[1]));
	ck_assert_ptr_nonnull(sym_imgtab_image(t, e[0]));
	ck_assert_str_eq(held(e), "-b-");
	ck_assert_int_ge(sym_image_resolve(e[0]->img, 0x1000, &r), 0);
	sym_res_release(&r);
	ck_assert_str_eq(held(e), "ab-");
	sym_imgtab_stats(t, &st);
	ck_assert_uint_eq(st.dwarf_dropped, 2);
	ck_assert_uint_eq(st.closed, 0);
	sym_imgtab_free(t);

	/* A bound below one file keeps the one in use. */
	t = sym_imgtab_new(&opts, 10, 1, NULL, NULL);
	ck_assert_ptr_nonnull(t);
	e[0] = sym_imgtab_get(t, fixture_path("a"));
	e[1] = sym_imgtab_get(t, fixture_path("b"));
	e[2] = sym_imgtab_get(t, fixture_path("c"));
	ck_assert_str_eq(held(e), "--c");
	sym_imgtab_free(t);
}
END_TEST

static Suite *
imgtab_suite(void)
{
	Suite *s = suite_create("symbolize_imgtab");
	TCase *t = tcase_create("dwarf");

	tcase_add_unchecked_fixture(t, build_fixtures, fixture_remove);
	tcase_add_test(t, dropped_dwarf_gives_the_same_frames);
	tcase_add_test(t, resolved_addresses_do_not_open_dwarf_again);
	tcase_add_test(t, names_only_holds_no_dwarf);
	tcase_add_test(t, table_keeps_dwarf_under_its_bound);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return ck_run(imgtab_suite());
}
