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
 * used (it need not exist yet), else -EPERM with `why` (of
 * `len` bytes) saying what it is, e.g. "a filesystem root", with its
 * real path when that is not `dir`.  A directory that exists is judged
 * by its real path: a filesystem root or mount point, one of the
 * system's top-level directories or their children under /usr and /var,
 * a pseudo filesystem (proc, sysfs, cgroup...).  (One another user owns
 * or others may write is the build-id store's to refuse, idstore.h: it
 * keeps nothing there and says so.)
 */
int rec_capdir_check(const char *dir, char *why, size_t len);

#endif
