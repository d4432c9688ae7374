/*
 * dwindex.h: an index of the code scopes of one DWARF compilation unit,
 * so that finding the function and the inlined calls at an address
 * costs a binary search and a walk of one function's subtree instead of
 * a walk of the whole unit per address (as dwarf_getscopes() does).
 * Building it walks the unit's top level only; a function's subtree is
 * indexed the first time an address falls in it.
 */
#ifndef SP_SYMBOLIZE_DWARF_DWINDEX_H
#define SP_SYMBOLIZE_DWARF_DWINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <elfutils/libdw.h>

struct sym_dwindex;

/*
 * Indexes the top-level subprograms of `cu`.  Returns the index, or
 * NULL with errno ENOMEM.  DIEs copied into it stay valid as
 * long as the Dwarf handle is open.
 */
struct sym_dwindex *sym_dwindex_build(Dwarf_Die *cu);
/* NULL is allowed. */
void sym_dwindex_free(struct sym_dwindex *x);
/*
 * The bytes `x` allocated so far; it grows as lookups index subtrees.
 * 0 for NULL.
 */
size_t sym_dwindex_bytes(const struct sym_dwindex *x);
/*
 * Fills die[] with the scopes holding `addr`, innermost first: the
 * inlined subroutines (when `inlines`), then the subprogram.  Returns how
 * many were written (at most `max`, keeping the outermost), 0 when no
 * subprogram holds `addr` (or memory ran out indexing its subtree).
 */
size_t sym_dwindex_chain(struct sym_dwindex *x, uint64_t addr, bool inlines,
			 Dwarf_Die *die, size_t max);

#endif
