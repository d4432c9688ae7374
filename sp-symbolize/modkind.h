/*
 * modkind.h: what a module's path says of it, before any file is
 * opened: whether it is anonymous code that a perf map may name (JIT
 * code).  Whether it is a Python runtime is common/pyruntime.h's.
 */
#ifndef SP_SYMBOLIZE_MODKIND_H
#define SP_SYMBOLIZE_MODKIND_H

#include <stdbool.h>
#include <stddef.h>

/* True for a mapping a perf map may override (anonymous code). */
bool sym_perf_map_may_override(const char *path);

#endif
