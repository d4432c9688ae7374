/*
 * modtab.h: the recorder's module table.  It interns the code areas of
 * every process, writes a module record for each new one, deactivates a
 * process's modules on exec (a new module epoch), clones a parent's
 * modules to a forked child, and resolves an address to a frame.
 *
 * Resolution uses a per-process index sorted by start address, rebuilt
 * lazily for a process whose modules changed.  Where a process's modules
 * overlap, the newest one that covers the address wins: a mapping
 * replaces what it was mapped over, for the samples after it (the perf
 * records arrive in time order; nothing reports an unmap).
 *
 * Only active modules are kept: deactivation (exec, exit) frees them, so
 * memory follows the live processes, not every process that ever lived.
 * Ids are never reused.
 */
#ifndef SP_MODTAB_H
#define SP_MODTAB_H

#include <stdbool.h>
#include <stdint.h>

#include "common/spool.h"

struct sp_modtab;

struct sp_modtab *sp_modtab_new(void);
void sp_modtab_free(struct sp_modtab *t);

/*
 * Interns `m` (its id is ignored).  An identical active module of the same
 * process keeps its id, unless a newer module was mapped over part of it
 * since; otherwise the module gets the next id and, when `w` is not NULL,
 * a module record is written.  So a library that comes back where others
 * were in between (dlclose, dlopen) is a new module of its own.  Older
 * modules of the process that the new one covers wholly are dropped
 * (pointers from sp_modtab_get to them become invalid).  A module with
 * end <= start is not interned and gets SP_NONE.  The path is copied.
 * Returns 0 or a negative errno (from the writer, or -ENOMEM).
 */
int sp_modtab_intern(struct sp_modtab *t, const struct sp_module *m,
		     struct sp_spool_writer *w, uint32_t *id);
/*
 * Deactivates and frees every user module of `pid` (pointers from
 * sp_modtab_get to them become invalid); writes one deactivation record
 * when anything changed.  Returns 0 or a negative errno.
 */
int sp_modtab_deactivate(struct sp_modtab *t, int32_t pid,
			 struct sp_spool_writer *w);
/*
 * Interns a copy of each active user module of `parent` for `child`, in
 * the parent's order (nothing when they are the same process).
 */
int sp_modtab_clone(struct sp_modtab *t, int32_t parent, int32_t child,
		    struct sp_spool_writer *w);
/*
 * Resolves `abs_ip` for `pid`: user frames against that process's active
 * modules, kernel frames against kernel modules.  Fills *out; module_id is
 * SP_NONE (and rel_ip == abs_ip) when nothing covers the address.
 */
void sp_modtab_resolve(struct sp_modtab *t, int32_t pid, uint64_t abs_ip,
		       enum sp_frame_mode mode, struct sp_frame *out);
/*
 * The active module with id `id`; NULL when unknown or deactivated.  Valid
 * until that module's process is deactivated.
 */
const struct sp_module *sp_modtab_get(const struct sp_modtab *t, uint32_t id);
bool sp_modtab_is_active(const struct sp_modtab *t, uint32_t id);
/* The number of ids handed out so far: the next module's id. */
uint32_t sp_modtab_count(const struct sp_modtab *t);

#endif
