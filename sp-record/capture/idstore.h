/*
 * idstore.h: module files kept by GNU build id in a build-id tree on
 * disk, DIR/.build-id/xx/rest for build id xxrest: the layout
 * sp-symbolize(1) looks a lost module up in (sp-symbolize/image/idtree.h),
 * under its symbol cache's directory or a --debug-dir.
 *
 * The tree is never another user's: DIR and every directory made under
 * it are opened without following a symbolic link and used only when
 * they belong to the running user and nobody else may write them (as
 * sp-symbolize's cache checks its directory); what is made is mode 0700
 * (directories) and 0600 (files).  A file is written whole into a
 * temporary file beside its final name and renamed over it, so a
 * reader sees a complete file or none.  The tree is bounded by removing
 * its least recently used entries (rec_idstore_prune).
 */
#ifndef SP_RECORD_CAPTURE_IDSTORE_H
#define SP_RECORD_CAPTURE_IDSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_idstore;

/*
 * The tree under `dir` (copied), which is made with its missing parents
 * (mode 0700) when absent.  Returns NULL with errno set: ELOOP or
 * ENOTDIR when it is a symbolic link or no directory, EPERM when it is
 * another user's or writable by others, ENOMEM, or the error of making
 * it.
 */
struct rec_idstore *rec_idstore_open(const char *dir);
/* NULL is allowed. */
void rec_idstore_free(struct rec_idstore *s);
/* The directory given to rec_idstore_open(). */
const char *rec_idstore_dir(const struct rec_idstore *s);

/*
 * Whether build id `hex` (lowercase, 4 to 128 digits) has a regular
 * file in the tree already.
 */
bool rec_idstore_has(struct rec_idstore *s, const char *hex);

/*
 * Marks the file of build id `hex` used now (its access time; its
 * modification time, by which sp-symbolize knows a file, stays), so
 * that pruning takes it late.  Nothing happens when it is absent.
 */
void rec_idstore_touch(struct rec_idstore *s, const char *hex);

/* What a pruning removed. */
struct rec_idstore_pruned {
	uint64_t files, bytes;
};

/*
 * Bounds the tree to `max` bytes of files: when its files add up to
 * more, removes them least recently used first (the later of their
 * access and modification times), never one used at or after
 * `keep_since_ns` (wall-clock nanoseconds: the recording's own), which
 * may leave the tree above `max`.  Only the tree's own entries count
 * and go: regular files of the running user named by build id
 * (.build-id/xx/rest, hex digits), and JIT files in .jit (see
 * rec_idstore_put_jit), in directories that pass the checks above; no symbolic
 * link is followed, and a temporary file, any other name or another user's file
 * is left alone.  Adds what it removed to *out.  Returns 0, or a negative errno
 * when the tree could not be read (ENOENT, no tree yet, is 0).
 */
int rec_idstore_prune(struct rec_idstore *s, uint64_t max,
		      int64_t keep_since_ns, struct rec_idstore_pruned *out);

/*
 * Writes the first `len` bytes of `fd` (read with pread from offset 0)
 * as the file of build id `hex`.  Returns 0, -EINVAL for a bad id,
 * -EPERM when a directory of the tree is refused (see above), -EIO
 * when `fd` ended before `len` bytes, or the errno of a failed call;
 * nothing is left behind on failure.
 */
int rec_idstore_put_fd(struct rec_idstore *s, const char *hex, int fd,
		       uint64_t len);
/*
 * The same for a JIT's symbol file kept for one process (capture.h):
 * written as DIR/.jit/`name`, which must end in ".map" or ".dump" and
 * hold only lowercase letters, digits, '-' and '.' (not first, and no
 * ".tmp."), else -EINVAL; the directory is made and checked as the
 * tree's are.  Pruning counts and removes these files as it does the
 * build ids' (the same names only, regular files of the running user).
 */
int rec_idstore_put_jit(struct rec_idstore *s, const char *name, int fd,
			uint64_t len);
/* The same with the bytes in memory. */
int rec_idstore_put_mem(struct rec_idstore *s, const char *hex,
			const void *data, size_t len);

#endif
