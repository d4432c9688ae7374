/*
 * check_record_maps.c: the /proc/PID/maps parser on crafted lines (paths
 * with spaces, deleted files, anonymous and special mappings, malformed
 * lines), which mappings count as modules, and a read of our own maps.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "sp-record/sys/maps.h"

static struct rec_maps_entry
parse_ok(const char *line)
{
	struct rec_maps_entry m;

	ck_assert_msg(rec_maps_parse_line(line, strlen(line), &m) == 0,
		      "did not parse: %s", line);
	return m;
}

static void
path_is(const struct rec_maps_entry *m, const char *want)
{
	ck_assert_uint_eq(m->path_len, strlen(want));
	ck_assert(memcmp(m->path, want, m->path_len) == 0);
}

START_TEST(file_mapping)
{
	struct rec_maps_entry m =
	    parse_ok("7f12a3400000-7f12a3428000 r-xp 00026000 "
		     "fd:01 1573921                    "
		     "/usr/lib/x86_64-linux-gnu/libc.so.6\n");

	ck_assert_uint_eq(m.start, 0x7f12a3400000ULL);
	ck_assert_uint_eq(m.end, 0x7f12a3428000ULL);
	ck_assert_uint_eq(m.offset, 0x26000);
	ck_assert_uint_eq(m.dev_major, 0xfd);
	ck_assert_uint_eq(m.dev_minor, 1);
	ck_assert_uint_eq(m.inode, 1573921);
	ck_assert_str_eq(m.perms, "r-xp");
	path_is(&m, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	ck_assert(rec_maps_is_module(&m));
}
END_TEST

START_TEST(paths_with_spaces_and_deleted_files)
{
	struct rec_maps_entry m;

	m = parse_ok("1000-2000 r-xp 00000000 08:01 42  /tmp/my dir/a b.so");
	path_is(&m, "/tmp/my dir/a b.so");
	ck_assert(rec_maps_is_module(&m));
	m = parse_ok("1000-2000 r-xp 00001000 08:01 42 /tmp/x (deleted)\n");
	path_is(&m, "/tmp/x (deleted)");
	ck_assert(rec_maps_is_module(&m));
}
END_TEST

START_TEST(anonymous_and_special_mappings)
{
	struct rec_maps_entry m;

	m = parse_ok("1000-2000 r-xp 00000000 00:00 0");
	path_is(&m, "");
	ck_assert(!rec_maps_is_module(&m)); /* JIT code: no file */
	m = parse_ok("1000-2000 r-xp 00000000 00:00 0 \n");
	path_is(&m, "");
	m = parse_ok("7ffd1000-7ffd3000 r-xp 00000000 00:00 0  [vdso]");
	path_is(&m, "[vdso]");
	ck_assert(rec_maps_is_module(&m));
	m = parse_ok("ffffffffff600000-ffffffffff601000 --xp 00000000 "
		     "00:00 0                  [vsyscall]");
	ck_assert_uint_eq(m.start, 0xffffffffff600000ULL);
	ck_assert(!rec_maps_is_module(&m));
	m = parse_ok("5000-6000 rw-p 00002000 08:01 42 /usr/bin/prog");
	ck_assert(!rec_maps_is_module(&m)); /* data, not code */
	m = parse_ok("5000-6000 rwxp 00000000 00:00 0 [stack]");
	ck_assert(!rec_maps_is_module(&m));
}
END_TEST

START_TEST(malformed_lines_are_rejected)
{
	static const char *bad[] = {
		"",
		"\n",
		"1000",
		"1000-",
		"1000-2000",
		"1000-2000 r-x",
		"1000-2000 r-xp",
		"1000-2000 r-xp 0",
		"1000-2000 r-xp 0 08",
		"1000-2000 r-xp 0 08:01",
		"1000-2000 r-xp 0 08:01 x",
		"2000-1000 r-xp 0 08:01 1 /end/before/start",
		"g000-2000 r-xp 0 08:01 1 /x",
		"1000-2000 r-xp 0 08:01 1x /x",
		"1000-2000 r-xp 0 108:01:2 1 /x",
		"11112222333344445-2000 r-xp 0 08:01 1 /x",
		"1000-2000 r-xp 0 08:01 99999999999999999999999 /x",
	};
	struct rec_maps_entry m;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(rec_maps_parse_line(bad[i], strlen(bad[i]), &m) ==
				  -EBADMSG,
			      "accepted: '%s'", bad[i]);
}
END_TEST

START_TEST(bounded_by_length_not_nul)
{
	const char text[] = "1000-2000 r-xp 0 08:01 7 /a/b/c";
	struct rec_maps_entry m;

	/* Cut inside the path: the path ends where the length does. */
	ck_assert_int_eq(rec_maps_parse_line(text, sizeof(text) - 3, &m), 0);
	path_is(&m, "/a/b");
	/* Cut inside the inode: still a line without a path. */
	ck_assert_int_eq(rec_maps_parse_line(text, 24, &m), 0);
	ck_assert_uint_eq(m.inode, 7);
	ck_assert_int_eq(rec_maps_parse_line(text, 22, &m), -EBADMSG);
}
END_TEST

START_TEST(walk_counts_bad_lines)
{
	const char text[] = "1000-2000 r-xp 00000000 08:01 1 /bin/a\n"
			    "garbage line\n"
			    "\n"
			    "3000-4000 rw-p 00000000 00:00 0\n"
			    "5000-6000 r-xp 00000000 08:01 2 /bin/b";
	struct rec_maps_entry m;
	size_t pos = 0;
	uint64_t bad = 0;
	int n = 0;

	while (rec_maps_next(text, strlen(text), &pos, &m, &bad) == 1)
		n++;
	ck_assert_int_eq(n, 3);
	ck_assert_uint_eq(bad, 1);
	path_is(&m, "/bin/b");
}
END_TEST

START_TEST(own_maps_hold_our_program)
{
	struct sp_buf b = SP_BUF_INIT;
	char exe[PATH_MAX];
	struct rec_maps_entry m;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t pos = 0;
	bool found = false;

	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	ck_assert_int_eq(rec_maps_read(getpid(), &b), 0);
	ck_assert_uint_gt(b.len, 0);
	while (rec_maps_next((const char *)b.data, b.len, &pos, &m, NULL))
		if (rec_maps_is_module(&m) && m.path_len == (size_t)n &&
		    !memcmp(m.path, exe, (size_t)n))
			found = true;
	ck_assert(found);
	ck_assert_int_eq(rec_maps_read(-5, &b), -ENOENT);
	sp_buf_release(&b);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_maps");
	TCase *tc = tcase_create("parse");
	TCase *tr = tcase_create("read");

	tcase_add_test(tc, file_mapping);
	tcase_add_test(tc, paths_with_spaces_and_deleted_files);
	tcase_add_test(tc, anonymous_and_special_mappings);
	tcase_add_test(tc, malformed_lines_are_rejected);
	tcase_add_test(tc, bounded_by_length_not_nul);
	tcase_add_test(tc, walk_counts_bad_lines);
	tcase_add_test(tr, own_maps_hold_our_program);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tr);
	return ck_run(s);
}
