/*
 * check_symbolize_elf.c: sp-symbolize's ELF images on files compiled at
 * test time from tests/programs/sym_elf.c and sym_cxx.cc: PIE, non-PIE,
 * shared object, C++, stripped files with a separate debug file found by
 * build id or by debuglink, MiniDebugInfo, and broken files.  Names and
 * source lines are checked against addr2line -C -f -i on the same
 * addresses.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp-symbolize/image/image.h"
#include "sp-symbolize/out/symres.h"
#include "tests/unit/fixture.h"

static bool have_cxx;
static bool have_clang;
static bool have_x86; /* the fixtures written in x86-64 assembly */

/*
 * nm with its target named: otherwise it loads every linker plugin first
 * (LLVM's gold plugin where clang is installed: 90 ms a run, 50 runs).
 */
#ifdef __x86_64__
#define NM "nm --target=elf64-x86-64"
#else
#define NM "nm"
#endif

/* Builds every fixture once, before the tests fork. */
static void
build_fixtures(void)
{
	const char *p = programs();

	fixture_mkdir("symelf");
	ck_assert_int_eq(sh("cd %s && cc -O2 -g -fPIE -pie -o pie %s/sym_elf.c"
			    " && cc -O2 -g -fno-pie -no-pie -o nopie "
			    "%s/sym_elf.c && cc -O2 -g -fPIC -shared -DSYM_LIB"
			    " -o libsym.so %s/sym_elf.c",
			    fixture_dir, p, p, p),
			 0);
	have_cxx = sh("cd %s && c++ -O2 -g -o cxx %s/sym_cxx.cc 2>/dev/null",
		      fixture_dir, p) == 0;
	/* clang writes no .debug_aranges. */
	have_clang = sh("cd %s && clang -O2 -g -o clang %s/sym_elf.c "
			"2>/dev/null",
			fixture_dir, p) == 0;
	/* Aliases, a BOLT fragment, a return to a function's first byte. */
	have_x86 = sh("cd %s && uname -m | grep -qx x86_64 && cc -O1 -g "
		      "-fPIC -shared -o libalias.so %s/sym_aliases.c && cc "
		      "-O0 -g -o retstart %s/sym_retstart.c",
		      fixture_dir, p, p) == 0;
	/* Lazy binding keeps a PLT stub per imported function. */
	ck_assert_int_eq(sh("cd %s && cc -O2 -g -Wl,-z,lazy -o spin "
			    "%s/sym_spin.c",
			    fixture_dir, p),
			 0);
	/* Stripped, debug file under DIR/dbg/.build-id/. */
	ck_assert_int_eq(sh("cd %s && cp pie sbid && id=$(readelf -n sbid | "
			    "sed -n 's/.*Build ID: //p') && mkdir -p "
			    "dbg/.build-id/$(echo $id | cut -c1-2) && objcopy "
			    "--only-keep-debug sbid dbg/.build-id/$(echo $id | "
			    "cut -c1-2)/$(echo $id | cut -c3-).debug && strip "
			    "--strip-all sbid",
			    fixture_dir),
			 0);
	/* Stripped, no build id, debug file by .gnu_debuglink. */
	ck_assert_int_eq(sh("cd %s && cc -O2 -g -Wl,--build-id=none -o slink "
			    "%s/sym_elf.c && objcopy --only-keep-debug slink "
			    "slink.debug && strip --strip-all slink && objcopy "
			    "--add-gnu-debuglink=slink.debug slink",
			    fixture_dir, p),
			 0);
	/* Stripped with MiniDebugInfo, as gdb's manual builds it. */
	ck_assert_int_eq(
	    sh("cd %s && cp pie mini && " NM " -D mini --format=posix "
	       "--defined-only | awk '{print $1}' | sort > dyn && " NM
	       " mini --format=posix --defined-only | awk "
	       "'$2 ~ /[Tt]/ {print $1}' | sort > funcs && comm "
	       "-13 dyn funcs > keep && objcopy --only-keep-debug "
	       "mini mdi && objcopy -S --remove-section .gdb_index "
	       "--remove-section .comment --keep-symbols=keep mdi "
	       "&& xz -f mdi && strip --strip-all mini && objcopy "
	       "--add-section .gnu_debugdata=mdi.xz mini",
	       fixture_dir),
	    0);
}

/* The address of symbol `sym` per nm, 0 when absent; size in *size. */
static uint64_t
nm_addr(const char *file, const char *sym, uint64_t *size)
{
	char *cmd, line[512], name[256], type;
	unsigned long long a, s;
	uint64_t found = 0;
	FILE *f;

	ck_assert_int_ge(asprintf(&cmd, NM " -S %s", file), 0);
	f = popen(cmd, "r");
	free(cmd);
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		s = 0;
		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &type, name) !=
			4 &&
		    sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		if (strcmp(name, sym) == 0) {
			found = a;
			if (size)
				*size = s;
		}
	}
	pclose(f);
	return found;
}

/* The file offset of `vaddr` in `file`, through its PT_LOAD segments. */
static uint64_t
file_offset(const char *file, uint64_t vaddr)
{
	int fd = open(file, O_RDONLY);
	Elf *e;
	size_t i, n;
	uint64_t off = UINT64_MAX;

	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(elf_getphdrnum(e, &n), 0);
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		gelf_getphdr(e, (int)i, &ph);
		if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
		    vaddr < ph.p_vaddr + ph.p_filesz)
			off = vaddr - ph.p_vaddr + ph.p_offset;
	}
	elf_end(e);
	close(fd);
	ck_assert_uint_ne(off, UINT64_MAX);
	return off;
}

static const char *
base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static struct sym_image *
open_image(const char *file, bool inlines, bool demangle)
{
	static char dbg[4096], *dirs[1] = { dbg };
	struct sym_symopts o = {
		demangle, inlines, dirs, 1, false, false, true
	};
	struct sp_buf why = SP_BUF_INIT;
	struct sym_image *img;

	snprintf(dbg, sizeof(dbg), "%s/dbg", fixture_dir);
	img = sym_image_open(file, &o, &why);
	ck_assert_msg(img != NULL, "%s: %s", file, (char *)why.data);
	sp_buf_release(&why);
	return img;
}

/*
 * addr2line as a server: one process per oracle file, reading addresses
 * on stdin (it flushes each answer), so that it parses the file's DWARF
 * once, not for each of the ~230 addresses checked.  -a heads every
 * answer with its address: an answer ends where the sentinel's head (the
 * address 0, which names nothing) begins.
 */
#define A2L_SENTINEL "0x0000000000000000"
static struct {
	char file[4096];
	FILE *in, *out;
} a2l;

static void
a2l_open(const char *file)
{
	int to[2], from[2];
	pid_t pid;

	if (a2l.in && !strcmp(a2l.file, file))
		return;
	if (a2l.in) {
		fclose(a2l.in);
		fclose(a2l.out);
	}
	ck_assert_int_eq(pipe(to), 0);
	ck_assert_int_eq(pipe(from), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
		execlp("addr2line", "addr2line", "-a", "-C", "-f", "-i", "-e",
		       file, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	a2l.in = fdopen(to[1], "w");
	a2l.out = fdopen(from[0], "r");
	ck_assert(a2l.in && a2l.out);
	snprintf(a2l.file, sizeof(a2l.file), "%s", file);
}

/* Reads addr2line's frames of `vaddr`, innermost first. */
static size_t
addr2line(const char *file, uint64_t vaddr, char names[][600], char srcs[][600],
	  size_t max)
{
	char line[512];
	size_t n = 0;

	a2l_open(file);
	fprintf(a2l.in, "0x%" PRIx64 "\n0\n", vaddr);
	ck_assert_int_eq(fflush(a2l.in), 0);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), a2l.out)); /* head */
	while (fgets(line, sizeof(line), a2l.out)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, A2L_SENTINEL))
			break;
		if (n < max)
			snprintf(names[n], 600, "%s", line);
		ck_assert_ptr_nonnull(fgets(line, sizeof(line), a2l.out));
		line[strcspn(line, " \n")] = '\0';
		/* addr2line writes line 0 (no line) as "?". */
		if (strlen(line) > 2 && !strcmp(line + strlen(line) - 2, ":?"))
			line[strlen(line) - 1] = '0';
		if (n < max)
			snprintf(srcs[n++], 600, "%s", base(line));
	}
	/* The sentinel's own answer: a name and a place, both unknown. */
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), a2l.out));
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), a2l.out));
	return n;
}

/*
 * Checks the frames of `vaddr` in `file` against addr2line on `oracle`
 * (the unstripped build); returns the number of frames.
 */
static size_t
check_addr(struct sym_image *img, const char *file, const char *oracle,
	   uint64_t vaddr)
{
	struct sym_res r = SYM_RES_INIT;
	char names[8][600], srcs[8][600], mine[700];
	size_t i, n = addr2line(oracle, vaddr, names, srcs, 8);

	ck_assert_int_eq(sym_image_resolve(img, file_offset(file, vaddr), &r),
			 (int)n);
	for (i = 0; i < n; i++) {
		const struct sym_entry *s = &r.v[n - 1 - i];

		ck_assert_str_eq(s->name, names[i]);
		snprintf(mine, sizeof(mine), "%s:%u",
			 s->file ? base(s->file) : "??", s->line);
		ck_assert_str_eq(mine, srcs[i]);
		ck_assert_int_eq(!!(s->flags & SP_SYM_INLINED), i + 1 < n);
	}
	sym_res_release(&r);
	return n;
}

/* Checks every address of `sym`; returns the deepest chain seen. */
static size_t
check_function(struct sym_image *img, const char *file, const char *oracle,
	       const char *sym)
{
	uint64_t size = 0, a = nm_addr(oracle, sym, &size), off;
	size_t deepest = 0, n;

	ck_assert_msg(a != 0, "%s not in %s", sym, oracle);
	for (off = 0; off < size; off += 3) {
		n = check_addr(img, file, oracle, a + off);
		if (n > deepest)
			deepest = n;
	}
	return deepest;
}

static void
check_sym_elf(const char *name, const char *oracle_name)
{
	char file[4096], oracle[4096];
	struct sym_image *img;

	snprintf(file, sizeof(file), "%s", fixture_path(name));
	snprintf(oracle, sizeof(oracle), "%s", fixture_path(oracle_name));
	img = open_image(file, true, true);
	check_function(img, file, oracle, "sym_leaf");
	check_function(img, file, oracle, "sym_local");
	check_function(img, file, oracle, "sym_work");
	check_function(img, file, oracle, "sym_tail");
	ck_assert_uint_eq(check_function(img, file, oracle, "sym_outer"), 2);
	sym_image_free(img);
}

START_TEST(pie_names_lines_and_inlines)
{
	check_sym_elf("pie", "pie");
}
END_TEST

START_TEST(non_pie_names_lines_and_inlines)
{
	check_sym_elf("nopie", "nopie");
}
END_TEST

START_TEST(shared_object_names_lines_and_inlines)
{
	check_sym_elf("libsym.so", "libsym.so");
}
END_TEST

START_TEST(clang_build_without_aranges)
{
	if (have_clang)
		check_sym_elf("clang", "clang");
}
END_TEST

START_TEST(function_offsets_and_caching)
{
	struct sym_image *img = open_image(fixture_path("pie"), true, true);
	uint64_t a = nm_addr(fixture_path("pie"), "sym_work", NULL);
	uint64_t off = file_offset(fixture_path("pie"), a + 5);
	struct sym_res r = SYM_RES_INIT;

	ck_assert_int_ge(sym_image_resolve(img, off, &r), 1);
	ck_assert_str_eq(r.v[0].name, "sym_work");
	ck_assert(r.v[0].has_offset);
	ck_assert_uint_eq(r.v[0].offset, 5);
	ck_assert_int_ge(sym_image_resolve(img, off, &r), 1);
	ck_assert_uint_eq(sym_image_cached(img), 1);
	sym_res_release(&r);
	/* Outside every PT_LOAD: nothing. */
	ck_assert_int_eq(sym_image_resolve(img, 0x7fffffff, &r), 0);
	sym_image_free(img);
}
END_TEST

START_TEST(no_inline_keeps_one_frame)
{
	struct sym_image *img = open_image(fixture_path("pie"), false, true);
	uint64_t size, a = nm_addr(fixture_path("pie"), "sym_outer", &size), o;
	struct sym_res r = SYM_RES_INIT;

	for (o = 0; o < size; o++) {
		ck_assert_int_eq(
		    sym_image_resolve(
			img, file_offset(fixture_path("pie"), a + o), &r),
		    1);
		ck_assert_str_eq(r.v[0].name, "sym_outer");
		ck_assert_uint_eq(r.v[0].flags, 0);
		sym_res_release(&r);
	}
	sym_image_free(img);
}
END_TEST

static const char *
name_at(struct sym_image *img, const char *file, const char *oracle,
	const char *sym, struct sym_res *r)
{
	uint64_t a = nm_addr(oracle, sym, NULL);

	sym_res_release(r);
	ck_assert_msg(a != 0, "%s not in %s", sym, oracle);
	if (sym_image_resolve(img, file_offset(file, a + 1), r) < 1)
		return NULL;
	return r->v[0].name;
}

START_TEST(cxx_names_are_demangled)
{
	struct sym_image *img;
	struct sym_res r = SYM_RES_INIT;
	const char *f;

	if (!have_cxx)
		return; /* no C++ compiler: nothing to demangle */
	f = fixture_path("cxx");
	img = open_image(f, true, true);
	ck_assert_str_eq(name_at(img, f, f, "_ZN3sym6Widget4spinEi", &r),
			 "sym::Widget::spin(int)");
	ck_assert_str_eq(name_at(img, f, f, "_ZN3sym5twiceIlEET_S1_", &r),
			 "sym::twice<long>(long)");
	ck_assert_str_eq(name_at(img, f, f, "_ZN3sym3runEi", &r),
			 "sym::run(int)");
	check_function(img, f, f, "_ZN3sym3runEi");
	sym_image_free(img);
	img = open_image(f, true, false);
	ck_assert_str_eq(name_at(img, f, f, "_ZN3sym6Widget4spinEi", &r),
			 "_ZN3sym6Widget4spinEi");
	sym_res_release(&r);
	sym_image_free(img);
}
END_TEST

START_TEST(rust_names_are_demangled)
{
	struct sym_image *img;
	struct sym_res r = SYM_RES_INIT;
	char f[4096];

	snprintf(f, sizeof(f), "%s", fixture_path("pie"));
	img = open_image(f, true, true);
	ck_assert_str_eq(
	    name_at(img, f, f, "_ZN7symrust4work17h0123456789abcdefE", &r),
	    "symrust::work");
	ck_assert_str_eq(name_at(img, f, f, "_RNvCs1234_7symrust5spawn", &r),
			 "symrust::spawn");
	sym_res_release(&r);
	sym_image_free(img);
}
END_TEST

/* The address of section `name` per readelf, 0 when absent. */
static uint64_t
section_addr(const char *file, const char *name)
{
	char *cmd, line[512];
	unsigned long long a = 0;
	FILE *f;

	ck_assert_int_ge(
	    asprintf(&cmd,
		     "readelf -SW %s | sed -n "
		     "'s/.* %s  *[A-Z]*  *\\([0-9a-f]*\\) .*/\\1/p'",
		     file, name),
	    0);
	f = popen(cmd, "r");
	free(cmd);
	ck_assert_ptr_nonnull(f);
	if (fgets(line, sizeof(line), f))
		sscanf(line, "%llx", &a);
	pclose(f);
	return a;
}

START_TEST(labels_and_sizeless_symbols)
{
	struct sym_image *img;
	struct sym_res r = SYM_RES_INIT;
	char f[4096];
	uint64_t plt;

	snprintf(f, sizeof(f), "%s", fixture_path("pie"));
	img = open_image(f, true, true);
	ck_assert_str_eq(name_at(img, f, f, "sym_asm_label", &r),
			 "sym_asm_label");
	/* _init has no size: it must not swallow the PLT after it. */
	plt = section_addr(f, ".plt");
	ck_assert_uint_ne(plt, 0);
	sym_res_release(&r);
	if (sym_image_resolve(img, file_offset(f, plt + 4), &r) > 0)
		ck_assert_str_ne(r.v[0].name, "_init");
	sym_res_release(&r);
	sym_image_free(img);
	/* PLT stubs are named after their function, as perf does. */
	snprintf(f, sizeof(f), "%s", fixture_path("spin"));
	img = open_image(f, true, true);
	plt = section_addr(f, ".plt");
	ck_assert_int_eq(sym_image_resolve(img, file_offset(f, plt + 20), &r),
			 1);
	ck_assert_str_eq(r.v[0].name, "clock_gettime@plt");
	ck_assert_uint_eq(r.v[0].offset, 4);
	sym_res_release(&r);
	sym_image_free(img);
}
END_TEST

/* Opens `file` with DWARF (or, with `names_only`, ELF symbols only). */
static struct sym_image *
open_names(const char *file, bool names_only)
{
	struct sym_symopts o = { true, true, NULL, 0, names_only, false, true };
	struct sym_image *img = sym_image_open(file, &o, NULL);

	ck_assert_msg(img != NULL, "%s", file);
	return img;
}

/* The outermost name at the address of `sym` + `delta`, or NULL. */
static const char *
name_near(struct sym_image *img, const char *file, const char *sym, int delta,
	  struct sym_res *r)
{
	uint64_t a = nm_addr(file, sym, NULL);

	sym_res_release(r);
	ck_assert_msg(a != 0, "%s not in %s", sym, file);
	if (sym_image_resolve(img, file_offset(file, a + delta), r) < 1)
		return NULL;
	return r->v[0].name;
}

START_TEST(aliases_show_the_known_name)
{
	static const char *const cases[][2] = {
		{ "__GI___libc_work", "work" },          { "_IO_emit", "emit" },
		{ "__start_main_impl", "__start_main" }, { "tie_b", "tie_a" },
		{ "split_fn.warm", "split_fn" },
	};
	struct sym_res r = SYM_RES_INIT;
	struct sym_image *img;
	char f[4096];
	size_t i;
	int k;

	if (!have_x86)
		return; /* the fixture is x86-64 assembly */
	snprintf(f, sizeof(f), "%s", fixture_path("libalias.so"));
	/* The same name from the symbol table alone and with DWARF. */
	for (k = 0; k < 2; k++) {
		img = open_names(f, k == 0);
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			const char *got = name_near(img, f, cases[i][0], 0, &r);

			ck_assert_msg(got && strcmp(got, cases[i][1]) == 0,
				      "%s: %s, want %s (%s)", cases[i][0],
				      got ? got : "nothing", cases[i][1],
				      k == 0 ? "symbols" : "DWARF");
		}
		sym_image_free(img);
	}
	sym_res_release(&r);
}
END_TEST

START_TEST(call_site_in_padding_takes_the_next_function)
{
	struct sym_res r = SYM_RES_INIT;
	struct sym_image *img;
	const char *got;
	char f[4096];

	if (!have_x86)
		return;
	snprintf(f, sizeof(f), "%s", fixture_path("retstart"));
	img = open_names(f, false);
	/* ret_resume - 1 is int3 padding: the call returned to its start. */
	got = name_near(img, f, "ret_resume", -1, &r);
	ck_assert_str_eq(got ? got : "nothing", "ret_resume");
	ck_assert_uint_eq(r.v[0].offset, 0);
	/* Two bytes before, the next byte is padding too: no name. */
	ck_assert_ptr_null(name_near(img, f, "ret_resume", -2, &r));
	sym_res_release(&r);
	sym_image_free(img);
}
END_TEST

START_TEST(stripped_with_debug_file_by_build_id)
{
	char file[4096];
	struct sym_image *img;

	snprintf(file, sizeof(file), "%s", fixture_path("sbid"));
	img = open_image(file, true, true);
	check_function(img, file, fixture_path("pie"), "sym_local");
	ck_assert_uint_eq(
	    check_function(img, file, fixture_path("pie"), "sym_outer"), 2);
	ck_assert_ptr_nonnull(sym_image_buildid(img));
	sym_image_free(img);
}
END_TEST

START_TEST(stripped_with_debug_file_by_debuglink)
{
	char file[4096];
	struct sym_image *img;

	/* slink.debug sits next to slink. */
	snprintf(file, sizeof(file), "%s", fixture_path("slink"));
	img = open_image(file, true, true);
	check_function(img, file, fixture_path("slink.debug"), "sym_local");
	ck_assert_ptr_null(sym_image_buildid(img));
	sym_image_free(img);
}
END_TEST

/*
 * A copy of the module file (code, .symtab, no DWARF) kept where its
 * debug file would be, in the first debug root, gives way to the real
 * debug file in the next: the inline frames come from its DWARF.
 */
START_TEST(module_copy_does_not_hide_the_debug_file)
{
	static char copy[4096], dbg[4096];
	char file[4096], *dirs[2] = { copy, dbg };
	struct sym_symopts o = { true, true, dirs, 2, false, false, true };
	struct sym_image *img;

	snprintf(copy, sizeof(copy), "%s/copy", fixture_dir);
	snprintf(dbg, sizeof(dbg), "%s/dbg", fixture_dir);
	ck_assert_int_eq(sh("cd %s && id=$(readelf -n sbid | sed -n 's/.*Build "
			    "ID: //p') && d=copy/.build-id/$(echo $id | cut "
			    "-c1-2) && mkdir -p $d && strip -g -o $d/$(echo "
			    "$id | cut -c3-).debug pie",
			    fixture_dir),
			 0);
	snprintf(file, sizeof(file), "%s", fixture_path("sbid"));
	img = sym_image_open(file, &o, NULL);
	ck_assert_ptr_nonnull(img);
	ck_assert_uint_eq(
	    check_function(img, file, fixture_path("pie"), "sym_outer"), 2);
	sym_image_free(img);
}
END_TEST

START_TEST(debug_file_with_another_build_id_is_not_used)
{
	char id[128], sub[8], *dbg;
	FILE *f;
	struct sym_image *img;
	struct sym_res r = SYM_RES_INIT;
	struct sym_symopts o = { true, true, NULL, 0, false, false, true };
	char *dirs[1];

	/* Replace sbid's debug file by the non-PIE one's. */
	ck_assert_int_ge(asprintf(&dbg,
				  "readelf -n %s | sed -n "
				  "'s/.*Build ID: //p'",
				  fixture_path("sbid")),
			 0);
	f = popen(dbg, "r");
	free(dbg);
	ck_assert_ptr_nonnull(fgets(id, sizeof(id), f));
	pclose(f);
	id[strcspn(id, "\n")] = '\0';
	snprintf(sub, sizeof(sub), "%.2s", id);
	ck_assert_int_eq(sh("cd %s && mkdir -p bad/.build-id/%s && objcopy "
			    "--only-keep-debug nopie bad/.build-id/%s/%s.debug",
			    fixture_dir, sub, sub, id + 2),
			 0);
	dirs[0] = fixture_path("bad");
	o.debug_dirs = dirs;
	o.ndebug_dirs = 1;
	img = sym_image_open(fixture_path("sbid"), &o, NULL);
	/* Only .dynsym is left, which has no sym_local. */
	if (img) {
		uint64_t a = nm_addr(fixture_path("pie"), "sym_local", NULL);

		ck_assert_int_eq(
		    sym_image_resolve(
			img, file_offset(fixture_path("pie"), a + 1), &r),
		    0);
		sym_image_free(img);
	}
}
END_TEST

START_TEST(minidebuginfo_gives_local_functions)
{
	char mini[4096], pie[4096];
	struct sym_symopts o = { true, true, NULL, 0, false, false, true };
	struct sym_image *img;
	struct sym_res r = SYM_RES_INIT;

	/* No debug roots: mini has pie's build id, whose debug file is in
	 * the fixtures' dbg/. */
	snprintf(mini, sizeof(mini), "%s", fixture_path("mini"));
	snprintf(pie, sizeof(pie), "%s", fixture_path("pie"));
	img = sym_image_open(mini, &o, NULL);
	ck_assert_ptr_nonnull(img);
	ck_assert_str_eq(name_at(img, mini, pie, "sym_local", &r), "sym_local");
	ck_assert_ptr_null(r.v[0].file);
	ck_assert_str_eq(name_at(img, mini, pie, "sym_outer", &r), "sym_outer");
	sym_res_release(&r);
	sym_image_free(img);
}
END_TEST

START_TEST(broken_files_fail_cleanly)
{
	struct sym_symopts o = { true, true, NULL, 0, false, false, true };
	struct sp_buf why = SP_BUF_INIT;

	ck_assert_ptr_null(sym_image_open(fixture_path("missing"), &o, &why));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_str_eq((char *)why.data, "No such file or directory");
	sp_buf_reset(&why);
	ck_assert_int_eq(
	    sh("cd %s && echo 'not an elf' > text && "
	       "head -c 300 pie > cut && cp pie junk && "
	       "dd if=/dev/urandom of=junk bs=1 seek=64 count=4000 "
	       "conv=notrunc 2>/dev/null",
	       fixture_dir),
	    0);
	ck_assert_ptr_null(sym_image_open(fixture_path("text"), &o, &why));
	ck_assert_int_eq(errno, ENOEXEC);
	ck_assert_str_eq((char *)why.data, "not an ELF file");
	sp_buf_reset(&why);
	ck_assert_ptr_null(sym_image_open(fixture_path("cut"), &o, &why));
	ck_assert_uint_gt(why.len, 0);
	/* Garbage headers: either refused or harmless. */
	sym_image_free(sym_image_open(fixture_path("junk"), &o, NULL));
	sp_buf_release(&why);
}
END_TEST

static Suite *
elf_suite(void)
{
	Suite *s = suite_create("symbolize_elf");
	TCase *t = tcase_create("images");

	tcase_set_timeout(t, 60);
	tcase_add_unchecked_fixture(t, build_fixtures, fixture_remove);
	tcase_add_test(t, pie_names_lines_and_inlines);
	tcase_add_test(t, non_pie_names_lines_and_inlines);
	tcase_add_test(t, shared_object_names_lines_and_inlines);
	tcase_add_test(t, clang_build_without_aranges);
	tcase_add_test(t, function_offsets_and_caching);
	tcase_add_test(t, no_inline_keeps_one_frame);
	tcase_add_test(t, cxx_names_are_demangled);
	tcase_add_test(t, rust_names_are_demangled);
	tcase_add_test(t, labels_and_sizeless_symbols);
	tcase_add_test(t, aliases_show_the_known_name);
	tcase_add_test(t, call_site_in_padding_takes_the_next_function);
	tcase_add_test(t, stripped_with_debug_file_by_build_id);
	tcase_add_test(t, stripped_with_debug_file_by_debuglink);
	tcase_add_test(t, module_copy_does_not_hide_the_debug_file);
	tcase_add_test(t, debug_file_with_another_build_id_is_not_used);
	tcase_add_test(t, minidebuginfo_gives_local_functions);
	tcase_add_test(t, broken_files_fail_cleanly);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return ck_run(elf_suite());
}
