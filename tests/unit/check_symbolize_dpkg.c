/*
 * check_symbolize_dpkg.c: the owners of files from dpkg's file lists,
 * on a made-up info directory: a file is owned when a listed path is
 * the same file (through a link to its directory too), the package
 * loses its ":ARCH", two packages listing a file name none, and a
 * missing directory is -ENOENT with no owner.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp-symbolize/dpkgown.h"
#include "tests/unit/fixture.h"

static void
setup(void)
{
	fixture_mkdir("dpkg");
	/* real/ holds the files; usr/ links to it as /usr merges do. */
	ck_assert_int_eq(sh("cd %s && mkdir info real && ln -s real usr && "
			    "touch real/libx.so.1 real/liby.so.2 real/libz.so "
			    "real/other",
			    fixture_dir),
			 0);
}

static void
teardown(void)
{
	fixture_remove();
}

/* Writes info/NAME listing the paths of `lines` under the directory. */
static void
list(const char *name, const char *lines)
{
	ck_assert_int_eq(sh("cd %s && for p in %s; do echo \"%s/$p\"; done "
			    ">info/%s",
			    fixture_dir, lines, fixture_dir, name),
			 0);
}

START_TEST(listed_files_name_their_package)
{
	char info[4096], *owners[4];
	const char *paths[4];

	list("libx1:amd64.list", "usr usr/libx.so.1 usr/liby.so.2");
	list("liby2.list", "real/gone/liby.so.2 real/other");
	list("libz-dev:i386.list", "real/libz.so");
	list("notes.txt", "real/liby.so.2");
	snprintf(info, sizeof(info), "%s/info", fixture_dir);
	paths[0] = fixture_path("real/libx.so.1"); /* listed through usr/ */
	paths[1] = fixture_path("usr/libz.so");    /* listed through real/ */
	paths[2] = fixture_path("missing.so");
	paths[3] = fixture_path("real/liby.so.2"); /* libx1's, not the .txt's */
	ck_assert_int_eq(sym_dpkg_owners(info, paths, 4, owners), 0);
	ck_assert_str_eq(owners[0], "libx1");
	ck_assert_str_eq(owners[1], "libz-dev");
	ck_assert_ptr_null(owners[2]);
	ck_assert_str_eq(owners[3], "libx1");
	for (int i = 0; i < 4; i++)
		free(owners[i]);
}
END_TEST

START_TEST(two_owners_name_none)
{
	char info[4096], *owners[2];
	const char *paths[2] = { fixture_path("real/libx.so.1"),
				 fixture_path("real/other") };

	list("a.list", "real/libx.so.1");
	list("b:amd64.list", "usr/libx.so.1");
	snprintf(info, sizeof(info), "%s/info", fixture_dir);
	ck_assert_int_eq(sym_dpkg_owners(info, paths, 2, owners), 0);
	ck_assert_ptr_null(owners[0]);
	ck_assert_ptr_null(owners[1]);
}
END_TEST

START_TEST(no_dpkg_is_enoent)
{
	char info[4096], *owners[1] = { (char *)"x" };
	const char *paths[1] = { fixture_path("real/libx.so.1") };

	snprintf(info, sizeof(info), "%s/none", fixture_dir);
	ck_assert_int_eq(sym_dpkg_owners(info, paths, 1, owners), -ENOENT);
	ck_assert_ptr_null(owners[0]);
}
END_TEST

static Suite *
dpkg_suite(void)
{
	Suite *s = suite_create("symbolize_dpkg");
	TCase *t = tcase_create("owners");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, listed_files_name_their_package);
	tcase_add_test(t, two_owners_name_none);
	tcase_add_test(t, no_dpkg_is_enoent);
	suite_add_tcase(s, t);
	return s;
}

int
main(void)
{
	return ck_run(dpkg_suite());
}
