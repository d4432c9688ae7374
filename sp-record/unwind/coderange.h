/*
 * coderange.h: a set of address ranges, sorted and without overlaps: the
 * anonymous executable memory of one process (JIT code, CPython's perf
 * trampolines), which the module table does not hold but where a caller's
 * return address may still lie.
 *
 *   struct rec_coderange rs = REC_CODERANGE_INIT;
 *   rec_coderange_add(&rs, lo, hi);       a new mapping replaces what it
 *                                      overlaps, as mmap does
 *   rec_coderange_has(&rs, addr);         O(log n)
 *   rec_coderange_release(&rs);
 */
#ifndef SP_RECORD_UNWIND_CODERANGE_H
#define SP_RECORD_UNWIND_CODERANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_coderange_span {
	uint64_t lo, hi; /* [lo, hi), lo < hi */
};

/* Invariant: v[0..n) sorted by lo, v[i].hi <= v[i + 1].lo. */
struct rec_coderange {
	struct rec_coderange_span *v;
	size_t n, cap;
};

#define REC_CODERANGE_INIT                                                     \
	{                                                                      \
		NULL, 0, 0                                                     \
	}

/*
 * Adds [lo, hi), first dropping every range it overlaps (ranges that only
 * partly overlap are dropped whole: a mapping over part of a region is
 * rare, and a missing range only costs a truncated stack).  An empty
 * range is ignored.  Returns 0 or -ENOMEM (the set is unchanged then).
 */
int rec_coderange_add(struct rec_coderange *rs, uint64_t lo, uint64_t hi);

/* Whether some range holds `addr`. */
bool rec_coderange_has(const struct rec_coderange *rs, uint64_t addr);

/* Frees the array; the set is empty and reusable afterwards. */
void rec_coderange_release(struct rec_coderange *rs);

#endif
