/*
 * coderange.c: a sorted set of address ranges (coderange.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sp-record/unwind/coderange.h"
#include "common/banned.h"

/* Index of the first range whose hi is above `addr`. */
static size_t
first_above(const struct rec_coderange *rs, uint64_t addr)
{
	size_t lo = 0, hi = rs->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rs->v[mid].hi <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
rec_coderange_add(struct rec_coderange *rs, uint64_t lo, uint64_t hi)
{
	size_t at, end;

	if (lo >= hi)
		return 0;
	if (SP_GROW(rs->v, rs->cap, rs->n + 1))
		return -ENOMEM;
	at = first_above(rs, lo);
	for (end = at; end < rs->n && rs->v[end].lo < hi; end++)
		;
	/* Ranges [at, end) overlap: replace them by the new one. */
	memmove(&rs->v[at + 1], &rs->v[end], (rs->n - end) * sizeof(*rs->v));
	rs->n = rs->n - (end - at) + 1;
	rs->v[at] = (struct rec_coderange_span){ lo, hi };
	return 0;
}

bool
rec_coderange_has(const struct rec_coderange *rs, uint64_t addr)
{
	size_t i = first_above(rs, addr);

	return i < rs->n && rs->v[i].lo <= addr;
}

void
rec_coderange_release(struct rec_coderange *rs)
{
	free(rs->v);
	*rs = (struct rec_coderange)REC_CODERANGE_INIT;
}
