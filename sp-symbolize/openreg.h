/*
 * openreg.h: opening an input file only once it is known to be a
 * regular file.  Module paths, debug links and perf map names come from
 * the input or from directories others can write; sp-symbolize often
 * runs as root, and opening a device (a serial line, a tape) has effects
 * of its own, so the type is checked before the file is opened for
 * reading.
 */
#ifndef SP_SYMBOLIZE_OPENREG_H
#define SP_SYMBOLIZE_OPENREG_H

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
int sym_open_regular(int dirfd, const char *name, bool nofollow,
		     struct stat *st);

#endif
