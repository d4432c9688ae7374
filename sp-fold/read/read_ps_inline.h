/*
 * read_ps_inline.h: --inline and --context for `perf script` text, as
 * stackcollapse-perf.pl does them: a frame line's address and module go
 * to addr2line, whose inlining chain replaces the frame's name.  Each
 * distinct (module, address) is resolved once.
 */
#ifndef SP_FOLD_READ_READ_PS_INLINE_H
#define SP_FOLD_READ_READ_PS_INLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "sp-fold/read/read_ps_match.h"

struct fold_psinl;

/* Returns a new resolver (`context`: --context), or NULL. */
struct fold_psinl *fold_psinl_new(bool context);
/* Frees it and ends its addr2line and nm processes; NULL is a no-op. */
void fold_psinl_free(struct fold_psinl *s);
/*
 * The names addr2line gives the frame line (pc, func as perf printed it,
 * with any +0x offset, and mod), outermost first, joined by ';', each
 * followed by ":file:line" with --context: sets *names and *n, valid
 * until the next call.  *n is 0 when the frame is to be folded as usual:
 * its module is the kernel's, a JIT map or in brackets, or addr2line
 * gives nothing, "??" or "??:??:0".  Returns 0 or -ENOMEM.
 */
int fold_psinl_names(struct fold_psinl *s, struct fold_span pc,
		     struct fold_span func, struct fold_span mod,
		     const char **names, size_t *n);

#endif
