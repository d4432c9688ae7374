/*
 * modfile.c: opening module files safely (modfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/names.h"
#include "common/openreg.h"
#include "common/spool.h"
#include "sp-record/files/filepin.h"
#include "sp-record/files/modfile.h"
#include "common/banned.h"

int
rec_modfile_open_path(const char *path, uint64_t inode, struct stat *st)
{
	int fd = sp_open_regular(AT_FDCWD, path, false, st);

	if (fd >= 0 && inode && st->st_ino != inode) {
		close(fd);
		fd = -EINVAL;
	}
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

static bool
is_deleted(const struct sp_module *m)
{
	size_t len = strlen(m->path);

	return sp_module_path_undeleted(m->path, len) != len;
}

static int
open_map_files(const struct sp_module *m, int32_t pid, struct stat *st)
{
	char path[96];

	snprintf(path, sizeof(path),
		 "/proc/%" PRId32 "/map_files/%" PRIx64 "-%" PRIx64, pid,
		 m->start, m->end);
	return rec_modfile_open_path(path, 0, st);
}

/*
 * The process's executable, when it is the module's inode: reachable
 * without CAP_SYS_ADMIN once deleted or replaced, where map_files is not.
 */
static int
open_exe(const struct sp_module *m, int32_t pid, struct stat *st)
{
	char path[48];

	snprintf(path, sizeof(path), "/proc/%" PRId32 "/exe", pid);
	return rec_modfile_open_path(path, m->inode, st);
}

int
rec_modfile_open(const struct sp_module *m, int32_t pid,
		 struct rec_filepin *pins, struct stat *st)
{
	char alt[4200];
	bool deleted = is_deleted(m);
	int fd = -1;

	if (pid > 0 && deleted)
		fd = open_map_files(m, pid, st);
	if (fd < 0 && m->path[0] == '/')
		fd = rec_modfile_open_path(m->path, m->inode, st);
	if (fd < 0 && pid > 0 && !deleted)
		fd = open_map_files(m, pid, st);
	if (fd < 0 && pid > 0 && m->inode)
		fd = open_exe(m, pid, st);
	if (fd < 0 && pid > 0 && m->path[0] == '/' &&
	    snprintf(alt, sizeof(alt), "/proc/%" PRId32 "/root%s", pid,
		     m->path) < (int)sizeof(alt))
		fd = rec_modfile_open_path(alt, m->inode, st);
	/* The process may be gone already: its file pinned on mapping. */
	if (fd < 0)
		fd = rec_filepin_open(pins, m, st);
	return fd;
}
