/*
 * capfile.c: opening a sampled module's file to keep it (capfile.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/names.h"
#include "common/openreg.h"
#include "common/spool.h"
#include "sp-record/files/capfile.h"
#include "common/banned.h"

/*
 * Opens for reading the file an O_PATH descriptor `pfd` names, when it
 * is a regular file; closes `pfd`.  Returns the descriptor or -1 with
 * errno set (EINVAL: not a regular file).
 */
static int
reopen_regular(int pfd, struct stat *st)
{
	int fd;

	if (pfd < 0)
		return -1;
	if ((fd = sp_open_regular_path(pfd, st)) < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

int
rec_capfile_host(const char *path, struct stat *st)
{
	return reopen_regular(open(path, O_PATH | O_CLOEXEC), st);
}

static bool
is_deleted(const struct sp_module *m)
{
	return sp_module_path_undeleted(m->path, m->path_len) != m->path_len;
}

static int
open_map_files(const struct sp_module *m, struct stat *st)
{
	char path[96];

	snprintf(path, sizeof(path),
		 "/proc/%" PRId32 "/map_files/%" PRIx64 "-%" PRIx64, m->pid,
		 m->start, m->end);
	return reopen_regular(open(path, O_PATH | O_CLOEXEC), st);
}

/* Whether O_PATH descriptor `pfd` is a regular file of `inode`. */
static bool
same_inode(int pfd, uint64_t inode, struct stat *st)
{
	return fstat(pfd, st) == 0 && S_ISREG(st->st_mode) &&
	       st->st_ino == inode;
}

/*
 * The module's inode as the process holds it: its executable, or a
 * descriptor it keeps open (a memfd).  /proc/PID/exe and /proc/PID/fd
 * need no more than reading the process's memory does, where map_files
 * needs CAP_SYS_ADMIN, and reach a file deleted or replaced since.
 */
static int
open_held(const struct sp_module *m, struct stat *st)
{
	char dir[48];
	struct dirent *e;
	int pfd, fd = -1;
	DIR *d;

	if (!m->inode)
		return -1;
	snprintf(dir, sizeof(dir), "/proc/%" PRId32 "/exe", m->pid);
	pfd = open(dir, O_PATH | O_CLOEXEC);
	if (pfd >= 0 && same_inode(pfd, m->inode, st))
		return reopen_regular(pfd, st);
	if (pfd >= 0)
		close(pfd);
	snprintf(dir, sizeof(dir), "/proc/%" PRId32 "/fd", m->pid);
	if (!(d = opendir(dir)))
		return -1;
	while (fd < 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		/* O_PATH: a FIFO, socket or device is never opened. */
		pfd = openat(dirfd(d), e->d_name, O_PATH | O_CLOEXEC);
		if (pfd < 0)
			continue;
		if (same_inode(pfd, m->inode, st))
			fd = reopen_regular(pfd, st);
		else
			close(pfd);
	}
	closedir(d);
	if (fd < 0)
		errno = ENOENT;
	return fd;
}

/*
 * `path` under the root `rfd` without openat2: component by component,
 * refusing symbolic links and "..", which could lead out of the root.
 * Returns an O_PATH descriptor or -1.
 */
static int
walk_in_root(int rfd, const char *path)
{
	char comp[256];
	int cur = dup(rfd), next;
	struct stat st;
	size_t n;

	while (cur >= 0 && *path) {
		path += strspn(path, "/");
		n = strcspn(path, "/");
		if (n == 0)
			break;
		if (n >= sizeof(comp) || (n == 2 && !memcmp(path, "..", 2))) {
			close(cur);
			errno = EXDEV;
			return -1;
		}
		memcpy(comp, path, n);
		comp[n] = '\0';
		path += n;
		next = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		close(cur);
		if (next >= 0 && fstat(next, &st) == 0 && S_ISLNK(st.st_mode)) {
			close(next);
			errno = ELOOP;
			return -1;
		}
		cur = next;
	}
	return cur;
}

/* `path` inside the root of process `pid`: an O_PATH descriptor or -1. */
static int
path_in_root(int32_t pid, const char *path)
{
	struct open_how how;
	char root[48];
	int rfd, pfd, e;

	snprintf(root, sizeof(root), "/proc/%" PRId32 "/root", pid);
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -1;
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	pfd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
	if (pfd < 0 && errno == ENOSYS)
		pfd = walk_in_root(rfd, path);
	e = errno;
	close(rfd);
	errno = e;
	return pfd;
}

int
rec_capfile_in_root(int32_t pid, const char *path, struct stat *st)
{
	return reopen_regular(path_in_root(pid, path), st);
}

int
rec_capfile_dir_in_root(int32_t pid, const char *path)
{
	int fd = path_in_root(pid, path);
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode))) {
		close(fd);
		errno = ENOTDIR;
		fd = -1;
	}
	return fd;
}

int
rec_capfile_at(int dirfd, const char *name, struct stat *st)
{
	if (strchr(name, '/')) {
		errno = EINVAL;
		return -1;
	}
	return reopen_regular(
	    openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), st);
}

int
rec_capfile_process(const struct sp_module *m, struct stat *st,
		    enum rec_capfile_via *via)
{
	int fd;

	if (m->pid <= 0 || m->path_len == 0 || m->path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	*via = REC_CAPFILE_MAP_FILES;
	fd = open_map_files(m, st);
	if (fd >= 0 || errno == EINVAL)
		return fd;
	*via = REC_CAPFILE_HELD;
	fd = open_held(m, st);
	if (fd >= 0 || is_deleted(m))
		return fd;
	*via = REC_CAPFILE_ROOT;
	return rec_capfile_in_root(m->pid, m->path, st);
}
