/*
 * check_record_capture.c: what the capture part may open and write.
 * capfile.c resolves a module's path inside its process's root and never
 * leaves it (a symbolic link out of a chroot, absolute or with ".."),
 * and never opens a FIFO; idstore.c writes a file whole (0600 in 0700
 * directories), refuses a tree that is a symbolic link or another
 * user's, and prunes only its own entries; filepin.c holds a mapped
 * file past its deletion, never a FIFO, at most REC_FILEPIN_MAX, and
 * not past the processes that mapped it.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/spool.h"
#include "sp-record/files/capfile.h"
#include "sp-record/files/filepin.h"
#include "sp-record/capture/idstore.h"
#include "tests/unit/skip.h"

static char dir[] = "/tmp/sp-capture-XXXXXX";

/* `text` as the file DIR/name. */
static void
put(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* Removes DIR and what it holds. */
static void
remove_dir(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* A child chrooted into DIR/root, waiting to be killed; its pid. */
static pid_t
jailed(void)
{
	char root[PATH_MAX];
	int ready[2];
	pid_t pid;
	char c;

	snprintf(root, sizeof(root), "%s/root", dir);
	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		c = chroot(root) == 0 && chdir("/") == 0 ? 'y' : 'n';
		(void)!write(ready[1], &c, 1);
		pause();
		_exit(0);
	}
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	close(ready[1]);
	ck_assert_int_eq(c, 'y');
	return pid;
}

/* Opens `path` of process `pid` as the capture would; -1 or the fd. */
static int
open_as(pid_t pid, const char *path, uint64_t inode)
{
	enum rec_capfile_via via;
	struct sp_module m;
	struct stat st;

	memset(&m, 0, sizeof(m));
	m.pid = pid;
	m.start = 0x10000; /* no such mapping: map_files fails */
	m.end = 0x20000;
	m.inode = inode;
	m.path = path;
	m.path_len = strlen(path);
	return rec_capfile_process(&m, &st, &via);
}

START_TEST(root_is_never_left)
{
	char buf[32];
	ssize_t n;
	pid_t pid;
	int fd;

	if (geteuid() != 0) {
		unit_skip("chroot needs root");
		return;
	}
	ck_assert_ptr_nonnull(mkdtemp(dir));
	put("outside", "outside\n");
	{
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/root", dir);
		ck_assert_int_eq(mkdir(p, 0700), 0);
		put("root/inside", "inside\n");
		snprintf(p, sizeof(p), "%s/root/up", dir);
		ck_assert_int_eq(symlink("../../../../../../../..", p), 0);
		snprintf(p, sizeof(p), "%s/root/climb", dir);
		ck_assert_int_eq(symlink("../outside", p), 0);
		snprintf(p, sizeof(p), "%s/root/abs", dir);
		ck_assert_int_eq(symlink("/inside", p), 0);
		snprintf(p, sizeof(p), "%s/root/fifo", dir);
		ck_assert_int_eq(mkfifo(p, 0600), 0);
	}
	pid = jailed();
	/* A file inside, and an absolute link, resolve inside the root. */
	fd = open_as(pid, "/inside", 0);
	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf));
	ck_assert_int_eq(n, 7);
	close(fd);
	fd = open_as(pid, "/abs", 0);
	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf));
	ck_assert_int_eq(n, 7);
	ck_assert_int_eq(memcmp(buf, "inside\n", 7), 0);
	close(fd);
	/* ".." out of the root stays at the root: DIR/outside is never
	 * reached, however the path climbs. */
	ck_assert_int_lt(open_as(pid, "/climb", 0), 0);
	{
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "/up%s/outside", dir);
		ck_assert_int_lt(open_as(pid, p, 0), 0);
	}
	/* A FIFO is refused without being opened. */
	errno = 0;
	ck_assert_int_lt(open_as(pid, "/fifo", 0), 0);
	ck_assert_int_eq(errno, EINVAL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	remove_dir();
}
END_TEST

START_TEST(store_writes_whole_private_files)
{
	static const char hex[] = "abcdef0123";
	char path[PATH_MAX];
	struct rec_idstore *s;
	struct stat st;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tree/deep", dir);
	s = rec_idstore_open(path);
	ck_assert_ptr_nonnull(s);
	ck_assert(!rec_idstore_has(s, hex));
	ck_assert_int_eq(rec_idstore_put_mem(s, hex, "0123456789", 10), 0);
	ck_assert(rec_idstore_has(s, hex));
	ck_assert_int_eq(rec_idstore_put_mem(s, "xyz", "0", 1), -EINVAL);
	snprintf(path, sizeof(path), "%s/tree/deep/.build-id/ab/cdef0123", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(st.st_size, 10);
	snprintf(path, sizeof(path), "%s/tree/deep/.build-id/ab", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	/* From a descriptor that ends early: an error, nothing left. */
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(rec_idstore_put_fd(s, "abcd00", fd, 5), -EIO);
	close(fd);
	ck_assert(!rec_idstore_has(s, "abcd00"));
	rec_idstore_free(s);

	/* A symbolic link as the tree, or a tree others may write: no. */
	snprintf(path, sizeof(path), "%s/link", dir);
	ck_assert_int_eq(symlink("tree", path), 0);
	errno = 0;
	ck_assert_ptr_null(rec_idstore_open(path));
	ck_assert(errno == ELOOP || errno == ENOTDIR);
	snprintf(path, sizeof(path), "%s/open", dir);
	ck_assert_int_eq(mkdir(path, 0777), 0);
	ck_assert_int_eq(chmod(path, 0777), 0);
	errno = 0;
	ck_assert_ptr_null(rec_idstore_open(path));
	ck_assert_int_eq(errno, EPERM);
	remove_dir();
}
END_TEST

/* Sets both times of DIR/name to `ago` seconds before now. */
static void
age(const char *name, long ago)
{
	char path[PATH_MAX];
	struct timespec t[2];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= ago;
	t[1] = t[0];
	ck_assert_int_eq(utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW), 0);
}

static bool
exists(const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return lstat(path, &st) == 0;
}

/* Makes DIR/name: a directory, or with `to`, a symbolic link to it. */
static void
make(const char *name, const char *to)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(to ? symlink(to, path) : mkdir(path, 0700), 0);
}

/* Wall-clock nanoseconds `ago` seconds before now. */
static int64_t
ns_ago(long ago)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return ((int64_t)t.tv_sec - ago) * 1000000000 + t.tv_nsec;
}

/*
 * Pruning removes the tree's own entries, least recently used first,
 * down to the bound, and never one used since the recording began; it
 * follows no link and leaves other names and other users' files.
 */
START_TEST(store_prunes_oldest_first)
{
	static const char *const ids[4] = { "aa01", "aa02", "bb03", "cc04" };
	static const char *const others[] = {
		"tree/.build-id/aa/README",
		"tree/.build-id/aa/0102.tmp.1.2",
		"tree/.build-id/aa/012",
		"out",
		"outdir/0011",
		"tree/.build-id/dd/ee05",
	};
	struct rec_idstore_pruned pr = { 0, 0 };
	char path[PATH_MAX], name[64], buf[100] = { 0 };
	struct rec_idstore *s;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tree", dir);
	s = rec_idstore_open(path);
	ck_assert_ptr_nonnull(s);
	/* nothing to prune before the tree has a .build-id */
	ck_assert_int_eq(rec_idstore_prune(s, 0, ns_ago(0), &pr), 0);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(rec_idstore_put_mem(s, ids[i], buf, 100), 0);
		snprintf(name, sizeof(name), "tree/.build-id/%.2s/%s", ids[i],
			 ids[i] + 2);
		age(name, 4000 - 1000 * (long)i);
	}
	rec_idstore_touch(s, "aa01"); /* the oldest, used just now */
	/* Hostile: other names, links out of the tree, all old. */
	make("outdir", NULL);
	make("tree/.build-id/dd", NULL);
	make("tree/.build-id/ff", "../../outdir");
	make("tree/.build-id/dd/ee05", "../../../out");
	for (i = 0; i < 5; i++) {
		put(others[i], "not an entry of the tree");
		age(others[i], 9000);
	}
	if (geteuid() == 0) { /* another user's entry */
		put("tree/.build-id/bb/9999", "nobody's");
		age("tree/.build-id/bb/9999", 9000);
		snprintf(path, sizeof(path), "%s/tree/.build-id/bb/9999", dir);
		ck_assert_int_eq(chown(path, 65534, 65534), 0);
	}

	ck_assert_int_eq(rec_idstore_prune(s, 250, ns_ago(100), &pr), 0);
	ck_assert_uint_eq(pr.files, 2);
	ck_assert_uint_eq(pr.bytes, 200);
	ck_assert(exists("tree/.build-id/aa/01"));
	ck_assert(!exists("tree/.build-id/aa/02"));
	ck_assert(!exists("tree/.build-id/bb/03"));
	ck_assert(exists("tree/.build-id/cc/04"));
	/* Down to nothing: what was used since the start stays. */
	ck_assert_int_eq(rec_idstore_prune(s, 0, ns_ago(100), &pr), 0);
	ck_assert_uint_eq(pr.files, 3);
	ck_assert(exists("tree/.build-id/aa/01"));
	ck_assert(!exists("tree/.build-id/cc/04"));
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		ck_assert_msg(exists(others[i]), "'%s' was removed", others[i]);
	ck_assert(geteuid() != 0 || exists("tree/.build-id/bb/9999"));
	rec_idstore_free(s);
	remove_dir();
}
END_TEST

/*
 * A JIT's files go to DIR/.jit under names no temporary file or other
 * name takes, written as module files are, and count in the tree's
 * bound: pruned oldest first, never a link, a temporary file or another
 * name there.
 */
START_TEST(store_keeps_jit_files)
{
	static const char *const bad[] = { ".x.map", "a/b.map", "x.tmp.1.map",
					   "x.txt",  "X.map",   "" };
	static const char *const others[] = { "tree/.jit/b-2.map.tmp.1.2",
					      "tree/.jit/notes" };
	struct rec_idstore_pruned pr = { 0, 0 };
	char path[PATH_MAX];
	struct rec_idstore *s;
	struct stat st;
	size_t i;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	put("src", "1000 10 jit_fn\n");
	snprintf(path, sizeof(path), "%s/src", dir);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	snprintf(path, sizeof(path), "%s/tree", dir);
	s = rec_idstore_open(path);
	ck_assert_ptr_nonnull(s);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(rec_idstore_put_jit(s, bad[i], fd, 15),
				 -EINVAL);
	ck_assert_int_eq(rec_idstore_put_jit(s, "a-1-7.map", fd, 15), 0);
	ck_assert_int_eq(rec_idstore_put_jit(s, "a-1-7.dump", fd, 15), 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/tree/.jit/a-1-7.map", dir);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0600);
	ck_assert_int_eq(st.st_size, 15);
	age("tree/.jit/a-1-7.map", 2000);
	age("tree/.jit/a-1-7.dump", 1000);
	for (i = 0; i < 2; i++) {
		put(others[i], "not an entry");
		age(others[i], 9000);
	}
	make("outdir", NULL);
	put("outdir/c-3.map", "outside");
	age("outdir/c-3.map", 9000);
	make("tree/.jit/c-3.map", "../../outdir/c-3.map");
	ck_assert_int_eq(rec_idstore_prune(s, 20, ns_ago(100), &pr), 0);
	ck_assert_uint_eq(pr.files, 1);
	ck_assert_uint_eq(pr.bytes, 15);
	ck_assert(!exists("tree/.jit/a-1-7.map"));
	ck_assert(exists("tree/.jit/a-1-7.dump"));
	for (i = 0; i < 2; i++)
		ck_assert_msg(exists(others[i]), "'%s' was removed", others[i]);
	ck_assert(exists("tree/.jit/c-3.map") && exists("outdir/c-3.map"));
	rec_idstore_free(s);

	/* A .jit that is a link: nothing written through it. */
	snprintf(path, sizeof(path), "%s/tree2", dir);
	s = rec_idstore_open(path);
	ck_assert_ptr_nonnull(s);
	make("tree2/.jit", "../outdir");
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_lt(rec_idstore_put_jit(s, "d-4.map", fd, 0), 0);
	close(fd);
	ck_assert(!exists("outdir/d-4.map"));
	rec_idstore_free(s);
	remove_dir();
}
END_TEST

/* Pins DIR/name as a mapping of process `pid` would; its inode. */
static uint64_t
pin_as(struct rec_filepin *f, int32_t pid, const char *name)
{
	char path[PATH_MAX];
	struct rec_filepin_map m;
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_int_eq(lstat(path, &st), 0);
	m = (struct rec_filepin_map){
		pid,       0x10000, 0x20000, major(st.st_dev), minor(st.st_dev),
		st.st_ino, path
	};
	rec_filepin_mapped(f, &m);
	return st.st_ino;
}

static uint64_t
pin(struct rec_filepin *f, const char *name)
{
	return pin_as(f, getpid(), name);
}

/* The pinned file DIR/name`suffix` of `inode`: its first byte, or -1. */
static int
pinned_byte(struct rec_filepin *f, const char *name, const char *suffix,
	    uint64_t inode)
{
	char path[PATH_MAX], c;
	struct sp_module m;
	struct stat st;
	int fd, n;

	snprintf(path, sizeof(path), "%s/%s%s", dir, name, suffix);
	memset(&m, 0, sizeof(m));
	m.pid = getpid();
	m.inode = inode;
	m.path = path;
	m.path_len = strlen(path);
	fd = rec_filepin_open(f, &m, &st);
	if (fd < 0)
		return -1;
	n = (int)read(fd, &c, 1);
	close(fd);
	return n == 1 ? c : -1;
}

START_TEST(pins_outlive_the_path_and_stay_bounded)
{
	char name[32], path[PATH_MAX];
	struct rec_filepin *f = rec_filepin_new(), *g;
	uint64_t lib, ino, f0 = 0;
	int i;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	put("lib.so", "L");
	lib = pin(f, "lib.so");
	snprintf(path, sizeof(path), "%s/lib.so", dir);
	ck_assert_int_eq(unlink(path), 0);
	/* Deleted since: found by its inode, at its path as maps say it. */
	ck_assert_int_eq(pinned_byte(f, "lib.so", " (deleted)", lib), 'L');
	ck_assert_int_eq(pinned_byte(f, "lib.so", "", lib), 'L');
	ck_assert_int_eq(pinned_byte(f, "other.so", "", lib), -1);
	ck_assert_int_eq(pinned_byte(f, "lib.so", "", lib + 1), -1);
	/* Each table holds its own pins; no table holds none. */
	g = rec_filepin_new();
	ck_assert_int_eq(pinned_byte(g, "lib.so", "", lib), -1);
	rec_filepin_free(g);
	ck_assert_int_eq(pinned_byte(NULL, "lib.so", "", lib), -1);
	ck_assert_uint_eq(rec_filepin_stats(f)->pinned, 1);
	/* A FIFO is never held, nor opened. */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ino = pin(f, "fifo");
	ck_assert_int_eq(pinned_byte(f, "fifo", "", ino), -1);
	ck_assert_uint_eq(rec_filepin_stats(f)->unopened, 1);
	/* Past the bound, the file mapped least recently goes. */
	for (i = 0; i < REC_FILEPIN_MAX; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		put(name, "F");
		ino = pin(f, name);
		f0 = f0 ? f0 : ino;
	}
	ck_assert_uint_eq(rec_filepin_stats(f)->evicted, 1);
	ck_assert_int_eq(pinned_byte(f, "lib.so", "", lib), -1);
	ck_assert_int_eq(pinned_byte(f, name, "", ino), 'F');
	/* A pin goes with the last process that mapped it. */
	ck_assert_uint_eq(pin_as(f, 1, name), ino);
	ck_assert_int_eq(pinned_byte(f, "f0", "", f0), 'F');
	rec_filepin_retire(f, getpid());
	ck_assert_int_eq(pinned_byte(f, name, "", ino), 'F');
	ck_assert_int_eq(pinned_byte(f, "f0", "", f0), -1);
	rec_filepin_retire(f, 1);
	ck_assert_int_eq(pinned_byte(f, name, "", ino), -1);
	rec_filepin_free(f);
	remove_dir();
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_capture");
	TCase *tc = tcase_create("opens and writes");

	tcase_add_test(tc, root_is_never_left);
	tcase_add_test(tc, store_writes_whole_private_files);
	tcase_add_test(tc, store_prunes_oldest_first);
	tcase_add_test(tc, store_keeps_jit_files);
	tcase_add_test(tc, pins_outlive_the_path_and_stay_bounded);
	suite_add_tcase(s, tc);
	return unit_run(srunner_create(s));
}
