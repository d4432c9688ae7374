/*
 * capdir.c: which directories the capture refuses (capdir.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <linux/magic.h>

#include "sp-record/capture/capdir.h"
#include "common/banned.h"

/* The system's own directories: the top level, as the FHS names it. */
static const char *const system_dirs[] = {
	"/",    "/bin",   "/boot",  "/dev",    "/etc",   "/home",
	"/lib", "/lib32", "/lib64", "/libx32", "/media", "/mnt",
	"/opt", "/proc",  "/root",  "/run",    "/sbin",  "/srv",
	"/sys", "/tmp",   "/usr",   "/var",
};

/* Filesystems that hold no files of anyone's: the kernel's views. */
static const long pseudo_fs[] = {
	PROC_SUPER_MAGIC, SYSFS_MAGIC,        DEBUGFS_MAGIC,
	TRACEFS_MAGIC,    CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
	BPF_FS_MAGIC,     SECURITYFS_MAGIC,   DEVPTS_SUPER_MAGIC,
};

/* Whether real path `p` is a system directory or a child of /usr, /var. */
static bool
is_system(const char *p)
{
	size_t i;

	for (i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (!strcmp(p, system_dirs[i]))
			return true;
	return (!strncmp(p, "/usr/", 5) && !strchr(p + 5, '/')) ||
	       (!strncmp(p, "/var/", 5) && !strchr(p + 5, '/'));
}

/* Whether real path `p` is a mount point: its parent is another device. */
static bool
is_mount_point(const char *p, const struct stat *st)
{
	char parent[PATH_MAX + 4];
	struct stat up;

	if (snprintf(parent, sizeof(parent), "%s/..", p) >= (int)sizeof(parent))
		return false;
	return stat(parent, &up) == 0 &&
	       (up.st_dev != st->st_dev || up.st_ino == st->st_ino);
}

/* Whether real path `p` is on a filesystem of the kernel's own. */
static bool
is_pseudo(const char *p)
{
	struct statfs fs;
	size_t i;

	if (statfs(p, &fs))
		return false;
	for (i = 0; i < sizeof(pseudo_fs) / sizeof(pseudo_fs[0]); i++)
		if (fs.f_type == pseudo_fs[i])
			return true;
	return false;
}

/* What real path `p` (of stat `st`) is that a capture refuses, or NULL. */
static const char *
refused_kind(const char *p, const struct stat *st)
{
	if (is_system(p))
		return "a system directory";
	if (is_pseudo(p))
		return "a kernel pseudo filesystem";
	if (is_mount_point(p, st))
		return "a filesystem root";
	return NULL;
}

int
rec_capdir_check(const char *dir, char *why, size_t len)
{
	const char *what = NULL;
	char *real = realpath(dir, NULL);
	struct stat st;

	/* made later, or gone since: the capture says what it finds */
	if (real && stat(real, &st) == 0)
		what = refused_kind(real, &st);
	if (what && strcmp(real, dir))
		snprintf(why, len, "%s ('%s')", what, real);
	else if (what)
		snprintf(why, len, "%s", what);
	free(real);
	return what ? -EPERM : 0;
}
