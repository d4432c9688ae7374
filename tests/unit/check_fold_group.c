/*
 * check_fold_group.c: the names sp-fold groups frames under (group.h):
 * kernel symbols without their offset, address fallbacks as their module
 * or "[unknown]", every other name untouched, and names of those kinds
 * in shapes sp-symbolize does not write left alone rather than cut.
 */
#include "tests/unit/ck.h"
#include <stdlib.h>
#include <string.h>

#include "sp-fold/model/group.h"

/* The grouped form of `name`; the caller frees it. */
static char *
grouped(const char *name, unsigned flags)
{
	struct sp_buf b = SP_BUF_INIT;

	ck_assert_int_eq(fold_group_name(&b, name, strlen(name), flags), 0);
	ck_assert_int_eq(sp_buf_addc(&b, 0), 0);
	return (char *)b.data;
}

struct group_case {
	const char *name;
	unsigned flags;
	const char *want;
};

static void
check_cases(const struct group_case *c, size_t n)
{
	char *got;
	size_t i;

	for (i = 0; i < n; i++) {
		got = grouped(c[i].name, c[i].flags);
		ck_assert_msg(!strcmp(got, c[i].want),
			      "'%s' (flags %#x): got '%s', want '%s'",
			      c[i].name, c[i].flags, got, c[i].want);
		free(got);
	}
}

START_TEST(kernel_symbols_lose_their_offset)
{
	static const struct group_case c[] = {
		{ "do_syscall_64+0x44", SP_SYM_KERNEL, "do_syscall_64" },
		{ "do_syscall_64+0x24f", SP_SYM_KERNEL, "do_syscall_64" },
		{ "vfs_read+0x0", SP_SYM_KERNEL, "vfs_read" },
		{ "wg_xmit+0x14 [wireguard]", SP_SYM_KERNEL,
		  "wg_xmit [wireguard]" },
		{ "__x.cold+0x3", SP_SYM_KERNEL | SP_SYM_INLINED, "__x.cold" },
		/* not the shape sp-symbolize writes: kept whole */
		{ "do_syscall_64", SP_SYM_KERNEL, "do_syscall_64" },
		{ "+0x10", SP_SYM_KERNEL, "+0x10" },
		{ "a+0x", SP_SYM_KERNEL, "a+0x" },
		{ "a+0x1g", SP_SYM_KERNEL, "a+0x1g" },
		{ "a+0x1[m]", SP_SYM_KERNEL, "a+0x1[m]" },
		/* only kernel symbols carry an offset in their name */
		{ "operator+0x1", 0, "operator+0x1" },
		{ "f+0x10", SP_SYM_JIT, "f+0x10" },
	};

	check_cases(c, sizeof(c) / sizeof(c[0]));
}
END_TEST

START_TEST(unresolved_frames_become_their_module)
{
	static const struct group_case c[] = {
		{ "cc1plus+0x1a2b", SP_SYM_UNRESOLVED, "[cc1plus]" },
		{ "libfoo.so.1+0x0", SP_SYM_UNRESOLVED, "[libfoo.so.1]" },
		{ "a+b+0x10", SP_SYM_UNRESOLVED, "[a+b]" },
		{ "[vdso]+0x7bd", SP_SYM_UNRESOLVED, "[vdso]" },
		{ "[anon:x/y]+0x8", SP_SYM_UNRESOLVED, "[anon:x/y]" },
		{ "[kernel]+0xffffffff81001234",
		  SP_SYM_KERNEL | SP_SYM_UNRESOLVED, "[kernel]" },
		{ "<0x7f0012345678>", SP_SYM_UNRESOLVED, "[unknown]" },
		{ "+0x10", SP_SYM_UNRESOLVED, "[unknown]" },
		{ "py+0x10",
		  SP_SYM_UNRESOLVED | SP_SYM_PYRUNTIME | SP_SYM_HIDDEN,
		  "[py]" },
		/* not a fallback name: kept whole */
		{ "mystery", SP_SYM_UNRESOLVED, "mystery" },
		{ "a+0x10 b", SP_SYM_UNRESOLVED, "a+0x10 b" },
		{ "<0x12", SP_SYM_UNRESOLVED, "<0x12" },
		{ "<stack truncated>", SP_SYM_TRUNCATED, "<stack truncated>" },
		/* resolved names are names, whatever they look like */
		{ "cc1plus+0x1a2b", 0, "cc1plus+0x1a2b" },
		{ "<0x7f0012345678>", SP_SYM_JIT, "<0x7f0012345678>" },
	};

	check_cases(c, sizeof(c) / sizeof(c[0]));
}
END_TEST

START_TEST(symbols_keep_a_group_only_when_it_differs)
{
	struct fold_name_opts plain = { 0 }, addrs = { .addrs = true };
	struct fold_sym s = { .flags = SP_SYM_KERNEL };

	s.name = strdup("vfs_read+0x14");
	ck_assert_int_eq(fold_sym_group(&s), 0);
	ck_assert_str_eq(s.group, "vfs_read");
	ck_assert_str_eq(fold_sym_shown(&s, &plain), "vfs_read");
	ck_assert_str_eq(fold_sym_shown(&s, &addrs), "vfs_read+0x14");
	free(s.name);
	s.name = strdup("vfs_read");
	ck_assert_int_eq(fold_sym_group(&s), 0);
	ck_assert_ptr_null(s.group);
	ck_assert_str_eq(fold_sym_shown(&s, &plain), "vfs_read");
	free(s.name);
	s.name = strdup("");
	s.flags = SP_SYM_UNRESOLVED;
	ck_assert_int_eq(fold_sym_group(&s), 0);
	ck_assert_ptr_null(s.group);
	free(s.name);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("fold grouping");
	TCase *names = tcase_create("names");
	TCase *syms = tcase_create("symbols");

	tcase_add_test(names, kernel_symbols_lose_their_offset);
	tcase_add_test(names, unresolved_frames_become_their_module);
	suite_add_tcase(s, names);
	tcase_add_test(syms, symbols_keep_a_group_only_when_it_differs);
	suite_add_tcase(s, syms);
	return ck_run(s);
}
