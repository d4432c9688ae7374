/*
 * ehframe.c: builds an .eh_frame_hdr-style search table by walking the
 * CIEs and FDEs of .eh_frame (ehframe.h).
 *
 * Only what locating an FDE needs is decoded: each entry's length, its
 * CIE's 'R' augmentation (the pointer encoding of the FDE's initial
 * location) and that location.  Every read is checked against the end of
 * the section.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/unwind/ehcur.h"
#include "sp-record/unwind/ehframe.h"
#include "common/banned.h"

/*
 * Reads an entry's length field; sets *body to the offset after it and
 * *next to the offset of the following entry.  False at the zero
 * terminator or when the entry runs past the section.
 */
static bool
entry_bounds(const struct rec_ehcur *c, size_t at, size_t *body, size_t *next)
{
	struct rec_ehcur e = *c;
	uint32_t len32;
	uint64_t len;

	e.pos = at;
	if (!rec_ehcur_get(&e, &len32, 4) || len32 == 0)
		return false;
	len = len32;
	if (len32 == 0xffffffffu && !rec_ehcur_get(&e, &len, 8))
		return false;
	if (len < 4 || len > e.end - e.pos)
		return false;
	*body = e.pos;
	*next = e.pos + len;
	return true;
}

/* The FDE pointer encoding of the CIE at offset `at`; false if unusable. */
static bool
cie_fde_encoding(const struct rec_ehcur *c, size_t at, uint8_t *enc)
{
	struct rec_ehcur e = *c;
	uint64_t skip, auglen;
	uint32_t id;
	uint8_t version, b;
	const char *aug;
	size_t next, auglen_max;

	if (!entry_bounds(c, at, &e.pos, &next))
		return false;
	e.end = next;
	if (!rec_ehcur_get(&e, &id, 4) || id != 0 ||
	    !rec_ehcur_get(&e, &version, 1))
		return false;
	aug = (const char *)e.sec + e.pos;
	auglen_max = e.end - e.pos;
	if (!memchr(aug, 0, auglen_max))
		return false;
	e.pos += strlen(aug) + 1;
	*enc = 0x00;
	if (aug[0] != 'z') /* no augmentation data: absolute pointers */
		return aug[0] == 0;
	if (!rec_ehcur_uleb(&e, &skip) || !rec_ehcur_uleb(&e, &skip) ||
	    (version == 1 ? !rec_ehcur_get(&e, &b, 1)
			  : !rec_ehcur_uleb(&e, &skip)) ||
	    !rec_ehcur_uleb(&e, &auglen) || auglen > e.end - e.pos)
		return false;
	e.end = e.pos + auglen;
	for (aug++; *aug; aug++) {
		if (*aug == 'R')
			return rec_ehcur_get(&e, enc, 1);
		if (*aug == 'L' && !rec_ehcur_get(&e, &b, 1))
			return false;
		if (*aug == 'P' && (!rec_ehcur_get(&e, &b, 1) ||
				    !rec_ehcur_pointer(&e, b & 0x7f, &skip)))
			return false;
		if (!strchr("LPSBG", *aug)) /* its data size is unknown */
			return false;
	}
	return true;
}

static int
cmp_pairs(const void *a, const void *b)
{
	const int32_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Appends one pair, growing the array by doubling. */
static int
push_pair(int32_t **t, size_t *n, size_t *cap, int64_t loc, int64_t fde)
{
	int32_t *grown;
	size_t ncap;

	if (loc < INT32_MIN || loc > INT32_MAX || fde > INT32_MAX)
		return -EBADMSG;
	if (*n == *cap) {
		ncap = *cap ? 2 * *cap : 256;
		if (!(grown = realloc(*t, ncap * 2 * sizeof(**t))))
			return -ENOMEM;
		*t = grown;
		*cap = ncap;
	}
	(*t)[2 * *n] = (int32_t)loc;
	(*t)[2 * *n + 1] = (int32_t)fde;
	(*n)++;
	return 0;
}

int
rec_ehframe_index(const uint8_t *sec, size_t len, uint64_t vaddr,
		  int32_t **table, size_t *count)
{
	const struct rec_ehcur whole = { sec, 0, len, vaddr };
	struct rec_ehcur c = whole;
	size_t at = 0, body, next, cie_at = SIZE_MAX, n = 0, cap = 0;
	int32_t *t = NULL;
	uint32_t id;
	uint64_t loc;
	uint8_t enc = 0;
	int r = 0;

	while (r == 0 && entry_bounds(&whole, at, &body, &next)) {
		c.pos = body;
		c.end = next;
		if (rec_ehcur_get(&c, &id, 4) && id != 0 && id <= body) {
			if (body - id != cie_at)
				cie_at =
				    cie_fde_encoding(&whole, body - id, &enc)
					? body - id
					: SIZE_MAX;
			if (cie_at != SIZE_MAX &&
			    rec_ehcur_pointer(&c, enc, &loc) && loc != 0)
				r = push_pair(&t, &n, &cap,
					      (int64_t)(loc - vaddr),
					      (int64_t)at);
		}
		at = next;
	}
	if (r == 0 && n == 0)
		r = -ENOENT;
	if (r < 0) {
		free(t);
		return r;
	}
	qsort(t, n, 2 * sizeof(*t), cmp_pairs);
	*table = t;
	*count = n;
	return 0;
}
