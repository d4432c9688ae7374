/*
 * check_record_pycode.c: the code cache of the CPython frame reader
 * (sp-record/pycode.h) on code objects laid out in this process's own
 * memory as 3.12 lays them out: a code kept by address and fingerprint,
 * a freed one given up, and one seeded with the strings the BPF program
 * copied at the sample.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "sp-record/python/pycode.h"
#include "sp-record/python/pydecode.h"
#include "sp-record/python/pylayout.h"
#include "sp-record/python/pymem.h"

/* 3.12's compact ASCII str: the header, then the characters. */
#define STR_HDR 40
#define ASCII_STATE ((1u << 2) | (1u << 5) | (1u << 6)) /* kind 1 */

struct fake_str {
	uint8_t b[STR_HDR + 64];
};

/* A bytes object (a line table): ob_size at 16, data at 32. */
struct fake_bytes {
	uint8_t b[40];
};

static uint64_t code_type; /* its address is PyCode_Type's */
static struct rec_pylayout lay;
static uint8_t code[512] __attribute__((aligned(16)));
static struct fake_str name, other, file;
static struct fake_bytes lines;
static struct rec_pycode_cache *cache;
static struct rec_pymem mem;

static void
put64(uint8_t *p, uint32_t off, uint64_t v)
{
	memcpy(p + off, &v, 8);
}

static void
make_str(struct fake_str *s, const char *text)
{
	uint32_t state = ASCII_STATE;

	memset(s, 0, sizeof(*s));
	put64(s->b, 0, 1);
	put64(s->b, lay.str.length, strlen(text));
	memcpy(s->b + lay.str.state, &state, 4);
	memcpy(s->b + STR_HDR, text, strlen(text));
}

static void
setup(void)
{
	int32_t first = 7;

	ck_assert_int_eq(rec_pylayout_table(12, &lay), 0);
	ck_assert_uint_eq(lay.str.ascii_size, STR_HDR);
	make_str(&name, "spin");
	make_str(&other, "not_it");
	make_str(&file, "/srv/app.py");
	memset(&lines, 0, sizeof(lines));
	memset(code, 0, sizeof(code));
	put64(code, 0, 3); /* ob_refcnt */
	put64(code, 8, (uintptr_t)&code_type);
	put64(code, lay.co_name, (uintptr_t)&name);
	put64(code, lay.co_qualname, (uintptr_t)&name);
	put64(code, lay.co_filename, (uintptr_t)&file);
	put64(code, lay.co_lines, (uintptr_t)&lines);
	memcpy(code + lay.co_firstlineno, &first, 4);
	cache = rec_pycode_new(&lay, (uintptr_t)&code_type);
	ck_assert_ptr_nonnull(cache);
	ck_assert_int_eq(rec_pymem_init(&mem, getpid()), 0);
	rec_pymem_begin(&mem, 1 << 20);
}

static void
teardown(void)
{
	rec_pycode_free(cache);
	rec_pymem_release(&mem);
}

static const struct rec_pycode *
get(int *err)
{
	rec_pymem_begin(&mem, 1 << 20);
	return rec_pycode_from_header(cache, &mem, (uintptr_t)code, code, err);
}

START_TEST(kept_by_address_and_fingerprint)
{
	const struct rec_pycode *a, *b;
	int err = 0;

	a = get(&err);
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq(a->name, "spin");
	ck_assert_str_eq(a->filename, "/srv/app.py");
	ck_assert_int_eq(a->firstlineno, 7);
	ck_assert_ptr_eq(get(&err), a); /* kept: not read again */
	/* another code at that address: a new one */
	put64(code, lay.co_qualname, (uintptr_t)&other);
	b = get(&err);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(b, a);
	ck_assert_str_eq(b->name, "not_it");
	/* and the first one back: still kept */
	put64(code, lay.co_qualname, (uintptr_t)&name);
	ck_assert_ptr_eq(get(&err), a);
	ck_assert_uint_eq(rec_pycode_count(cache), 2);
}
END_TEST

/*
 * A code freed before its strings were read: its fields stay, its
 * reference count is the allocator's link.  The strings read may be
 * another object's by then, so it is not kept.
 */
START_TEST(freed_code_is_not_kept)
{
	uint8_t hdr[sizeof(code)];
	int err = 0;

	memcpy(hdr, code, sizeof(code));
	put64(code, 0, (uintptr_t)&other); /* a free list's next block */
	rec_pymem_begin(&mem, 1 << 20);
	ck_assert_ptr_null(
	    rec_pycode_from_header(cache, &mem, (uintptr_t)code, hdr, &err));
	ck_assert_int_eq(err, -ESTALE);
	put64(code, 0, 0); /* the free list's last block */
	ck_assert_ptr_null(
	    rec_pycode_from_header(cache, &mem, (uintptr_t)code, hdr, &err));
	ck_assert_int_eq(err, -ESTALE);
	ck_assert_uint_eq(rec_pycode_count(cache), 0);
}
END_TEST

/*
 * The BPF program's copy of the strings at the sample wins over what the
 * memory holds by the time they are read; a code freed by then is kept
 * with them, and with the start of its line table the copy holds.
 */
START_TEST(seeded_strings)
{
	/* a bytes object of 6 bytes of 3.12 locations, cut after its first
	 * entry: one code unit on the first line + 1 */
	uint8_t table[32 + 3] = { 0 };
	struct fake_str at_sample;
	struct rec_pycode_seed seed;
	const struct rec_pycode *c;
	int err = 0;

	put64(table, 16, 6);
	table[32] = 0x80 | (11 << 3);
	table[33] = 1;
	table[34] = 2;
	make_str(&at_sample, "spin");
	make_str(&name, "reused"); /* the name's memory, reused since */
	put64(code, 0, 0);         /* and the code freed */
	seed.name = (struct rec_pycode_raw){ at_sample.b, sizeof(at_sample) };
	seed.file = (struct rec_pycode_raw){ file.b, STR_HDR + 4 };
	seed.lines = (struct rec_pycode_raw){ table, sizeof(table) };
	rec_pymem_begin(&mem, 1 << 20);
	ck_assert_int_eq(
	    rec_pycode_seed(cache, &mem, (uintptr_t)code, code, &seed), 0);
	c = get(&err);
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->name, "spin");
	/* a copy too short for the file name: the rest read from memory */
	ck_assert_str_eq(c->filename, "/srv/app.py");
	/* the table's start, as copied: lines it covers, none past it */
	ck_assert_int_eq(rec_pycode_line(cache, c, 0), 8);
	ck_assert_int_eq(rec_pycode_line(cache, c, 4), -1);
	ck_assert_uint_eq(rec_pycode_count(cache), 1);
}
END_TEST

/*
 * 3.8 and 3.9's pairs give the last line they reach to any address past
 * them: from a table cut short, that may be a later line's address.
 */
START_TEST(cut_tables)
{
	const uint8_t pairs[] = { 2, 1, 4, 1 }; /* lines +1 at 2, +1 at 6 */

	ck_assert_int_eq(rec_pydecode_line(REC_PY_LNOTAB, pairs, 4, 10, 3), 11);
	ck_assert_int_eq(rec_pydecode_line(REC_PY_LNOTAB, pairs, 4, 10, 9), 12);
	ck_assert_int_eq(rec_pydecode_line_cut(REC_PY_LNOTAB, pairs, 4, 10, 3),
			 11);
	ck_assert_int_eq(rec_pydecode_line_cut(REC_PY_LNOTAB, pairs, 4, 10, 9),
			 -1);
}
END_TEST

/*
 * A name over REC_PYCODE_NAME_MAX characters (code.replace makes them) is
 * kept cut, its two ends joined by a mark, not refused: a code that
 * cannot be read costs its samples their function.
 */
START_TEST(long_names_cut)
{
	static uint8_t big[STR_HDR + REC_PYCODE_NAME_MAX + 100];
	uint32_t state = ASCII_STATE, n = REC_PYCODE_NAME_MAX + 76;
	const struct rec_pycode *c;
	int err = 0;

	memset(big, 'a', sizeof(big));
	memset(big, 0, STR_HDR);
	put64(big, 0, 1);
	put64(big, lay.str.length, n);
	memcpy(big + lay.str.state, &state, 4);
	big[STR_HDR + n - 1] = 'z';
	put64(code, lay.co_qualname, (uintptr_t)big);
	c = get(&err);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(strlen(c->name), REC_PYCODE_NAME_MAX + 5);
	ck_assert_mem_eq(c->name + REC_PYCODE_NAME_MAX / 2 - 1, "a[...]a", 7);
	ck_assert_int_eq(c->name[REC_PYCODE_NAME_MAX + 4], 'z');
	ck_assert_int_eq(c->name[0], 'a');
	/* as many characters as are kept: whole */
	put64(big, lay.str.length, REC_PYCODE_NAME_MAX);
	put64(code, lay.co_name, (uintptr_t)&other); /* a new fingerprint */
	c = get(&err);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(strlen(c->name), REC_PYCODE_NAME_MAX);
}
END_TEST

static Suite *
pycode_suite(void)
{
	Suite *s = suite_create("record_pycode");
	TCase *tc = tcase_create("cache");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, kept_by_address_and_fingerprint);
	tcase_add_test(tc, freed_code_is_not_kept);
	tcase_add_test(tc, seeded_strings);
	tcase_add_test(tc, cut_tables);
	tcase_add_test(tc, long_names_cut);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return ck_run(pycode_suite());
}
