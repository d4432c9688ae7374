/*
 * jitsyms.h: the files that name the JIT code of each process, by pid:
 * its perf map (DIR/perf-PID.map, perfmap.h) and then its jitdump
 * (jit-PID.dump, jitdump.h, where jitpath.h finds it).  A process's files are
 * read on first use and again when a lookup misses and the file changed since
 * (a live JIT appends to it); a file refused as untrusted is warned about once.
 */
#ifndef SP_SYMBOLIZE_JIT_JITSYMS_H
#define SP_SYMBOLIZE_JIT_JITSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp-symbolize/out/warn.h"

struct sym_jitsyms;

/*
 * Returns an empty table reading files from `dir` (NULL: /tmp; copied),
 * or NULL on ENOMEM.  `dir` set means the files come from another
 * machine: they are trusted when the user running this owns them (or
 * root), not the process's user.  `warn` (may be NULL) gets each warning
 * without the program name.
 */
struct sym_jitsyms *sym_jitsyms_new(const char *dir, sym_warn_fn *warn,
				    void *ctx);
/*
 * Says where sp-record's copies of the files of this spool's processes
 * are (sp-record(1), CAPTURE): ROOT/.jit/BOOTID-START_US-PID.map and
 * .dump under each of `roots` (borrowed only during the call), from the
 * spool's host boot id (NULL, or not a boot id: "unknown") and start
 * time.  Without a `dir` given to sym_jitsyms_new(), a process's kept
 * copy is read in place of the file in /tmp (or where jitpath.h finds
 * it), which another process of the same pid may have written since;
 * such a copy is this user's, and trusted as that.  It applies to the
 * processes first looked up after the call.  Returns 0 or -ENOMEM.
 */
int sym_jitsyms_kept(struct sym_jitsyms *j, char *const *roots, size_t nroots,
		     const char *bootid, uint64_t start_us);
/* NULL is allowed. */
void sym_jitsyms_free(struct sym_jitsyms *j);
/*
 * Finds the entry of process `pid` whose range holds `addr`: true with
 * *name (valid until the next call on `j`) and *start.
 */
bool sym_jitsyms_find(struct sym_jitsyms *j, int32_t pid, uint64_t addr,
		      const char **name, uint64_t *start);
/*
 * Drops what was read for `pid` (an exec or exit), and the jitdump it
 * mapped; read again on use.
 */
void sym_jitsyms_forget(struct sym_jitsyms *j, int32_t pid);
/*
 * Frees everything kept for `pid`, which is gone for good (a forget
 * record): a later lookup for it starts afresh.
 */
void sym_jitsyms_drop(struct sym_jitsyms *j, int32_t pid);
/* The processes `j` keeps files for, for tests and memory checks. */
size_t sym_jitsyms_count(const struct sym_jitsyms *j);
/*
 * Says that process `pid` mapped its jitdump at `path` (copied): that
 * file is read first (jitpath.h), from the next lookup on.  Returns 0
 * or -ENOMEM.
 */
int sym_jitsyms_mapped(struct sym_jitsyms *j, int32_t pid, const char *path);

#endif
