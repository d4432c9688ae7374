/*
 * group.h: the name a frame is grouped under in sp-fold's outputs, so
 * that one function is one frame whatever address in it was sampled:
 * kernel symbols lose the offset sp-symbolize writes into their names,
 * and address fallbacks become their module, as perf shows them.  With
 * --addrs the names stay as the record stream gives them.
 */
#ifndef SP_FOLD_MODEL_GROUP_H
#define SP_FOLD_MODEL_GROUP_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"
#include "sp-fold/model/model.h"
#include "sp-fold/model/model_opts.h"

/*
 * Appends to `out` the grouped form of a frame name of `n` bytes, given
 * its symbol flags (SYM_* of model.h):
 *   kernel symbol  "vfs_read+0x14"            -> "vfs_read"
 *                  "wg_xmit+0x14 [wireguard]" -> "wg_xmit [wireguard]"
 *   unresolved     "cc1plus+0x1a2b"           -> "[cc1plus]"
 *                  "[vdso]+0x7bd"             -> "[vdso]"
 *                  "[kernel]+0xffffffff8100"  -> "[kernel]"
 *                  "<0x7f0012345678>"         -> "[unknown]"
 * Any other name, and a name of these kinds in another shape, is
 * appended unchanged.  Returns 0 or -ENOMEM.
 */
int fold_group_name(struct sp_buf *out, const char *name, size_t n,
		    unsigned flags);
/*
 * Sets s->group to the grouped form of s->name, or to NULL when it is
 * the same.  Returns 0 or -ENOMEM.
 */
int fold_sym_group(struct fold_sym *s);
/* The name of a logical frame to show: grouped unless --addrs. */
const char *fold_sym_shown(const struct fold_sym *s,
			   const struct fold_name_opts *o);
/*
 * Appends the fallback name of a view without symbols (names.h), grouped
 * unless `addrs`.  Returns 0 or -ENOMEM.
 */
int fold_view_fallback(const struct fold_view *v, const struct fold_model *m,
		       bool addrs, struct sp_buf *out);

#endif
