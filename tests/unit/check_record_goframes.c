/*
 * check_record_goframes.c: Go's stacks in the recorder: a Go module's
 * functions from an ELF symbol table built here (sp-record/gofuncs.c)
 * and from a .gopclntab (sp-record/gopclntab.c),
 * and the checks of frames past a stack switch and their splice from
 * the kernel's frame-pointer walk (sp-record/goframes.c), over code
 * bytes laid out here as a Go program's would be.
 */
#include "tests/unit/ck.h"
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/htab.h"
#include "sp-record/unwind/goframes.h"
#include "sp-record/unwind/gofuncs.h"
#include "sp-record/unwind/gopclntab.h"

/* ------------------------------------------------- a symbol table image */

struct sym {
	const char *name;
	uint64_t value, size;
};

static const struct sym go_syms[] = {
	{ "runtime.goexit.abi0", 0x1000, 8 },
	{ "runtime.systemstack.abi0", 0x1100, 0x80 },
	{ "runtime.morestack_noctxt.abi0", 0x1200, 0x10 },
	{ "runtime.mcall", 0x1300, 0x40 },
	{ "main.f", 0x2000, 0 }, /* no size: ends where main.g starts */
	{ "main.g", 0x2100, 0x100 },
	{ "runtime.systemstack_switch.abi0", 0x1180, 1 },
};

/*
 * Writes an ELF64 image holding a .symtab of `n` function symbols and
 * its .strtab into img (at most `cap` bytes); returns its size.
 */
static size_t
build_image(uint8_t *img, size_t cap, const struct sym *syms, size_t n)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Shdr sh[3];
	Elf64_Sym s;
	size_t off = sizeof(*eh), symoff, stroff, strlen_ = 1, i;

	memset(img, 0, cap);
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 3;
	symoff = off;
	off += (n + 1) * sizeof(s);
	stroff = off;
	for (i = 0; i < n; i++) {
		memset(&s, 0, sizeof(s));
		s.st_name = (uint32_t)strlen_;
		s.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		s.st_shndx = 1;
		s.st_value = syms[i].value;
		s.st_size = syms[i].size;
		memcpy(img + symoff + (i + 1) * sizeof(s), &s, sizeof(s));
		memcpy(img + stroff + strlen_, syms[i].name,
		       strlen(syms[i].name) + 1);
		strlen_ += strlen(syms[i].name) + 1;
	}
	off = (stroff + strlen_ + 7) & ~(size_t)7;
	memset(sh, 0, sizeof(sh));
	sh[1].sh_type = SHT_SYMTAB;
	sh[1].sh_offset = symoff;
	sh[1].sh_size = (n + 1) * sizeof(s);
	sh[1].sh_entsize = sizeof(s);
	sh[1].sh_link = 2;
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = stroff;
	sh[2].sh_size = strlen_;
	eh->e_shoff = off;
	memcpy(img + off, sh, sizeof(sh));
	ck_assert_uint_le(off + sizeof(sh), cap);
	return off + sizeof(sh);
}

START_TEST(test_funcs_find)
{
	static uint8_t img[4096];
	size_t size = build_image(img, sizeof(img), go_syms,
				  sizeof(go_syms) / sizeof(go_syms[0]));
	struct rec_gofuncs *fs = rec_gofuncs_new(img, size);
	enum rec_gofuncs_kind k;
	uint64_t start, end;

	ck_assert_ptr_nonnull(fs);
	ck_assert(rec_gofuncs_find(fs, 0x1004, &start, &end, &k));
	ck_assert_uint_eq(start, 0x1000);
	ck_assert_int_eq(k, REC_GOFUNC_ROOT);
	ck_assert(rec_gofuncs_find(fs, 0x1130, &start, &end, &k));
	ck_assert_int_eq(k, REC_GOFUNC_SYSTEMSTACK);
	/* systemstack_switch is not systemstack */
	ck_assert(rec_gofuncs_find(fs, 0x1180, &start, &end, &k));
	ck_assert_int_eq(k, REC_GOFUNC_OTHER);
	ck_assert(rec_gofuncs_find(fs, 0x1208, &start, &end, &k));
	ck_assert_int_eq(k, REC_GOFUNC_MORESTACK);
	ck_assert(rec_gofuncs_find(fs, 0x1310, &start, &end, &k));
	ck_assert_int_eq(k, REC_GOFUNC_ROOT);
	ck_assert(rec_gofuncs_find(fs, 0x2050, &start, &end, &k));
	ck_assert_uint_eq(start, 0x2000);
	ck_assert_uint_eq(end, 0x2100);
	ck_assert_int_eq(k, REC_GOFUNC_OTHER);
	ck_assert(!rec_gofuncs_find(fs, 0x0500, &start, &end, &k));
	ck_assert(!rec_gofuncs_find(fs, 0x2200, &start, &end, &k));
	rec_gofuncs_free(fs);
}
END_TEST

START_TEST(test_funcs_not_go)
{
	static uint8_t img[4096];
	size_t size = build_image(img, sizeof(img), go_syms + 4, 2);

	errno = 0;
	ck_assert_ptr_null(rec_gofuncs_new(img, size));
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/* Every cut of the image is refused or read within its bytes (ASan). */
START_TEST(test_funcs_cut)
{
	static uint8_t img[4096];
	size_t size = build_image(img, sizeof(img), go_syms,
				  sizeof(go_syms) / sizeof(go_syms[0]));
	struct rec_gofuncs *fs;
	uint8_t *cut;
	size_t len;

	for (len = 0; len < size; len++) {
		cut = malloc(len ? len : 1);
		ck_assert_ptr_nonnull(cut);
		memcpy(cut, img, len);
		fs = rec_gofuncs_new(cut, len);
		ck_assert_ptr_null(fs);
		ck_assert(errno == EBADMSG || errno == ENOENT);
		free(cut);
	}
}
END_TEST

/*
 * A Go 1.18 .gopclntab of two functions at text 0x401000: runtime.goexit
 * [0x401000, 0x401100) and main.f [0x401100, 0x401180).
 */
static size_t
build_pclntab(uint8_t *t)
{
	uint64_t h[8] = { 2, 0, 0x401000, 0, 0, 0, 0, 0 };
	uint32_t ft[6], fn[2];
	size_t at = 8 + sizeof(h);

	memset(t, 0, 256);
	t[0] = 0xf0, t[1] = 0xff, t[2] = 0xff, t[3] = 0xff;
	t[6] = 1, t[7] = 8;
	h[7] = at; /* pclnOffset: the function table */
	ft[0] = 0, ft[1] = sizeof(ft);
	ft[2] = 0x100, ft[3] = sizeof(ft) + sizeof(fn);
	ft[4] = 0x180, ft[5] = 0;
	memcpy(t + at, ft, sizeof(ft));
	fn[0] = 0, fn[1] = 0; /* entryoff, nameoff */
	memcpy(t + at + sizeof(ft), fn, sizeof(fn));
	fn[0] = 0x100, fn[1] = 15;
	memcpy(t + at + sizeof(ft) + sizeof(fn), fn, sizeof(fn));
	h[3] = at + sizeof(ft) + 2 * sizeof(fn); /* funcnameOffset */
	memcpy(t + h[3], "runtime.goexit\0main.f", 22);
	memcpy(t + 8, h, sizeof(h));
	return h[3] + 22;
}

struct seen {
	uint64_t start[4], end[4];
	char name[4][32];
	size_t n;
};

static int
note(void *arg, uint64_t start, uint64_t end, const char *name, size_t len)
{
	struct seen *s = arg;

	ck_assert_uint_lt(s->n, 4);
	ck_assert_uint_lt(len, 32);
	s->start[s->n] = start;
	s->end[s->n] = end;
	memcpy(s->name[s->n], name, len);
	s->name[s->n++][len] = '\0';
	return 0;
}

START_TEST(test_pclntab)
{
	static uint8_t t[256];
	struct seen s;
	size_t size = build_pclntab(t), len;
	uint64_t at, bad;
	uint8_t *cut;

	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(rec_gopclntab_each(t, size, 0, note, &s), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.start[0], 0x401000);
	ck_assert_uint_eq(s.end[0], 0x401100);
	ck_assert_str_eq(s.name[0], "runtime.goexit");
	ck_assert_uint_eq(s.start[1], 0x401100);
	ck_assert_uint_eq(s.end[1], 0x401180);
	ck_assert_str_eq(s.name[1], "main.f");
	/* every cut is refused or read within its bytes (ASan) */
	for (len = 0; len < size; len++) {
		cut = malloc(len ? len : 1);
		ck_assert_ptr_nonnull(cut);
		memcpy(cut, t, len);
		memset(&s, 0, sizeof(s));
		ck_assert_int_lt(rec_gopclntab_each(cut, len, 0, note, &s), 1);
		free(cut);
	}
	/* a function table that starts 4 bytes before the end */
	memcpy(&at, t + 8 + 7 * 8, sizeof(at));
	bad = size - 4;
	memcpy(t + 8 + 7 * 8, &bad, sizeof(bad));
	cut = malloc(size); /* exactly: ASan sees a read past it */
	ck_assert_ptr_nonnull(cut);
	memcpy(cut, t, size);
	ck_assert_int_eq(rec_gopclntab_each(cut, size, 0, note, &s), -EBADMSG);
	free(cut);
	memcpy(t + 8 + 7 * 8, &at, sizeof(at));
	t[0] = 0xfa; /* Go 1.16's layout: not read */
	ck_assert_int_eq(rec_gopclntab_each(t, size, 0, note, &s), -ENOENT);
}
END_TEST

/* ---------------------------------------------- frames past a switch */

/*
 * The program's code, from 0x1000: goexit, systemstack; main.a calls
 * systemstack, main.c calls main.a, main.d calls main.c directly and
 * something indirectly, main.e calls main.d, main.fn runs on g0.
 */
#define CODE_AT 0x1000u
static uint8_t code[0x2000];

static const struct {
	uint64_t start, end;
	enum rec_gofuncs_kind kind;
} funcs[] = {
	{ 0x1000, 0x1008, REC_GOFUNC_ROOT },
	{ 0x1100, 0x1180, REC_GOFUNC_SYSTEMSTACK },
	{ 0x2000, 0x2100, REC_GOFUNC_OTHER }, /* main.a */
	{ 0x2100, 0x2200, REC_GOFUNC_OTHER }, /* main.c */
	{ 0x2200, 0x2300, REC_GOFUNC_OTHER }, /* main.d */
	{ 0x2400, 0x2500, REC_GOFUNC_OTHER }, /* main.e */
	{ 0x2b00, 0x2c00, REC_GOFUNC_OTHER }, /* main.fn */
};

static void
put_call(uint64_t at, uint64_t target)
{
	int32_t rel = (int32_t)(target - (at + 5));

	code[at - CODE_AT] = 0xe8;
	memcpy(code + at - CODE_AT + 1, &rel, sizeof(rel));
}

static bool
view_func(void *arg, uint64_t pc, uint64_t *start, uint64_t *end,
	  enum rec_gofuncs_kind *kind)
{
	size_t i;

	(void)arg;
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (pc >= funcs[i].start && pc < funcs[i].end) {
			*start = funcs[i].start;
			*end = funcs[i].end;
			*kind = funcs[i].kind;
			return true;
		}
	return false;
}

static int
view_code(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (addr < CODE_AT || addr - CODE_AT > sizeof(code) ||
	    len > sizeof(code) - (addr - CODE_AT))
		return -1;
	memcpy(buf, code + (addr - CODE_AT), len);
	return 0;
}

static bool
view_is_code(void *arg, uint64_t addr)
{
	(void)arg;
	return addr >= CODE_AT && addr < CODE_AT + sizeof(code);
}

static struct sp_htab *cache;
static struct rec_goframes *gf;
static const struct rec_goframes_view view = { NULL, view_func, view_code,
					       view_is_code, &cache };

static void
setup(void)
{
	memset(code, 0x90, sizeof(code));
	put_call(0x2010, 0x1100);      /* main.a: call systemstack */
	put_call(0x2120, 0x2000);      /* main.c: call main.a, ra 0x2125 */
	put_call(0x2230, 0x2100);      /* main.d: call main.c, ra 0x2235 */
	code[0x2240 - CODE_AT] = 0xff; /* main.d: call *%rcx, ra 0x2242 */
	code[0x2241 - CODE_AT] = 0xd1;
	put_call(0x2410, 0x2200); /* main.e: call main.d, ra 0x2415 */
	gf = calloc(1, sizeof(*gf));
	ck_assert_ptr_nonnull(gf);
}

static void
teardown(void)
{
	sp_htab_free(cache);
	cache = NULL;
	free(gf);
}

/*
 * The unwinder stopped at systemstack (pcs: main.fn's leaf, systemstack's
 * call site); `fp` is the kernel's walk; returns what the splice did.
 */
static int
splice(const uint64_t *fp, size_t nfp, uint64_t *pcs, size_t *n)
{
	pcs[0] = 0x2b10;
	pcs[1] = 0x1130;
	*n = 2;
	return rec_goframes_splice(gf, &view, fp, nfp, pcs, n, 16);
}

START_TEST(test_splice_to_goexit)
{
	const uint64_t fp[] = { 0x2b10, 0x1130, 0x2124, 0x2234, 0x1000 };
	uint64_t pcs[16];
	size_t n;

	ck_assert_int_eq(splice(fp, 5, pcs, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_uint_eq(pcs[2], 0x2124);
	ck_assert_uint_eq(pcs[3], 0x2234);
	ck_assert_uint_eq(pcs[4], 0x1000);
	ck_assert_uint_eq(gf->spliced, 1);
}
END_TEST

/* main.c does not call systemstack: it cannot be the switch's caller's. */
START_TEST(test_splice_junction)
{
	const uint64_t fp[] = { 0x2b10, 0x1130, 0x2234, 0x1000 };
	uint64_t pcs[16];
	size_t n;

	ck_assert_int_eq(splice(fp, 4, pcs, &n), -1);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(gf->refused, 1);
}
END_TEST

START_TEST(test_splice_wrong_callee)
{
	/* main.c's call names main.a, not main.c */
	const uint64_t fp[] = { 0x2b10, 0x1130, 0x2124, 0x2124, 0x1000 };
	uint64_t pcs[16];
	size_t n;

	ck_assert_int_eq(splice(fp, 5, pcs, &n), -1);
	ck_assert_uint_eq(n, 2);
}
END_TEST

START_TEST(test_splice_no_root)
{
	const uint64_t fp[] = { 0x2b10, 0x1130, 0x2124, 0x2234 };
	const uint64_t other[] = { 0x2b10, 0x1134, 0x2124, 0x1000 };
	uint64_t pcs[16];
	size_t n;

	ck_assert_int_eq(splice(fp, 4, pcs, &n), -1);
	ck_assert_uint_eq(n, 2);
	/* a walk that does not hold the unwinder's frames is not used */
	ck_assert_int_eq(splice(other, 4, pcs, &n), -1);
	ck_assert_uint_eq(n, 2);
}
END_TEST

/* An indirect call says nothing; a frameless callee may be skipped. */
START_TEST(test_splice_indirect_and_skip)
{
	const uint64_t ind[] = { 0x2b10, 0x1130, 0x2124, 0x2241, 0x1000 };
	const uint64_t skip[] = { 0x2b10, 0x1130, 0x2124, 0x2414, 0x1000 };
	const uint64_t garbage[] = { 0x2b10, 0x1130, 0x2124, 0x9999, 0x1000 };
	uint64_t pcs[16];
	size_t n;

	ck_assert_int_eq(splice(ind, 5, pcs, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(splice(skip, 5, pcs, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(splice(garbage, 5, pcs, &n), -1);
	ck_assert_uint_eq(n, 2);
}
END_TEST

/*
 * A sample in systemstack itself, past its switch to g0: its step fails
 * at the leaf, and the kernel's walk, from main.a's frame, goes on from
 * main.c (main.a, frameless in between as far as the walk goes, is
 * skipped: it calls systemstack).
 */
START_TEST(test_splice_from_the_leaf)
{
	const uint64_t fp[] = { 0x1130, 0x2124, 0x2234, 0x1000 };
	const uint64_t other[] = { 0x1134, 0x2124, 0x2234, 0x1000 };
	uint64_t pcs[16] = { 0x1130 };
	size_t n = 1;

	ck_assert_int_eq(rec_goframes_splice(gf, &view, fp, 4, pcs, &n, 16), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_uint_eq(pcs[1], 0x2124);
	ck_assert_uint_eq(pcs[3], 0x1000);
	/* a walk of another pc is not this sample's */
	n = 1;
	ck_assert_int_eq(rec_goframes_splice(gf, &view, other, 4, pcs, &n, 16),
			 -1);
	ck_assert_uint_eq(n, 1);
}
END_TEST

static Suite *
goframes_suite(void)
{
	Suite *s = suite_create("record_goframes");
	TCase *tf = tcase_create("gofuncs");
	TCase *ts = tcase_create("splice");

	tcase_add_test(tf, test_funcs_find);
	tcase_add_test(tf, test_funcs_not_go);
	tcase_add_test(tf, test_funcs_cut);
	tcase_add_test(tf, test_pclntab);
	suite_add_tcase(s, tf);
	tcase_add_checked_fixture(ts, setup, teardown);
	tcase_add_test(ts, test_splice_to_goexit);
	tcase_add_test(ts, test_splice_from_the_leaf);
	tcase_add_test(ts, test_splice_junction);
	tcase_add_test(ts, test_splice_wrong_callee);
	tcase_add_test(ts, test_splice_no_root);
	tcase_add_test(ts, test_splice_indirect_and_skip);
	suite_add_tcase(s, ts);
	return s;
}

int
main(void)
{
	return ck_run(goframes_suite());
}
