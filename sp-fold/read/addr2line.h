/*
 * addr2line.h: binutils' addr2line and nm run for sp-fold, as
 * stackcollapse-perf.pl --inline runs them: one addr2line process per
 * module answers all of its addresses (so a run costs a process per
 * module, not per address), and one nm per module gives its symbols.
 */
#ifndef SP_FOLD_READ_ADDR2LINE_H
#define SP_FOLD_READ_ADDR2LINE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct fold_a2l;

/* Returns a new set of (not yet started) processes, or NULL. */
struct fold_a2l *fold_a2l_new(void);
/* Ends every process and waits for it; NULL is a no-op. */
void fold_a2l_free(struct fold_a2l *a);
/*
 * Appends to `out` what `addr2line -a ADDR -e MOD -i -f -s -C` prints
 * after its address line: a function line and a file:line line for each
 * inlining level, innermost first, each ending in '\n'.  Appends nothing
 * when addr2line cannot read the module (it says why on stderr) or
 * cannot be run (said once).  Returns 0 or -ENOMEM.
 */
int fold_a2l_ask(struct fold_a2l *a, const char *mod, const char *addr,
		 struct sp_buf *out);
/*
 * Sets *addr to the address of the first line of `nm MOD` that names a
 * symbol exactly `name` ("0000000000001139 T main"); returns 1, or 0
 * when there is none (or nm fails), or -ENOMEM.
 */
int fold_a2l_nm(struct fold_a2l *a, const char *mod, const char *name, size_t n,
		uint64_t *addr);

#endif
