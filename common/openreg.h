/*
 * openreg.h: opening an input file only once it is known to be a
 * regular file.  Module paths, debug links and perf map names come from
 * a profiled process, the input, or directories others can write; the
 * tools often run as root, and opening a device (a serial line, a tape)
 * or a FIFO has effects of its own (a writer blocked in open(2) goes
 * on), so the type is checked on an O_PATH descriptor, which opens
 * nothing, before the very inode checked is opened for reading.
 */
#ifndef SP_OPENREG_H
#define SP_OPENREG_H

#include <stdbool.h>

#include <sys/stat.h>

/*
 * Opens `name` (relative to `dirfd`, or AT_FDCWD) for reading, close on
 * exec, after checking through an O_PATH descriptor that it is a
 * regular file; with `nofollow`, a symbolic link is refused instead of
 * followed.  Fills *st (zeroed when nothing was found).  Returns the
 * descriptor, or a negative errno: -ELOOP for a link with `nofollow`,
 * -EINVAL for anything but a regular file, or open(2)'s.
 */
int sp_open_regular(int dirfd, const char *name, bool nofollow,
		    struct stat *st);

/*
 * Opens for reading the file that O_PATH descriptor `pfd` names, when
 * it is a regular file, and always closes `pfd` (-EBADF for a negative
 * one).  Fills *st.  Returns the descriptor or a negative errno, -EINVAL
 * for anything but a regular file.
 */
int sp_open_regular_path(int pfd, struct stat *st);

#endif
