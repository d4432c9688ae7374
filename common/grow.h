/*
 * grow.h: the one way arrays grow in this codebase.  SP_GROW(v, alloc,
 * need) makes room for `need` elements in the array `v` that has room
 * for `alloc`: it doubles (from 16) until `need` fits, so filling an
 * array one element at a time costs amortized O(1) per element.  It
 * evaluates to 0, or -ENOMEM with `v` and `alloc` unchanged (still
 * valid).  New elements are not initialized.
 */
#ifndef SP_GROW_H
#define SP_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

/* The new room for `need` elements after `alloc`, or 0 on overflow. */
size_t sp_grow_size(size_t alloc, size_t need, size_t elem);

#define SP_GROW(v, alloc, need)                                                \
	({                                                                     \
		int sp_grow_rc_ = 0;                                           \
		if ((size_t)(need) > (alloc)) {                                \
			size_t sp_grow_n_ =                                    \
			    sp_grow_size((alloc), (need), sizeof(*(v)));       \
			void *sp_grow_p_ =                                     \
			    sp_grow_n_                                         \
				? reallocarray((v), sp_grow_n_, sizeof(*(v)))  \
				: NULL;                                        \
			if (sp_grow_p_) {                                      \
				(v) = sp_grow_p_;                              \
				(alloc) = sp_grow_n_;                          \
			} else {                                               \
				sp_grow_rc_ = -ENOMEM;                         \
			}                                                      \
		}                                                              \
		sp_grow_rc_;                                                   \
	})

#endif
