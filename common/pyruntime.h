/*
 * pyruntime.h: whether a module path names a Python runtime, the
 * interpreter binary or libpython, whose frames are CPython's own.
 * sp-record asks it to decide whether to read Python stacks;
 * sp-symbolize to tie those stacks to the runtime's native frames.  Both
 * must give one answer for one path.
 *
 * The names are the ones CPython's build installs: "python", then the
 * version ("3", "3.11"), then the ABI flags configure appends, in its
 * order: "d" (a debug build, Py_DEBUG), "m" (pymalloc, up to 3.7), "u"
 * (wide unicode, up to 3.2): /usr/bin/python3.11, python3.7m,
 * python3.11d.  So a flag comes after the version, never before or
 * between its parts: "pythond3" and "python3m.1" are no runtime.  Every
 * "libpython..." is one (libpython3.11.so.1.0, libpython3.11d.so).
 * Names CPython does not install stay out: Debian's "python3.11-dbg" is
 * a symbolic link to python3.11d, the name the kernel shows in the maps
 * and /proc/PID/exe; 't', 3.13's free-threaded flag, is not taken
 * (python3.13t), though libpython3.13t.so is, as every libpython.
 */
#ifndef SP_PYRUNTIME_H
#define SP_PYRUNTIME_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Whether the file that `path` (`len` bytes, a full path or a basename)
 * names is a Python runtime, judged by its basename.  A " (deleted)"
 * the kernel appended is ignored: an interpreter replaced on disk while
 * it runs is still the runtime.
 */
bool sp_pyruntime_path(const char *path, size_t len);

#endif
