/*
 * check_record_filememo.c: what the recorder learns from a file is kept
 * by the file's identity (sp-record/filememo.c): the same file read by
 * two processes is read once (the Python finder, sp-record/pyfind.c, on
 * two live processes running one copied binary), a file rewritten in
 * place or replaced under the same path is read again, and the memo
 * keeps at most its bound.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "sp-record/files/filememo.h"
#include "sp-record/python/pyfind.h"

static void
id_of(const char *path, struct rec_filememo_id *id)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	rec_filememo_id_of(&st, id);
}

/*
 * Moves the file's modification time a second on: a write within the
 * clock's granularity would otherwise leave it unchanged.
 */
static void
later(const char *path)
{
	struct timespec t[2] = { { 0, UTIME_OMIT }, { 0, 0 } };
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	t[1].tv_sec = st.st_mtim.tv_sec + 1;
	ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* Writes `text` over the file in place: the same inode. */
static void
rewrite(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	later(path);
}

START_TEST(same_file_one_value)
{
	char path[] = "/tmp/sp-memo-XXXXXX";
	struct rec_filememo *m = rec_filememo_new(sizeof(int), 4);
	struct rec_filememo_id a, b;
	int fd = mkstemp(path), v = 7, got = 0;

	ck_assert_ptr_nonnull(m);
	ck_assert_int_ge(fd, 0);
	close(fd);
	id_of(path, &a);
	ck_assert(!rec_filememo_get(m, &a, &got));
	ck_assert_int_eq(rec_filememo_put(m, &a, &v), 0);
	id_of(path, &b); /* another look at the same file */
	ck_assert(rec_filememo_get(m, &b, &got));
	ck_assert_int_eq(got, 7);
	rewrite(path, "new contents");
	id_of(path, &b);
	ck_assert(!rec_filememo_get(m, &b, &got));
	ck_assert(rec_filememo_get(m, &a, &got)); /* the old one stays */
	ck_assert_uint_eq(rec_filememo_count(m), 1);
	rec_filememo_free(m);
	unlink(path);
}
END_TEST

START_TEST(bounded_oldest_dropped)
{
	struct rec_filememo *m = rec_filememo_new(sizeof(int), 3);
	struct rec_filememo_id id[5];
	int i, got;

	ck_assert_ptr_nonnull(m);
	memset(id, 0, sizeof(id));
	for (i = 0; i < 5; i++) {
		id[i].ino = 100 + (uint64_t)i;
		ck_assert_int_eq(rec_filememo_put(m, &id[i], &i), 0);
		ck_assert_uint_le(rec_filememo_count(m), 3);
	}
	ck_assert_uint_eq(rec_filememo_count(m), 3);
	ck_assert(!rec_filememo_get(m, &id[0], &got));
	ck_assert(!rec_filememo_get(m, &id[1], &got));
	for (i = 2; i < 5; i++) {
		ck_assert(rec_filememo_get(m, &id[i], &got));
		ck_assert_int_eq(got, i);
	}
	i = 42; /* a value put again replaces, it is not a new one */
	ck_assert_int_eq(rec_filememo_put(m, &id[3], &i), 0);
	ck_assert(rec_filememo_get(m, &id[3], &got));
	ck_assert_int_eq(got, 42);
	ck_assert(rec_filememo_get(m, &id[2], &got));
	rec_filememo_free(m);
}
END_TEST

/* Copies file `from` to `to` (mode 0700); through a new inode. */
static void
copy_file(const char *from, const char *to)
{
	char tmp[256], buf[65536];
	ssize_t n;
	int in, out;

	snprintf(tmp, sizeof(tmp), "%s.new", to);
	in = open(from, O_RDONLY);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(out, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	ck_assert_int_eq(rename(tmp, to), 0);
}

/* Runs `path` (a copy of sleep) until killed; returns once it ran exec. */
static pid_t
start(const char *path)
{
	char c;
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		execl(path, path, "60", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 0); /* closed by the exec */
	close(p[0]);
	return pid;
}

static void
stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* rec_pyfind on `pid` (not Python) and how many files it read. */
static uint64_t
scans_for(struct rec_pyfind_files *files, pid_t pid)
{
	struct sp_buf why = SP_BUF_INIT;
	struct rec_pyfind_target t;
	uint64_t before = rec_pyfind_files_scans(files);

	ck_assert_int_eq(rec_pyfind(files, pid, &t, &why), -ENOENT);
	sp_buf_release(&why);
	return rec_pyfind_files_scans(files) - before;
}

START_TEST(pyfind_reads_a_file_once)
{
	char dir[] = "/tmp/sp-memo-XXXXXX", path[128];
	struct rec_pyfind_files *files = rec_pyfind_files_new();
	pid_t a, b;

	ck_assert_ptr_nonnull(files);

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sl", dir);
	if (access("/bin/sleep", X_OK) != 0) {
		rec_pyfind_files_free(files);
		return; /* nothing to copy */
	}
	copy_file("/bin/sleep", path);
	a = start(path);
	b = start(path);
	ck_assert_uint_eq(scans_for(files, a), 1);
	ck_assert_uint_eq(scans_for(files, b), 0); /* the same file, shared */
	ck_assert_uint_eq(scans_for(files, a), 0);
	stop(a);
	stop(b);
	/* Replaced under the same path: a new inode, read again. */
	copy_file("/bin/sleep", path);
	a = start(path);
	ck_assert_uint_eq(scans_for(files, a), 1);
	stop(a);
	/* Changed in place: the same inode, another time, read again. */
	later(path);
	a = start(path);
	ck_assert_uint_eq(scans_for(files, a), 1);
	ck_assert_uint_eq(scans_for(files, a), 0);
	stop(a);
	unlink(path);
	rmdir(dir);
	rec_pyfind_files_free(files);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_filememo");
	TCase *tc = tcase_create("memo");

	/* Check's 4 s of wall clock is not enough on a loaded machine. */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, same_file_one_value);
	tcase_add_test(tc, bounded_oldest_dropped);
	tcase_add_test(tc, pyfind_reads_a_file_once);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
