/*
 * idtree.h: module files found by build id in build-id trees, the layout
 * gdb and perf use (ROOT/.build-id/xx/rest for build id xxrest, its debug
 * file beside it as rest.debug), for a module whose recorded file is
 * gone, unreadable or another build now: a bundle of sp-archive(1), a
 * container's binary kept by the recorder, the vdso of another kernel.
 */
#ifndef SP_SYMBOLIZE_IMAGE_IDTREE_H
#define SP_SYMBOLIZE_IMAGE_IDTREE_H

#include <stddef.h>

#include "sp-symbolize/image/imgtab.h"
#include "sp-symbolize/out/warn.h"

struct sym_idtree;

/*
 * Returns a lookup over the roots `roots` (borrowed), then
 * /usr/lib/debug, whose files open in `t` (borrowed, it must outlive
 * the lookup); warnings go to `warn` (may be NULL).  NULL with errno on
 * ENOMEM.
 */
struct sym_idtree *sym_idtree_new(struct sym_imgtab *t, char *const *roots,
				  size_t nroots, sym_warn_fn *warn,
				  void *warn_ctx);
/* NULL is allowed. */
void sym_idtree_free(struct sym_idtree *it);

/*
 * The entry of `t` holding the module file of build id `id` (lowercase
 * hex), with its image open: .build-id/xx/rest under the first root that
 * has it, whose debug file (rest.debug) image.h then finds as any other;
 * else .build-id/xx/rest.debug when it holds code (sym_elf_has_code(): a
 * whole ELF kept in place of a debug file).  A separate debug file holds
 * no code and is never taken for the module.  A candidate that is not a
 * regular ELF file, or whose build id is not `id`, is refused with a
 * warning.  Each id is looked up once; later calls return the same
 * answer.  NULL when no candidate fits (or on ENOMEM).
 */
struct sym_imgent *sym_idtree_find(struct sym_idtree *it, const char *id);

#endif
