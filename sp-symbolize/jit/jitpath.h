/*
 * jitpath.h: where a process's jitdump (jit-PID.dump) is.  Its writer
 * maps the file so that perf finds it from the mapping, and writers put
 * it in different places: the current directory (node --perf-prof),
 * $JITDUMPDIR/.debug/jit/NAME/ (perf's JVM agent; $HOME when unset) or
 * perf's build-id directory ($PERF_BUILDID_DIR/jit/NAME/), or /tmp
 * (CPython 3.13's -X perf_jit).
 */
#ifndef SP_SYMBOLIZE_JIT_JITPATH_H
#define SP_SYMBOLIZE_JIT_JITPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Whether path[0..len) names a jitdump of process `pid`: its basename
 * is jit-PID.dump.
 */
bool sym_jitpath_is_dump(const char *path, size_t len, int32_t pid);
/*
 * The jitdump to read for `pid`, malloc'ed (NULL on ENOMEM): with `dir`
 * (--perf-map-dir) DIR/jit-PID.dump, the only place looked at then, for
 * the files come from elsewhere.  Otherwise the first that exists of:
 * `mapped` (the path the process mapped, or NULL), the newest
 * jit-PID.dump under $JITDUMPDIR/.debug/jit/ (or $HOME/.debug/jit/) and
 * under $PERF_BUILDID_DIR/jit/, then /tmp/jit-PID.dump, which is also
 * the answer when none exists.  Whether the file may be trusted is the
 * reader's to check (jitdump.h).
 */
char *sym_jitpath_find(const char *mapped, const char *dir, int32_t pid);

#endif
