/*
 * modkind.h: what a module's path says of it, before any file is
 * opened: whether it is a Python interpreter or libpython (its frames
 * are the runtime's), and whether it is anonymous code that a perf map
 * may name (JIT code).
 */
#ifndef SP_SYMBOLIZE_MODKIND_H
#define SP_SYMBOLIZE_MODKIND_H

#include <stdbool.h>
#include <stddef.h>

/* True for the basename of a Python interpreter or libpython. */
bool sym_is_python_runtime(const char *base, size_t len);
/* True for a mapping a perf map may override (anonymous code). */
bool sym_perf_map_may_override(const char *path);

#endif
