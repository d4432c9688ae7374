/*
 * check_symbolize_dwline.c: sp-symbolize's line-program decoder against
 * libdw on real files: programs compiled at test time (DWARF 2 to 5,
 * 64-bit DWARF, GCC and clang, C and C++, a debug file with compressed
 * sections) and the system's libc debug file and libpython where installed.
 * Every unit's file names and the lines at, before and after every row's
 * address must be libdw's.  Hand-made programs cover the orders libdw
 * sorts (sequences out of order, overlapping, rows at one address) and
 * every truncation of a program.
 */
#include "tests/unit/ck.h"
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdw.h>

#include "sp-symbolize/dwarf/dwline.h"
#include "tests/unit/fixture.h"

static void
build_fixtures(void)
{
	const char *p = programs();

	fixture_mkdir("dwline");
	ck_assert_int_eq(
	    sh("cd %s && cc -O2 -g -o v5 %s/sym_elf.c && cc -O2 -gdwarf-4 "
	       "-o v4 %s/sym_elf.c && cc -O0 -g -o o0 %s/sym_elf.c && cc -O2 "
	       "-g -ffunction-sections -Wl,--gc-sections -o gc %s/rec_chain.c"
	       " -pthread && cc -O2 -g -Wl,--compress-debug-sections=zlib "
	       "-o z %s/sym_elf.c && cc -O2 -gdwarf-2 -o v2 %s/sym_elf.c && cc "
	       "-O2 -g -gdwarf64 -o d64 %s/sym_elf.c",
	       fixture_dir, p, p, p, p, p, p, p),
	    0);
	sh("cd %s && c++ -O2 -g -o cxx %s/sym_cxx.cc 2>/dev/null", fixture_dir,
	   p);
	sh("cd %s && clang -O2 -g -o clang %s/sym_elf.c 2>/dev/null",
	   fixture_dir, p);
	sh("cd %s && clang -O2 -gdwarf-4 -o clang4 %s/sym_elf.c 2>/dev/null",
	   fixture_dir, p);
}

/* The sections as sp-symbolize hands them over: inflated. */
static void
sections(Elf *elf, struct sym_dwsects *s)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;
	GElf_Shdr sh;
	Elf_Data *d;

	memset(s, 0, sizeof(*s));
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		ck_assert_ptr_nonnull(gelf_getshdr(scn, &sh));
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_flags & SHF_COMPRESSED)
			ck_assert_int_eq(elf_compress(scn, 0, 0), 1);
		d = elf_getdata(scn, NULL);
		if (strcmp(name, ".debug_line") == 0) {
			s->line = d->d_buf;
			s->line_len = d->d_size;
		} else if (strcmp(name, ".debug_str") == 0) {
			s->str = d->d_buf;
			s->str_len = d->d_size;
		} else if (strcmp(name, ".debug_line_str") == 0) {
			s->line_str = d->d_buf;
			s->line_str_len = d->d_size;
		}
	}
}

/* One probe: libdw's answer and ours for `a` must agree. */
static void
probe(Dwarf_Die *cu, const struct sym_dwline *l, Dwarf_Addr a)
{
	Dwarf_Line *ln = dwarf_getsrc_die(cu, a);
	const char *file = NULL, *want;
	int line = 0, want_line = 0;
	bool found = sym_dwline_find(l, a, &file, &line);

	ck_assert_msg(found == (ln != NULL),
		      "address %#llx: found %d, libdw %d",
		      (unsigned long long)a, found, ln != NULL);
	if (!ln)
		return;
	want = dwarf_linesrc(ln, NULL, NULL);
	dwarf_lineno(ln, &want_line);
	ck_assert_int_eq(line, want_line);
	ck_assert_msg((!file && !want) || (file && want && !strcmp(file, want)),
		      "address %#llx: file %s, libdw %s", (unsigned long long)a,
		      file ? file : "(null)", want ? want : "(null)");
}

static void
same_files(Dwarf_Die *cu, const struct sym_dwline *l)
{
	Dwarf_Files *files;
	size_t n, i;

	ck_assert_int_eq(dwarf_getsrcfiles(cu, &files, &n), 0);
	for (i = 0; i < n; i++)
		ck_assert_str_eq(sym_dwline_file(l, i),
				 dwarf_filesrc(files, i, NULL, NULL));
	ck_assert_ptr_null(sym_dwline_file(l, n));
}

/*
 * Compares one unit; rows are probed every `stride` (all of them in the
 * programs built here).  Returns the rows probed.
 */
static size_t
same_unit(const struct sym_dwsects *s, Dwarf_Die *cu, size_t stride)
{
	Dwarf_Attribute a;
	Dwarf_Word off;
	Dwarf_Lines *lines;
	Dwarf_Addr addr;
	struct sym_dwline *l;
	uint8_t asize;
	size_t n, i, probed = 0;

	if (dwarf_formudata(dwarf_attr(cu, DW_AT_stmt_list, &a), &off) ||
	    dwarf_getsrclines(cu, &lines, &n))
		return 0;
	ck_assert_int_eq(
	    dwarf_cu_info(cu->cu, NULL, NULL, NULL, NULL, NULL, &asize, NULL),
	    0);
	l = sym_dwline_read(
	    s, off, asize,
	    dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a)));
	ck_assert_msg(l != NULL, "unit at %#llx refused: %s",
		      (unsigned long long)dwarf_dieoffset(cu), strerror(errno));
	same_files(cu, l);
	for (i = 0; i < n;
	     i += i + stride < n || i + 1 == n ? stride : n - 1 - i) {
		dwarf_lineaddr(dwarf_onesrcline(lines, i), &addr);
		probe(cu, l, addr);
		probe(cu, l, addr + 1);
		if (addr)
			probe(cu, l, addr - 1);
		probed++;
	}
	sym_dwline_free(l);
	return probed;
}

/* Compares every unit of `file`; returns the rows probed. */
static size_t
same_as_libdw(const char *file, size_t stride)
{
	struct sym_dwsects s;
	Dwarf_Off off = 0, next;
	size_t hsize, probed = 0;
	Dwarf_Die cu;
	Dwarf *dw;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(file, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	sections(elf, &s);
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	ck_assert_ptr_nonnull(dw);
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu))
			probed += same_unit(&s, &cu, stride);
		off = next;
	}
	dwarf_end(dw);
	elf_end(elf);
	close(fd);
	return probed;
}

static void
check_built(const char *name, bool required)
{
	char *p;

	ck_assert_int_ge(asprintf(&p, "%s/%s", fixture_dir, name), 0);
	if (access(p, R_OK) == 0)
		ck_assert_uint_gt(same_as_libdw(p, 1), 20);
	else
		ck_assert_msg(!required, "%s was not built", p);
	free(p);
}

START_TEST(gcc_dwarf2_to_5)
{
	check_built("v5", true);
	check_built("v4", true);
	check_built("o0", true);
	check_built("z", true);
	check_built("v2", true);
	check_built("d64", true);
}
END_TEST

START_TEST(gc_sections_and_cxx)
{
	check_built("gc", true);
	check_built("cxx", false);
}
END_TEST

START_TEST(clang_dwarf5_and_4)
{
	check_built("clang", false);
	check_built("clang4", false);
}
END_TEST

/* Large real files, sampled: libc's debug file, libpython. */
START_TEST(system_libraries)
{
	FILE *f = popen("id=$(readelf -n /lib/x86_64-linux-gnu/libc.so.6 "
			"2>/dev/null | sed -n 's/.*Build ID: //p'); "
			"d=/usr/lib/debug/.build-id/$(echo $id | cut -c1-2)/"
			"$(echo $id | cut -c3-).debug; [ -r \"$d\" ] && "
			"echo $d; ls /root/.pyenv/versions/3.11*/lib/"
			"libpython3.11.so.1.0 2>/dev/null | head -1",
			"r");
	char line[4096];

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		ck_assert_uint_gt(same_as_libdw(line, 97), 100);
	}
	pclose(f);
}
END_TEST

/* A hand-made version 4 unit: header, then `prog`. */
struct mk {
	uint8_t b[512];
	size_t n;
};

static void
put(struct mk *m, const void *p, size_t n)
{
	ck_assert_uint_le(m->n + n, sizeof(m->b));
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void
put8(struct mk *m, uint8_t v)
{
	put(m, &v, 1);
}

static void
set_addr(struct mk *m, uint64_t a)
{
	put8(m, 0);
	put8(m, 9);
	put8(m, DW_LNE_set_address);
	put(m, &a, 8);
}

static void
end_seq(struct mk *m)
{
	put8(m, 0);
	put8(m, 1);
	put8(m, DW_LNE_end_sequence);
}

/* Rows via DW_LNS_advance_line, DW_LNS_copy, DW_LNS_advance_pc. */
static void
row(struct mk *m, int8_t dline, uint8_t dpc)
{
	put8(m, DW_LNS_advance_line);
	put8(m, (uint8_t)dline & 0x7f);
	put8(m, DW_LNS_copy);
	put8(m, DW_LNS_advance_pc);
	put8(m, dpc);
}

static void
unit_v4(struct mk *m, const struct mk *prog)
{
	static const uint8_t std[] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
	static const char tables[] = "inc\0\0a.c\0\0\0\0/abs/b.h\0\1\0\0\0";
	uint32_t hlen = 6 + sizeof(std) + sizeof(tables) - 1;
	uint32_t len = 2 + 4 + hlen + (uint32_t)prog->n;
	uint16_t ver = 4;

	m->n = 0;
	put(m, &len, 4);
	put(m, &ver, 2);
	put(m, &hlen, 4);
	put8(m, 1);  /* min_inst */
	put8(m, 1);  /* max_ops */
	put8(m, 1);  /* default_is_stmt */
	put8(m, -5); /* line_base */
	put8(m, 14); /* line_range */
	put8(m, 13); /* opcode_base */
	put(m, std, sizeof(std));
	put(m, tables, sizeof(tables) - 1);
	put(m, prog->b, prog->n);
}

static struct sym_dwline *
read_unit(const struct mk *m)
{
	struct sym_dwsects s = { .line = m->b, .line_len = m->n };

	return sym_dwline_read(&s, 0, 8, "/cu");
}

/* The version 4 unit of `prog`, which must be read. */
static struct sym_dwline *
read_prog(const struct mk *prog)
{
	struct sym_dwline *l;
	struct mk m;

	unit_v4(&m, prog);
	l = read_unit(&m);
	ck_assert_ptr_nonnull(l);
	return l;
}

static void
expect(const struct sym_dwline *l, uint64_t a, const char *file, int line)
{
	const char *f = NULL;
	int n = 0;

	if (!file) {
		ck_assert_msg(!sym_dwline_find(l, a, &f, &n),
			      "%#llx: found line %d", (unsigned long long)a, n);
		return;
	}
	ck_assert_msg(sym_dwline_find(l, a, &f, &n), "%#llx: not found",
		      (unsigned long long)a);
	ck_assert_str_eq(f, file);
	ck_assert_int_eq(n, line);
}

START_TEST(files_of_a_version_4_unit)
{
	struct mk prog = { .n = 0 };
	struct sym_dwline *l;

	end_seq(&prog);
	l = read_prog(&prog);
	ck_assert_str_eq(sym_dwline_file(l, 0), "???");
	ck_assert_str_eq(sym_dwline_file(l, 1), "/cu/a.c");
	ck_assert_str_eq(sym_dwline_file(l, 2), "/abs/b.h");
	ck_assert_ptr_null(sym_dwline_file(l, 3));
	sym_dwline_free(l);
}
END_TEST

/* Sequences written high address first come out in address order. */
START_TEST(sequences_out_of_order)
{
	struct mk prog = { .n = 0 };
	struct sym_dwline *l;

	set_addr(&prog, 0x2000);
	row(&prog, 9, 0x10); /* 0x2000: line 10 */
	row(&prog, 1, 0x10); /* 0x2010: line 11 */
	end_seq(&prog);      /* 0x2020 */
	set_addr(&prog, 0x1000);
	row(&prog, 19, 0x10); /* 0x1000: line 20 */
	row(&prog, 1, 0x10);  /* 0x1010: line 21 */
	end_seq(&prog);       /* 0x1020 */
	l = read_prog(&prog);
	expect(l, 0xfff, NULL, 0);
	expect(l, 0x1000, "/cu/a.c", 20);
	expect(l, 0x100f, "/cu/a.c", 20);
	expect(l, 0x101f, "/cu/a.c", 21);
	expect(l, 0x1020, NULL, 0);
	expect(l, 0x1fff, NULL, 0);
	expect(l, 0x2000, "/cu/a.c", 10);
	expect(l, 0x201f, "/cu/a.c", 11);
	expect(l, 0x2020, NULL, 0);
	sym_dwline_free(l);
}
END_TEST

/*
 * Overlapping sequences (what linkers leave of discarded code) are
 * sorted row by row as libdw sorts them: at one address a sequence's
 * end comes before a row, so the row answers.
 */
START_TEST(overlapping_sequences)
{
	struct mk prog = { .n = 0 };
	struct sym_dwline *l;

	set_addr(&prog, 0x1010);
	row(&prog, 9, 0x10); /* 0x1010: line 10 */
	end_seq(&prog);      /* 0x1020 */
	set_addr(&prog, 0x1000);
	row(&prog, 19, 0x20); /* 0x1000: line 20 */
	row(&prog, 1, 0x10);  /* 0x1020: line 21 */
	end_seq(&prog);       /* 0x1030 */
	l = read_prog(&prog);
	expect(l, 0x1000, "/cu/a.c", 20);
	expect(l, 0x1015, "/cu/a.c", 10);
	expect(l, 0x1020, "/cu/a.c", 21);
	expect(l, 0x102f, "/cu/a.c", 21);
	expect(l, 0x1030, NULL, 0);
	sym_dwline_free(l);
}
END_TEST

/*
 * A sequence that ends at the address of its last row: libdw sorts the
 * end first, so that row covers everything up to the next sequence.
 */
START_TEST(end_at_a_row_address)
{
	struct mk prog = { .n = 0 };
	struct sym_dwline *l;

	set_addr(&prog, 0x500);
	row(&prog, 4, 0x10); /* 0x500: line 5 */
	row(&prog, 1, 0);    /* 0x510: line 6 */
	end_seq(&prog);      /* 0x510 */
	set_addr(&prog, 0x600);
	row(&prog, 8, 0x10); /* 0x600: line 9 */
	end_seq(&prog);      /* 0x610 */
	l = read_prog(&prog);
	expect(l, 0x50f, "/cu/a.c", 5);
	expect(l, 0x510, "/cu/a.c", 6);
	expect(l, 0x5ff, "/cu/a.c", 6);
	expect(l, 0x600, "/cu/a.c", 9);
	expect(l, 0x610, NULL, 0);
	sym_dwline_free(l);
}
END_TEST

/* A program that never ends its sequence: its last row ends it. */
START_TEST(unended_program)
{
	struct mk prog = { .n = 0 };
	struct sym_dwline *l;

	set_addr(&prog, 0x3000);
	row(&prog, 4, 0x10); /* 0x3000: line 5 */
	row(&prog, 1, 0);    /* 0x3010: line 6, the end */
	l = read_prog(&prog);
	expect(l, 0x300f, "/cu/a.c", 5);
	expect(l, 0x3010, NULL, 0);
	sym_dwline_free(l);
}
END_TEST

/* Two rows at one address: the one written last answers. */
START_TEST(rows_at_one_address)
{
	struct mk prog = { .n = 0 };
	struct sym_dwline *l;

	set_addr(&prog, 0x400);
	row(&prog, 4, 0);   /* 0x400: line 5 */
	row(&prog, 2, 0x8); /* 0x400: line 7 */
	end_seq(&prog);     /* 0x408 */
	l = read_prog(&prog);
	expect(l, 0x400, "/cu/a.c", 7);
	expect(l, 0x407, "/cu/a.c", 7);
	expect(l, 0x408, NULL, 0);
	sym_dwline_free(l);
}
END_TEST

/*
 * Every cut of a unit, with its length left as it was (refused at
 * once) or made to fit the cut (refused or read up to the cut): in
 * an exact-size copy, so that a read past it fails under ASan.
 */
START_TEST(every_truncation)
{
	struct mk prog = { .n = 0 }, m;
	struct sym_dwline *l;
	uint8_t *copy;
	uint32_t len;
	size_t cut;
	int fix;

	set_addr(&prog, 0x2000);
	row(&prog, 9, 0x10);
	end_seq(&prog);
	unit_v4(&m, &prog);
	for (fix = 0; fix < 2; fix++) {
		for (cut = 0; cut < m.n; cut++) {
			struct sym_dwsects s = { 0 };

			copy = malloc(cut ? cut : 1);
			memcpy(copy, m.b, cut);
			if (fix && cut >= 4) {
				len = (uint32_t)cut - 4;
				memcpy(copy, &len, 4);
			}
			s.line = copy;
			s.line_len = cut;
			errno = 0;
			l = sym_dwline_read(&s, 0, 8, "/cu");
			if (!fix || cut < 4)
				ck_assert_ptr_null(l);
			ck_assert(l || errno == EBADMSG || errno == ENOTSUP);
			sym_dwline_free(l);
			free(copy);
		}
	}
	l = read_unit(&m);
	ck_assert_ptr_nonnull(l);
	expect(l, 0x2000, "/cu/a.c", 10);
	sym_dwline_free(l);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("symbolize_dwline");
	TCase *t = tcase_create("against libdw");
	TCase *h = tcase_create("hand-made units");

	tcase_add_unchecked_fixture(t, build_fixtures, fixture_remove);
	tcase_set_timeout(t, 120);
	tcase_add_test(t, gcc_dwarf2_to_5);
	tcase_add_test(t, gc_sections_and_cxx);
	tcase_add_test(t, clang_dwarf5_and_4);
	tcase_add_test(t, system_libraries);
	suite_add_tcase(s, t);
	tcase_add_test(h, files_of_a_version_4_unit);
	tcase_add_test(h, sequences_out_of_order);
	tcase_add_test(h, overlapping_sequences);
	tcase_add_test(h, unended_program);
	tcase_add_test(h, end_at_a_row_address);
	tcase_add_test(h, rows_at_one_address);
	tcase_add_test(h, every_truncation);
	suite_add_tcase(s, h);
	return s;
}

int
main(void)
{
	SRunner *r = srunner_create(suite());
	int failed;

	srunner_run_all(r, CK_NORMAL);
	failed = srunner_ntests_failed(r);
	srunner_free(r);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
