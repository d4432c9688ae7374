/*
 * foldset.h: the set of folded stacks, "frame;frame;leaf" -> count, that
 * the readers fill and the folded, top, svg and pprof writers read.
 */
#ifndef SP_FOLD_MODEL_FOLDSET_H
#define SP_FOLD_MODEL_FOLDSET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct fold_set;

struct fold_line {
	const char *stack; /* not NUL-terminated */
	size_t len;
	uint64_t count;
};

/*
 * Turns each control in b[0..n) into '?': C0 bytes, DEL, and the C1
 * controls of UTF-8 (C2 80 to C2 9F, both bytes), which terminals obey.
 */
void fold_clean_controls(uint8_t *b, size_t n);

/* Returns a new empty set, or NULL. */
struct fold_set *fold_set_new(void);
/* Frees the set and every string it holds; NULL is a no-op. */
void fold_set_free(struct fold_set *s);
/*
 * Adds `n` to the count of a stack (copied, its control bytes as '?').
 * Returns 0, -EOVERFLOW when the total of all counts would pass
 * UINT64_MAX (nothing is added then), or -ENOMEM.
 */
int fold_set_add(struct fold_set *s, const char *stack, size_t len, uint64_t n);
/*
 * Sets *lines to the stacks sorted bytewise, as `sort` in the C locale
 * would; the array and the strings belong to the set and stay valid
 * until the next add, lines call or the free.  Returns 0 or -ENOMEM.
 */
int fold_set_lines(struct fold_set *s, const struct fold_line **lines,
		   size_t *n);
/* The sum of all counts. */
uint64_t fold_set_total(const struct fold_set *s);

#endif
