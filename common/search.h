/*
 * search.h: the one binary search over sorted address ranges: the last
 * element whose start is at or below an address.  Symbol tables, line
 * tables, module and unit ranges all ask this question and then check
 * the element's end (or a few before it) themselves.
 */
#ifndef SP_SEARCH_H
#define SP_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/*
 * The index of the last of the `n` elements at `base`, `size` bytes
 * apart, whose uint64_t at byte `key_offset` is at or below `key`, or
 * SIZE_MAX when none is (n == 0, or key below the first).  The elements
 * must be sorted by that field, ascending; among equal starts the last
 * is returned.  Reads only; `base` may be NULL when n == 0.
 */
size_t sp_search_last_le(const void *base, size_t n, size_t size,
			 size_t key_offset, uint64_t key);

/*
 * SP_SEARCH_LAST_LE(v, n, field, key): sp_search_last_le over the array
 * `v` of `n` structs sorted by their uint64_t member `field`.  A member
 * of another type does not compile.
 */
#define SP_SEARCH_LAST_LE(v, n, field, key)                                    \
	sp_search_last_le((v), (n), sizeof(*(v)),                              \
			  offsetof(__typeof__(*(v)), field) +                  \
			      0 * sizeof(_Generic((v)->field, uint64_t : 1)),  \
			  (key))

#endif
