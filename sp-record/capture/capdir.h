/*
 * capdir.h: whether a directory may hold the capture's build-id tree.
 * sp-record often runs as root and writes `.build-id/` under the
 * directory given, so a slip (`--capture-dir /`) must not plant a tree
 * in a filesystem root, a system directory or one anybody can write.
 */
#ifndef SP_RECORD_CAPTURE_CAPDIR_H
#define SP_RECORD_CAPTURE_CAPDIR_H

#include <stddef.h>

/*
 * Whether `dir` is refused as a capture directory: 0 when it may be
 * used (it need not exist yet), else a negative errno with `why` (of
 * `len` bytes) saying what it is, e.g. "a filesystem root", with its
 * real path when that is not `dir`.  A directory that exists is judged
 * by its real path.  -EPERM, which the user may override: a filesystem
 * root or mount point, one of the system's top-level directories or
 * their children under /usr and /var, a pseudo filesystem (proc,
 * sysfs, cgroup...).  -EACCES, which nothing overrides (the build-id
 * store keeps files only in a directory that is ours alone, idstore.h):
 * one another user owns or others may write.
 */
int rec_capdir_check(const char *dir, char *why, size_t len);

#endif
