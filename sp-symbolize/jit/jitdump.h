/*
 * jitdump.h: JIT symbol dumps, jit-PID.dump, as CPython 3.13's
 * -X perf_jit and other JITs write them for perf: a file header, then
 * records, of which only JIT_CODE_LOAD (an address, a code size and a
 * function name) names code; every other record is skipped by its size.
 *
 * The file comes from anyone (it sits in /tmp): every length is checked
 * against the bytes read, parsing stops at the first record that does
 * not fit, and the code loads before it are kept.
 */
#ifndef SP_SYMBOLIZE_JIT_JITDUMP_H
#define SP_SYMBOLIZE_JIT_JITDUMP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sp-symbolize/jit/perfmap.h"

/*
 * Adds the code loads of the jitdump image buf[0..len) to `m` as perf
 * map entries (then sorted, ready for lookups).  Returns the number
 * added, -EBADMSG when the header is not a jitdump's, or -ENOMEM.
 */
long sym_jitdump_parse(const uint8_t *buf, size_t len, struct sym_perfmap *m);
/*
 * Loads the jitdump `path`, trusted as perf maps are (perfmap.h: regular
 * file, no symlink, owned by `owner` or root); fills *id.  Returns a map
 * of its code loads, or NULL with errno set (ENOENT, ELOOP, EPERM,
 * EBADMSG, ENOMEM).
 */
struct sym_perfmap *sym_jitdump_load(const char *path, uid_t owner,
				     struct sym_perfmap_id *id);

#endif
