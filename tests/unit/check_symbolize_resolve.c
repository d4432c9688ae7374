/*
 * check_symbolize_resolve.c: the resolver's choice of symbol source, on
 * the reference symbolizer's scenarios: perf maps (Python wins, declared
 * ranges, disabled, limited to processes, not overriding file-backed
 * modules or memfd, anonymous mappings, live growth, exec), fallback
 * names, Python runtime flags, kallsyms, changed files and other hosts.
 */
#include "tests/unit/ck.h"
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp-symbolize/resolve.h"
#include "sp-symbolize/out/symres.h"

static char dir[] = "/tmp/sp-symres.XXXXXX";
static int nwarnings;
static char last_warning[1024];

static void
collect_warning(void *ctx, const char *msg)
{
	(void)ctx;
	nwarnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static void
setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	nwarnings = 0;
	last_warning[0] = '\0';
}

static void
teardown(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

static void
write_file(const char *name, const char *mode, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, mode);
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void
write_map(int32_t pid, const char *mode, const char *text)
{
	char name[64];

	snprintf(name, sizeof(name), "perf-%d.map", pid);
	write_file(name, mode, text);
}

static struct sym_resolver_opts
options(void)
{
	struct sym_resolver_opts o = {
		.sym = { .demangle = true, .inlines = true },
		.perf_map_dir = dir,
		.warn = collect_warning,
	};

	return o;
}

static struct sym_resolver *
resolver(const struct sym_resolver_opts *o)
{
	struct sym_resolver *r = sym_resolver_new(o, NULL);

	ck_assert_ptr_nonnull(r);
	return r;
}

static void
add_module(struct sym_resolver *r, uint32_t id, int32_t pid, uint64_t start,
	   const char *path)
{
	struct sp_module m = {
		.id = id,
		.pid = pid,
		.start = start,
		.end = start + 0x1000,
		.path = path,
		.path_len = strlen(path),
	};

	ck_assert_int_eq(sym_resolver_module(r, &m), 0);
}

/* Resolves a user frame; returns the (only or first) frame. */
static struct sym_entry *
resolve(struct sym_resolver *r, int32_t pid, uint32_t module, uint64_t abs,
	uint64_t rel, struct sym_res *out)
{
	struct sp_frame f = { module, module == SP_NONE ? abs : rel, abs,
			      SP_FRAME_USER };

	sym_res_release(out);
	ck_assert_int_eq(sym_resolver_frame(r, &f, pid, out), 0);
	ck_assert_uint_ge(out->n, 1);
	return &out->v[0];
}

static void
assert_sym(const struct sym_entry *s, const char *name, const char *flags)
{
	char buf[8];

	sp_sym_flags_str(s->flags, buf);
	ck_assert_str_eq(s->name, name);
	ck_assert_str_eq(buf, flags);
}

START_TEST(python_perf_map_symbols_win)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;
	struct sym_entry *s;

	write_map(100, "w", "1000 10 py::work:/tmp/app.py\n");
	s = resolve(r, 100, SP_NONE, 0x1004, 0, &out);
	assert_sym(s, "work", "-");
	ck_assert_str_eq(s->file, "/tmp/app.py");
	ck_assert_uint_eq(s->offset, 4);
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(python_perf_map_symbols_respect_declared_ranges)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;

	write_map(109, "w",
		  "1000 c py::first:/tmp/app.py\n"
		  "1020 c py::second:/tmp/app.py\n");
	assert_sym(resolve(r, 109, SP_NONE, 0x1008, 0, &out), "first", "-");
	assert_sym(resolve(r, 109, SP_NONE, 0x100e, 0, &out), "<0x100e>", "u");
	assert_sym(resolve(r, 109, SP_NONE, 0x1024, 0, &out), "second", "-");
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(native_perf_map_symbols_win_without_module)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;
	struct sym_entry *s;

	write_map(101, "w", "2000 20 jit_func\n");
	s = resolve(r, 101, SP_NONE, 0x2008, 0, &out);
	assert_sym(s, "jit_func", "j");
	ck_assert(s->has_offset);
	ck_assert_uint_eq(s->offset, 8);
	ck_assert_ptr_null(s->file);
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(perf_map_symbols_can_be_disabled)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r;
	struct sym_res out = SYM_RES_INIT;

	o.no_perf_maps = true;
	r = resolver(&o);
	write_map(102, "w", "2800 20 py::stale:/tmp/stale.py\n");
	assert_sym(resolve(r, 102, SP_NONE, 0x2808, 0, &out), "<0x2808>", "u");
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(perf_map_symbols_can_be_limited_to_processes)
{
	static const int32_t allowed[] = { 200 };
	struct sym_resolver_opts o = options();
	struct sym_resolver *r;
	struct sym_res out = SYM_RES_INIT;

	o.perf_map_pids = allowed;
	o.nperf_map_pids = 1;
	r = resolver(&o);
	write_map(200, "w", "2900 20 py::allowed:/tmp/allowed.py\n");
	write_map(199, "w", "2900 20 py::blocked:/tmp/blocked.py\n");
	assert_sym(resolve(r, 200, SP_NONE, 0x2908, 0, &out), "allowed", "-");
	assert_sym(resolve(r, 199, SP_NONE, 0x2908, 0, &out), "<0x2908>", "u");
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(perf_map_symbols_do_not_override_non_python_modules)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;
	struct sym_entry *s;

	write_map(104, "w", "4000 20 py::fake_after_exec:/tmp/fake.py\n");
	add_module(r, 0, 104, 0x4000, "/nonexistent/bash");
	s = resolve(r, 104, 0, 0x4008, 0x8, &out);
	assert_sym(s, "bash+0x8", "u");
	ck_assert_int_eq(nwarnings, 1); /* the missing file, once */
	/* A module-less frame whose pframe context names the module. */
	s = resolve(r, 104, 0, 0x4010, 0x10, &out);
	assert_sym(s, "bash+0x10", "u");
	ck_assert_int_eq(nwarnings, 1);
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(perf_map_symbols_do_not_override_file_backed_python_modules)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;

	write_map(111, "w", "4000 20 py::stale:/tmp/stale.py\n");
	add_module(r, 0, 111, 0x4000, "/nonexistent/libpython3.13.so.1.0");
	assert_sym(resolve(r, 111, 0, 0x4008, 0x8, &out),
		   "libpython3.13.so.1.0+0x8", "phu");
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(perf_map_symbols_do_not_override_memfd_mappings)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;
	struct sym_entry *s;

	write_map(110, "w", "5800 20 jit_memfd\n");
	add_module(r, 0, 110, 0x5800, "/memfd:jit-code (deleted)");
	s = resolve(r, 110, 0, 0x5808, 0x8, &out);
	ck_assert(!(s->flags & SP_SYM_JIT));
	assert_sym(s, "memfd:jit-code+0x8", "u");
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(perf_map_symbols_can_override_anonymous_code_mappings)
{
	static const char *const paths[] = {
		"[anon]",
		"//anon",
		"[heap]",
		"[stack:42]",
		"/dev/zero (deleted)",
		"/anon_hugepage (deleted)",
		"/SYSV00000000 (deleted)",
		"",
	};
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;
	char map[1024] = "", line[64], name[32];
	uint32_t i, n = sizeof(paths) / sizeof(paths[0]);

	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "%x 20 jit_%u\n",
			 0x9000 + i * 0x1000, i);
		strncat(map, line, sizeof(map) - strlen(map) - 1);
		add_module(r, i, 112, 0x9000 + i * 0x1000, paths[i]);
	}
	strncat(map, "20000 20 py::anon_code:/tmp/app.py\n",
		sizeof(map) - strlen(map) - 1);
	add_module(r, n, 112, 0x20000, "[anon:python]");
	write_map(112, "w", map);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "jit_%u", i);
		assert_sym(resolve(r, 112, i, 0x9008 + i * 0x1000, 0x8, &out),
			   name, "j");
	}
	assert_sym(resolve(r, 112, n, 0x20008, 0x8, &out), "anon_code", "-");
	ck_assert_int_eq(nwarnings, 0);
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(fallback_names_follow_module_ids)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r;
	struct sym_res out = SYM_RES_INIT;

	o.no_perf_maps = true;
	r = resolver(&o);
	add_module(r, 7, 42, 0x1000, "/stable-seven.so");
	add_module(r, 3, 42, 0x3000, "[anon:sparse-seven]");
	add_module(r, 4, 42, 0x4000, "");
	assert_sym(resolve(r, 42, 7, 0x1008, 0x8, &out), "stable-seven.so+0x8",
		   "u");
	assert_sym(resolve(r, 42, 3, 0x3008, 0x8, &out),
		   "[anon:sparse-seven]+0x8", "u");
	assert_sym(resolve(r, 42, 4, 0x4008, 0x8, &out), "[anon]+0x8", "u");
	/* An undeclared module id resolves as no module. */
	assert_sym(resolve(r, 42, 0, 0x1008, 0x8, &out), "<0x1008>", "u");
	assert_sym(resolve(r, 42, SP_NONE, 0, 0, &out), "<0x0>", "u");
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(duplicate_module_ids_are_rejected)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sp_module m = { .id = 7, .path = "/a", .path_len = 2 };

	ck_assert_int_eq(sym_resolver_module(r, &m), 0);
	ck_assert_int_eq(sym_resolver_module(r, &m), -EEXIST);
	sym_resolver_free(r);
}
END_TEST

START_TEST(python_runtime_fallbacks_are_hidden)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;

	add_module(r, 0, 108, 0x8000, "/nonexistent/bin/python3.12");
	assert_sym(resolve(r, 108, 0, 0x8018, 0x18, &out), "python3.12+0x18",
		   "phu");
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(truncated_marker_is_flagged)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;
	struct sp_frame f = sp_frame_truncated_marker();

	ck_assert_int_eq(sym_resolver_frame(r, &f, -1, &out), 0);
	ck_assert_uint_eq(out.n, 1);
	assert_sym(&out.v[0], "<stack truncated>", "t");
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

static void
kernel_frame(struct sym_resolver *r, uint64_t abs, struct sym_res *out)
{
	struct sp_frame f = { SP_NONE, abs, abs, SP_FRAME_KERNEL };

	sym_res_release(out);
	ck_assert_int_eq(sym_resolver_frame(r, &f, -1, out), 0);
	ck_assert_uint_eq(out->n, 1);
}

START_TEST(kernel_symbols_carry_offsets_and_modules)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r;
	struct sym_res out = SYM_RES_INIT;
	char path[PATH_MAX];

	write_file("kallsyms", "w",
		   "ffffffff81100000 T vfs_read\n"
		   "ffffffffc0010000 t wg_packet_tx_worker\t[wireguard]\n");
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	o.kallsyms = path;
	r = resolver(&o);
	/* Another kernel, but an explicit file: it is used. */
	ck_assert_int_eq(sym_resolver_host(r, "release", "0.0.0-other"), 0);
	kernel_frame(r, 0xffffffff81100014, &out);
	assert_sym(&out.v[0], "vfs_read+0x14", "k");
	ck_assert(out.v[0].has_offset);
	ck_assert_uint_eq(out.v[0].offset, 0x14);
	kernel_frame(r, 0xffffffffc0010014, &out);
	assert_sym(&out.v[0], "wg_packet_tx_worker+0x14 [wireguard]", "k");
	kernel_frame(r, 0xffffffff80001234, &out);
	assert_sym(&out.v[0], "[kernel]+0xffffffff80001234", "ku");
	ck_assert(!out.v[0].has_offset);
	/* Far past the last symbol below: in no function. */
	kernel_frame(r, 0xffffffffa0000000, &out);
	assert_sym(&out.v[0], "[kernel]+0xffffffffa0000000", "ku");
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(kernel_frames_fall_back_without_kallsyms)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r;
	struct sym_res out = SYM_RES_INIT;
	char path[PATH_MAX];

	write_file("empty", "w", "");
	snprintf(path, sizeof(path), "%s/empty", dir);
	o.kallsyms = path;
	r = resolver(&o);
	kernel_frame(r, 0xffffffff80001234, &out);
	assert_sym(&out.v[0], "[kernel]+0xffffffff80001234", "ku");
	sym_res_release(&out);
	sym_resolver_free(r);
	o.kallsyms = "/nonexistent/kallsyms";
	ck_assert_ptr_null(sym_resolver_new(&o, NULL));
}
END_TEST

START_TEST(host_kallsyms_refused_for_another_kernel)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;

	ck_assert_int_eq(sym_resolver_host(r, "release", "0.0.0-other"), 0);
	ck_assert_int_eq(sym_resolver_host(r, "hostname", "elsewhere"), 0);
	kernel_frame(r, 0xffffffff81000010, &out);
	assert_sym(&out.v[0], "[kernel]+0xffffffff81000010", "ku");
	kernel_frame(r, 0xffffffff81000020, &out);
	ck_assert_int_eq(nwarnings, 1);
	ck_assert_ptr_nonnull(strstr(last_warning, "0.0.0-other"));
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(perf_map_growth_is_reloaded)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;

	write_map(300, "w", "1000 10 existing_jit_symbol\n");
	assert_sym(resolve(r, 300, SP_NONE, 0x1008, 0, &out),
		   "existing_jit_symbol", "j");
	assert_sym(resolve(r, 300, SP_NONE, 0x2000, 0, &out), "<0x2000>", "u");
	write_map(300, "a", "2000 10 jitted_fn_b\n");
	assert_sym(resolve(r, 300, SP_NONE, 0x2000, 0, &out), "jitted_fn_b",
		   "j");
	/* A map that appears after the first lookup is found too. */
	assert_sym(resolve(r, 301, SP_NONE, 0x3000, 0, &out), "<0x3000>", "u");
	write_map(301, "w", "3000 10 late\n");
	assert_sym(resolve(r, 301, SP_NONE, 0x3000, 0, &out), "late", "j");
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(exec_drops_the_perf_map)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;

	write_map(302, "w", "1000 10 before_exec\n");
	assert_sym(resolve(r, 302, SP_NONE, 0x1004, 0, &out), "before_exec",
		   "j");
	/* Same address, same size: only forgetting makes it reread. */
	write_map(302, "w", "1000 10 after_exec_\n");
	assert_sym(resolve(r, 302, SP_NONE, 0x1004, 0, &out), "before_exec",
		   "j");
	sym_resolver_forget(r, 302);
	assert_sym(resolve(r, 302, SP_NONE, 0x1004, 0, &out), "after_exec_",
		   "j");
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

/* The mapping of this test program that holds `addr`, as a module. */
static void
self_module(uint64_t addr, struct sp_module *m, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128], file[PATH_MAX];
	unsigned long lo, hi, off, ino;
	bool found = false;

	ck_assert_ptr_nonnull(f);
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%lx-%lx %*s %lx %*s %lu %4095s", &lo, &hi,
			       &off, &ino, file) == 5 &&
			lo <= addr && addr < hi;
	fclose(f);
	ck_assert(found);
	snprintf(path, len, "%s", file);
	memset(m, 0, sizeof(*m));
	m->pid = getpid();
	m->start = lo;
	m->end = hi;
	m->file_offset = off;
	m->inode = ino;
	m->path = path;
	m->path_len = strlen(path);
}

static struct sym_entry *
resolve_self(struct sym_resolver *r, uint32_t id, uint64_t addr,
	     const struct sp_module *m, struct sym_res *out)
{
	return resolve(r, -1, id, addr, addr - m->start + m->file_offset, out);
}

START_TEST(own_executable_resolves_by_file_offset)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;
	uint64_t addr = (uint64_t)(uintptr_t)&self_module + 4;
	struct sp_module m;
	char path[PATH_MAX];
	struct sym_entry *s;

	self_module(addr, &m, path, sizeof(path));
	ck_assert_int_eq(sym_resolver_module(r, &m), 0);
	s = resolve_self(r, 0, addr, &m, &out);
	assert_sym(s, "self_module", "-");
	ck_assert_uint_eq(s->offset, 4);
	ck_assert_ptr_nonnull(strstr(s->file, "check_symbolize_resolve.c"));
	ck_assert_int_eq(nwarnings, 0);
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(changed_file_falls_back_with_one_warning)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;
	uint64_t addr = (uint64_t)(uintptr_t)&self_module + 4;
	struct sp_module m;
	char path[PATH_MAX], want[PATH_MAX + 32];
	const char *base;

	self_module(addr, &m, path, sizeof(path));
	base = strrchr(path, '/') + 1;
	m.inode++;
	ck_assert_int_eq(sym_resolver_module(r, &m), 0);
	m.id = 1;
	m.pid++;
	ck_assert_int_eq(sym_resolver_module(r, &m), 0);
	snprintf(want, sizeof(want), "%s+0x%" PRIx64, base,
		 addr - m.start + m.file_offset);
	assert_sym(resolve_self(r, 0, addr, &m, &out), want, "u");
	assert_sym(resolve_self(r, 1, addr, &m, &out), want, "u");
	ck_assert_int_eq(nwarnings, 1);
	ck_assert_ptr_nonnull(strstr(last_warning, "changed"));
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(other_build_id_falls_back_with_one_warning)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;
	uint64_t addr = (uint64_t)(uintptr_t)&self_module + 4;
	struct sp_module m;
	char path[PATH_MAX];
	struct sym_entry *s;

	self_module(addr, &m, path, sizeof(path));
	ck_assert_int_eq(sym_resolver_module(r, &m), 0);
	/* Resolved before the build id is known, and after. */
	s = resolve_self(r, 0, addr, &m, &out);
	ck_assert(!(s->flags & SP_SYM_UNRESOLVED));
	ck_assert_int_eq(sym_resolver_buildid(r, 0, "00112233"), 0);
	ck_assert_int_eq(sym_resolver_buildid(r, 5, "00112233"), -ENOENT);
	s = resolve_self(r, 0, addr, &m, &out);
	ck_assert(s->flags & SP_SYM_UNRESOLVED);
	ck_assert_int_eq(nwarnings, 1);
	ck_assert_ptr_nonnull(strstr(last_warning, "build id"));
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

START_TEST(vdso_resolves_from_this_host)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;
	struct sym_entry *s;

	if (!getauxval(AT_SYSINFO_EHDR)) {
		sym_resolver_free(r);
		return; /* no vdso in this sandbox */
	}
	add_module(r, 0, 1, 0x7fff0000, "[vdso]");
	/* The vdso's first function is past its headers: scan for one. */
	for (uint64_t rel = 0x400; rel < 0x2000; rel += 0x10) {
		s = resolve(r, 1, 0, 0x7fff0000 + rel, rel, &out);
		if (!(s->flags & SP_SYM_UNRESOLVED))
			break;
	}
	ck_assert_msg(!(out.v[0].flags & SP_SYM_UNRESOLVED), "%s",
		      out.v[0].name);
	ck_assert_int_eq(nwarnings, 0);
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

/*
 * The build id of this process's vdso as hex, read from its notes in
 * memory (an independent reader: not sp-symbolize's libelf path).
 */
static const char *
host_vdso_buildid(void)
{
	static char hex[2 * 64 + 1];
	const unsigned char *base =
	    (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	size_t i, off, k;

	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_NOTE)
			continue;
		for (off = 0; off + sizeof(Elf64_Nhdr) <= ph[i].p_filesz;) {
			const Elf64_Nhdr *n =
			    (const Elf64_Nhdr *)(base + ph[i].p_offset + off);
			const unsigned char *desc =
			    (const unsigned char *)(n + 1) +
			    ((n->n_namesz + 3) & ~3u);

			if (n->n_type == NT_GNU_BUILD_ID && n->n_descsz <= 64) {
				for (k = 0; k < n->n_descsz; k++)
					snprintf(hex + 2 * k, 3, "%02x",
						 desc[k]);
				return hex;
			}
			off += sizeof(*n) + ((n->n_namesz + 3) & ~3u) +
			       ((n->n_descsz + 3) & ~3u);
		}
	}
	ck_abort_msg("the vdso has no build id");
	return NULL;
}

/* The first vdso address that resolves, or 0. */
static uint64_t
vdso_named_rel(struct sym_resolver *r, struct sym_res *out)
{
	struct sym_entry *s;
	uint64_t rel;

	for (rel = 0x400; rel < 0x2000; rel += 0x10) {
		sym_res_release(out);
		s = resolve(r, 1, 0, 0x7fff0000 + rel, rel, out);
		if (!(s->flags & SP_SYM_UNRESOLVED))
			return rel;
	}
	return 0;
}

START_TEST(vdso_follows_its_build_id)
{
	struct sym_resolver_opts o = options();
	struct sym_resolver *r = resolver(&o);
	struct sym_res out = SYM_RES_INIT;
	struct sym_entry *s;
	uint64_t rel;

	add_module(r, 0, 1, 0x7fff0000, "[vdso]");
	/* Another boot: without a build id, nothing says it is this vdso. */
	ck_assert_int_eq(sym_resolver_host(r, "bootid", "not-this-boot"), 0);
	ck_assert_uint_eq(vdso_named_rel(r, &out), 0);
	sym_resolver_free(r);

	/* With its build id, this host's vdso serves any boot... */
	r = resolver(&o);
	add_module(r, 0, 1, 0x7fff0000, "[vdso]");
	ck_assert_int_eq(sym_resolver_host(r, "bootid", "not-this-boot"), 0);
	rel = vdso_named_rel(r, &out);
	if (rel == 0) {
		sym_res_release(&out);
		sym_resolver_free(r);
		return; /* no vdso, or one without symbols, in this sandbox */
	}
	sym_res_release(&out);
	sym_resolver_free(r);
	r = resolver(&o);
	add_module(r, 0, 1, 0x7fff0000, "[vdso]");
	ck_assert_int_eq(sym_resolver_host(r, "bootid", "not-this-boot"), 0);
	ck_assert_int_eq(sym_resolver_buildid(r, 0, host_vdso_buildid()), 0);
	sym_res_release(&out);
	s = resolve(r, 1, 0, 0x7fff0000 + rel, rel, &out);
	ck_assert(!(s->flags & SP_SYM_UNRESOLVED));
	/* ...and another build id, even this boot's, none. */
	ck_assert_int_eq(sym_resolver_buildid(r, 0, "00112233"), 0);
	sym_res_release(&out);
	s = resolve(r, 1, 0, 0x7fff0000 + rel, rel, &out);
	ck_assert(s->flags & SP_SYM_UNRESOLVED);
	sym_res_release(&out);
	sym_resolver_free(r);
}
END_TEST

static Suite *
resolve_suite(void)
{
	Suite *s = suite_create("symbolize_resolve");
	TCase *p = tcase_create("perf_maps");
	TCase *f = tcase_create("fallbacks");
	TCase *k = tcase_create("kernel");
	TCase *e = tcase_create("elf");

	tcase_add_checked_fixture(p, setup, teardown);
	tcase_add_checked_fixture(f, setup, teardown);
	tcase_add_checked_fixture(k, setup, teardown);
	tcase_add_checked_fixture(e, setup, teardown);
	tcase_add_test(p, python_perf_map_symbols_win);
	tcase_add_test(p, python_perf_map_symbols_respect_declared_ranges);
	tcase_add_test(p, native_perf_map_symbols_win_without_module);
	tcase_add_test(p, perf_map_symbols_can_be_disabled);
	tcase_add_test(p, perf_map_symbols_can_be_limited_to_processes);
	tcase_add_test(p, perf_map_symbols_do_not_override_non_python_modules);
	tcase_add_test(
	    p, perf_map_symbols_do_not_override_file_backed_python_modules);
	tcase_add_test(p, perf_map_symbols_do_not_override_memfd_mappings);
	tcase_add_test(p,
		       perf_map_symbols_can_override_anonymous_code_mappings);
	tcase_add_test(p, perf_map_growth_is_reloaded);
	tcase_add_test(p, exec_drops_the_perf_map);
	tcase_add_test(f, fallback_names_follow_module_ids);
	tcase_add_test(f, duplicate_module_ids_are_rejected);
	tcase_add_test(f, python_runtime_fallbacks_are_hidden);
	tcase_add_test(f, truncated_marker_is_flagged);
	tcase_add_test(k, kernel_symbols_carry_offsets_and_modules);
	tcase_add_test(k, kernel_frames_fall_back_without_kallsyms);
	tcase_add_test(k, host_kallsyms_refused_for_another_kernel);
	tcase_add_test(e, own_executable_resolves_by_file_offset);
	tcase_add_test(e, changed_file_falls_back_with_one_warning);
	tcase_add_test(e, other_build_id_falls_back_with_one_warning);
	tcase_add_test(e, vdso_resolves_from_this_host);
	tcase_add_test(e, vdso_follows_its_build_id);
	suite_add_tcase(s, p);
	suite_add_tcase(s, f);
	suite_add_tcase(s, k);
	suite_add_tcase(s, e);
	return s;
}

int
main(void)
{
	return ck_run(resolve_suite());
}
