/*
 * check_modtab.c: the recorder's module table: interning, index with
 * latest-overlap-wins, inode-distinct mappings, rebuild after
 * deactivation (which frees), the last group and entry found,
 * user/kernel separation, clone-on-fork, and mappings that come back
 * after others replaced them.
 */
#include "tests/unit/ck.h"
#include <stdlib.h>
#include <string.h>

#include "common/modtab.h"

static struct sp_modtab *t;

static void
setup(void)
{
	t = sp_modtab_new();
	ck_assert_ptr_nonnull(t);
}

static void
teardown(void)
{
	sp_modtab_free(t);
}

static uint32_t
add(int32_t pid, uint64_t start, uint64_t end, const char *path, bool k,
    uint64_t inode)
{
	struct sp_module m = { 0,     pid, start, end,         0,
			       inode, k,   path,  strlen(path) };
	uint32_t id;

	ck_assert_int_eq(sp_modtab_intern(t, &m, NULL, &id), 0);
	return id;
}

static uint32_t
resolve(int32_t pid, uint64_t ip, enum sp_frame_mode mode, uint64_t *rel)
{
	struct sp_frame f;

	sp_modtab_resolve(t, pid, ip, mode, &f);
	if (rel)
		*rel = f.rel_ip;
	ck_assert_uint_eq(f.abs_ip, ip);
	return f.module_id;
}

START_TEST(latest_overlap_wins)
{
	uint32_t first = add(7, 0x1000, 0x3000, "/first", false, 0);
	uint32_t second = add(7, 0x0800, 0x4000, "/second", false, 0);

	ck_assert_uint_eq(first, 0);
	ck_assert_uint_eq(second, 1);
	ck_assert_uint_eq(resolve(7, 0x2000, SP_FRAME_USER, NULL), second);
}
END_TEST

START_TEST(identical_modules_share_an_id)
{
	ck_assert_uint_eq(add(7, 0x1000, 0x2000, "/a", false, 1),
			  add(7, 0x1000, 0x2000, "/a", false, 1));
	ck_assert_uint_eq(sp_modtab_count(t), 1);
	ck_assert_uint_eq(add(7, 0x1000, 0x1000, "/empty", false, 1), SP_NONE);
}
END_TEST

START_TEST(inode_distinct_mappings_stay_distinct)
{
	uint32_t a = add(7, 0x1000, 0x2000, "/same", false, 1);
	uint32_t b = add(7, 0x1000, 0x2000, "/same", false, 2);

	ck_assert_uint_ne(a, b);
	ck_assert_uint_eq(resolve(7, 0x1008, SP_FRAME_USER, NULL), b);
}
END_TEST

START_TEST(index_rebuilds_after_deactivation)
{
	uint32_t first = add(7, 0x1000, 0x3000, "/first", false, 0);
	uint32_t again;

	add(7, 0x0800, 0x4000, "/second", false, 0);
	ck_assert_int_eq(sp_modtab_deactivate(t, 7, NULL), 0);
	ck_assert_uint_eq(resolve(7, 0x2000, SP_FRAME_USER, NULL), SP_NONE);
	again = add(7, 0x1000, 0x3000, "/first", false, 0);
	ck_assert_uint_ne(again, first);
	ck_assert_uint_eq(resolve(7, 0x2000, SP_FRAME_USER, NULL), again);
	ck_assert(!sp_modtab_is_active(t, first));
}
END_TEST

/* Resolving remembers the last group and entry: never past a change. */
START_TEST(the_last_found_follows_changes)
{
	uint32_t a = add(7, 0x1000, 0x2000, "/a", false, 0);
	uint32_t b = add(7, 0x3000, 0x4000, "/b", false, 0);
	uint32_t c, d;

	ck_assert_uint_eq(resolve(7, 0x1800, SP_FRAME_USER, NULL), a);
	ck_assert_uint_eq(resolve(7, 0x3800, SP_FRAME_USER, NULL), b);
	ck_assert_uint_eq(resolve(7, 0x1900, SP_FRAME_USER, NULL), a);
	ck_assert_uint_eq(resolve(7, 0x2800, SP_FRAME_USER, NULL), SP_NONE);
	ck_assert_uint_eq(resolve(8, 0x1800, SP_FRAME_USER, NULL), SP_NONE);
	ck_assert_uint_eq(resolve(7, 0x1800, SP_FRAME_USER, NULL), a);
	c = add(7, 0x1000, 0x1800, "/c", false, 0); /* over a's start */
	ck_assert_uint_eq(resolve(7, 0x1100, SP_FRAME_USER, NULL), c);
	ck_assert_uint_eq(resolve(7, 0x1900, SP_FRAME_USER, NULL), a);
	ck_assert_int_eq(sp_modtab_deactivate(t, 7, NULL), 0);
	ck_assert_uint_eq(resolve(7, 0x1900, SP_FRAME_USER, NULL), SP_NONE);
	d = add(7, 0x1000, 0x2000, "/d", false, 0);
	ck_assert_uint_eq(resolve(7, 0x1900, SP_FRAME_USER, NULL), d);
	add(8, 0x1000, 0x2000, "/e", false, 0);
	ck_assert_uint_eq(resolve(7, 0x1900, SP_FRAME_USER, NULL), d);
}
END_TEST

/* A recorder following short-lived children keeps only the live ones. */
START_TEST(deactivation_frees_and_ids_go_on)
{
	uint32_t id = SP_NONE, prev = SP_NONE, i;
	uint64_t rel;

	for (i = 0; i < 5000; i++) {
		int32_t pid = (int32_t)(100 + i % 50);

		id = add(pid, 0x1000, 0x2000, "/bin/true", false, 0);
		add(pid, 0x3000, 0x4000, "/lib/libc.so.6", false, 0);
		if (prev != SP_NONE)
			ck_assert_uint_eq(id, prev + 2);
		ck_assert_ptr_nonnull(sp_modtab_get(t, id));
		ck_assert_int_eq(sp_modtab_deactivate(t, pid, NULL), 0);
		ck_assert_ptr_null(sp_modtab_get(t, id));
		ck_assert(!sp_modtab_is_active(t, id));
		ck_assert_uint_eq(resolve(pid, 0x1800, SP_FRAME_USER, &rel),
				  SP_NONE);
		prev = id;
	}
	ck_assert_uint_eq(sp_modtab_count(t), 10000);
	/* A clone of a process that is gone has nothing to clone. */
	ck_assert_int_eq(sp_modtab_clone(t, 100, 99, NULL), 0);
	ck_assert_uint_eq(sp_modtab_count(t), 10000);
}
END_TEST

START_TEST(modes_are_resolved_separately)
{
	uint64_t rel;

	add(7, 0x1000, 0x2000, "/user", false, 0);
	add(-1, 0x3000, 0x4000, "[kernel]", true, 0);
	ck_assert_uint_eq(resolve(7, 0x1008, SP_FRAME_KERNEL, &rel), SP_NONE);
	ck_assert_uint_eq(rel, 0x1008);
	ck_assert_uint_eq(resolve(7, 0x3008, SP_FRAME_USER, &rel), SP_NONE);
	ck_assert_uint_eq(rel, 0x3008);
	ck_assert_uint_eq(resolve(99, 0x3008, SP_FRAME_KERNEL, &rel), 1);
	ck_assert_uint_eq(rel, 0x8);
	ck_assert_uint_eq(resolve(7, 0x0, SP_FRAME_TRUNCATED, NULL), SP_NONE);
}
END_TEST

START_TEST(fork_clones_active_modules)
{
	struct sp_module m = {
		0, 7, 0x1000, 0x2000, 0x400, 3, false, "/lib", 4
	};
	uint32_t id, child;
	uint64_t rel;

	ck_assert_int_eq(sp_modtab_intern(t, &m, NULL, &id), 0);
	add(-1, 0x9000, 0xa000, "[kernel]", true, 0);
	ck_assert_int_eq(sp_modtab_clone(t, 7, 8, NULL), 0);
	ck_assert_uint_eq(sp_modtab_count(t), 3);
	child = resolve(8, 0x1010, SP_FRAME_USER, &rel);
	ck_assert_uint_eq(child, 2);
	ck_assert_uint_eq(rel, 0x410);
	ck_assert_int_eq(sp_modtab_get(t, child)->pid, 8);
	ck_assert_str_eq(sp_modtab_get(t, child)->path, "/lib");
	/* Deactivating the child leaves the parent alone. */
	sp_modtab_deactivate(t, 8, NULL);
	ck_assert_uint_eq(resolve(7, 0x1010, SP_FRAME_USER, NULL), id);
}
END_TEST

START_TEST(many_modules_resolve_by_binary_search)
{
	uint64_t i, rel;

	for (i = 0; i < 5000; i++)
		add(7, 0x100000 + i * 0x1000, 0x100000 + i * 0x1000 + 0x800,
		    "/m", false, i);
	for (i = 0; i < 5000; i += 37) {
		ck_assert_uint_eq(resolve(7, 0x100000 + i * 0x1000 + 0x10,
					  SP_FRAME_USER, &rel),
				  i);
		ck_assert_uint_eq(rel, 0x10);
		ck_assert_uint_eq(resolve(7, 0x100000 + i * 0x1000 + 0x900,
					  SP_FRAME_USER, NULL),
				  SP_NONE);
	}
}
END_TEST

/*
 * Libraries loaded and closed in turn at one address (issue 24): each
 * return is a new module that resolves its own samples, and the one it
 * replaced is dropped.  The old table handed the first identity's id
 * back and resolved everything to the newest id: the last library.
 */
START_TEST(a_mapping_that_comes_back_is_a_new_module)
{
	static const char *const libs[] = { "/v1.so", "/v2.so", "/v3.so" };
	uint32_t id, prev = SP_NONE, first[3];
	int round, i;

	for (round = 0; round < 4; round++)
		for (i = 0; i < 3; i++) {
			id = add(7, 0x7000, 0x9000, libs[i], false, 0);
			if (round == 0)
				first[i] = id;
			else
				ck_assert_uint_ne(id, first[i]);
			ck_assert_uint_eq(
			    resolve(7, 0x7100, SP_FRAME_USER, NULL), id);
			ck_assert_str_eq(sp_modtab_get(t, id)->path, libs[i]);
			if (prev != SP_NONE) {
				ck_assert_uint_eq(id, prev + 1);
				ck_assert(!sp_modtab_is_active(t, prev));
			}
			prev = id;
		}
	ck_assert_uint_eq(sp_modtab_count(t), 12);
	/* The same mapping seen again with nothing in between keeps its id. */
	ck_assert_uint_eq(add(7, 0x7000, 0x9000, "/v3.so", false, 0), prev);
}
END_TEST

/* A mapping over part of an older one leaves it the rest of its range. */
START_TEST(a_partial_overlap_keeps_the_rest)
{
	uint32_t a = add(7, 0x1000, 0x5000, "/a", false, 0);
	uint32_t b = add(7, 0x2000, 0x3000, "/b", false, 0);
	uint32_t again;

	ck_assert_uint_eq(resolve(7, 0x1800, SP_FRAME_USER, NULL), a);
	ck_assert_uint_eq(resolve(7, 0x2800, SP_FRAME_USER, NULL), b);
	ck_assert_uint_eq(resolve(7, 0x4800, SP_FRAME_USER, NULL), a);
	ck_assert(sp_modtab_is_active(t, a));
	/* /a mapped again over /b: not the old /a, which /b overlaid. */
	again = add(7, 0x1000, 0x5000, "/a", false, 0);
	ck_assert_uint_ne(again, a);
	ck_assert_uint_eq(resolve(7, 0x2800, SP_FRAME_USER, NULL), again);
	ck_assert(!sp_modtab_is_active(t, a));
	ck_assert(!sp_modtab_is_active(t, b));
	/* Other processes' and kernel modules are not touched. */
	ck_assert_uint_eq(resolve(8, 0x2800, SP_FRAME_USER, NULL), SP_NONE);
}
END_TEST

/* A child gets the parent's overlapping modules in the parent's order. */
START_TEST(a_clone_keeps_the_newer_on_top)
{
	uint32_t b;

	add(7, 0x1000, 0x5000, "/a", false, 0);
	add(7, 0x2000, 0x3000, "/b", false, 0);
	ck_assert_int_eq(sp_modtab_clone(t, 7, 8, NULL), 0);
	b = resolve(8, 0x2800, SP_FRAME_USER, NULL);
	ck_assert_str_eq(sp_modtab_get(t, b)->path, "/b");
	ck_assert_str_eq(
	    sp_modtab_get(t, resolve(8, 0x4800, SP_FRAME_USER, NULL))->path,
	    "/a");
	ck_assert_int_eq(sp_modtab_clone(t, 8, 8, NULL), 0);
	ck_assert_uint_eq(sp_modtab_count(t), 4);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("modtab");
	TCase *tc = tcase_create("table");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, latest_overlap_wins);
	tcase_add_test(tc, identical_modules_share_an_id);
	tcase_add_test(tc, inode_distinct_mappings_stay_distinct);
	tcase_add_test(tc, index_rebuilds_after_deactivation);
	tcase_add_test(tc, the_last_found_follows_changes);
	tcase_add_test(tc, deactivation_frees_and_ids_go_on);
	tcase_add_test(tc, modes_are_resolved_separately);
	tcase_add_test(tc, fork_clones_active_modules);
	tcase_add_test(tc, many_modules_resolve_by_binary_search);
	tcase_add_test(tc, a_mapping_that_comes_back_is_a_new_module);
	tcase_add_test(tc, a_partial_overlap_keeps_the_rest);
	tcase_add_test(tc, a_clone_keeps_the_newer_on_top);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
