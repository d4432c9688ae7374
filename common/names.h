/*
 * names.h: the names a frame gets when no symbol source resolves it, the
 * same everywhere in the pipeline:
 *   libfoo.so+0x1a2b            module basename + module-relative address
 *   [kernel]+0xffffffff81001234 kernel code
 *   <0x7f0012345678>            user address outside any module
 *   <stack truncated>           the truncated-stack marker
 */
#ifndef SP_NAMES_H
#define SP_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/spool.h"

#define SP_TRUNCATED_NAME "<stack truncated>"

/*
 * Appends the fallback name of a frame to `out`.  `module_path` is the
 * frame's module path, or NULL when it has none; `rel_ip` is used with a
 * module, `abs_ip` without.  Returns 0 or -ENOMEM.
 */
int sp_fallback_name(struct sp_buf *out, enum sp_frame_mode mode,
		     const char *module_path, uint64_t rel_ip, uint64_t abs_ip);
/*
 * The part of a module path to show: after the last '/', except that a
 * bracketed pseudo-path ("[vdso]", "[anon:x/y]") is kept whole, and a
 * trailing " (deleted)" is dropped (sets *len).
 */
const char *sp_module_basename(const char *path, size_t *len);
/*
 * The length of module path `path` (`len` bytes) without the " (deleted)"
 * the kernel appends to a file removed since it was mapped; `len` when
 * it has none.
 */
size_t sp_module_path_undeleted(const char *path, size_t len);
/*
 * Whether module path `path` (`len` bytes) names memory that is no file:
 * none at all, [anon...], //anon, [stack...], [heap], /dev/zero,
 * /anon_hugepage or System V shared memory (/SYSV...), deleted or not.
 * Code there is a JIT's, named only by its perf map or jitdump.
 */
bool sp_module_path_anonymous(const char *path, size_t len);

#endif
