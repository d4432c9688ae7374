/*
 * openreg.c: opening regular input files only (see openreg.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/openreg.h"
#include "common/banned.h"

/*
 * Opens the file behind the O_PATH descriptor `pfd` for reading.  The
 * /proc link reopens that very inode; without /proc mounted, the name is
 * opened again (when there is one), never waiting (O_NONBLOCK) nor
 * taking a terminal (O_NOCTTY), and kept only when it is still the file
 * checked.
 */
static int
reopen(int pfd, int dirfd, const char *name, bool nofollow,
       const struct stat *st)
{
	char proc[40];
	struct stat now;
	int fd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0 || errno != ENOENT || !name)
		return fd >= 0 ? fd : -errno;
	fd = openat(dirfd, name,
		    O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
			(nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &now) || now.st_dev != st->st_dev ||
	    now.st_ino != st->st_ino) {
		close(fd);
		return -EAGAIN;
	}
	/* Regular files ignore O_NONBLOCK; clear it all the same. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* The checks and the reopen of `pfd`, which the caller closes. */
static int
checked_reopen(int pfd, int dirfd, const char *name, bool nofollow,
	       struct stat *st)
{
	if (fstat(pfd, st))
		return -errno;
	if (S_ISLNK(st->st_mode))
		return -ELOOP; /* O_PATH | O_NOFOLLOW opened the link itself */
	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	return reopen(pfd, dirfd, name, nofollow, st);
}

int
sp_open_regular(int dirfd, const char *name, bool nofollow, struct stat *st)
{
	int pfd, fd;

	memset(st, 0, sizeof(*st));
	pfd = openat(dirfd, name,
		     O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (pfd < 0)
		return -errno;
	fd = checked_reopen(pfd, dirfd, name, nofollow, st);
	close(pfd);
	return fd;
}

int
sp_open_regular_path(int pfd, struct stat *st)
{
	int fd;

	memset(st, 0, sizeof(*st));
	if (pfd < 0)
		return -EBADF;
	fd = checked_reopen(pfd, AT_FDCWD, NULL, false, st);
	close(pfd);
	return fd;
}
