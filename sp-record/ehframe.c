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

#include "common/varint.h"
#include "sp-record/ehframe.h"
#include "common/banned.h"

/* A cursor over the section; `pos` never passes `end`. */
struct cur {
	const uint8_t *sec;
	size_t pos, end;
	uint64_t vaddr; /* of sec[0] */
};

static bool
get_bytes(struct cur *c, void *out, size_t n)
{
	if (n > c->end - c->pos)
		return false;
	memcpy(out, c->sec + c->pos, n); /* little-endian host */
	c->pos += n;
	return true;
}

/* LEB128 numbers as every reader of them reads them (varint.h). */
static bool
get_uleb(struct cur *c, uint64_t *v)
{
	const uint8_t *p = c->sec + c->pos;

	if (sp_leb_get_u64(&p, c->sec + c->end, v) < 0)
		return false;
	c->pos = (size_t)(p - c->sec);
	return true;
}

static bool
get_sleb(struct cur *c, int64_t *v)
{
	const uint8_t *p = c->sec + c->pos;

	if (sp_leb_get_s64(&p, c->sec + c->end, v) < 0)
		return false;
	c->pos = (size_t)(p - c->sec);
	return true;
}

/*
 * Reads a DW_EH_PE-encoded pointer.  Absolute and pc-relative values of
 * fixed size (and uleb/sleb) are supported, as libunwind's own lookup
 * does; anything else (indirect, datarel, aligned) fails.
 */
static bool
get_pointer(struct cur *c, uint8_t enc, uint64_t *v)
{
	uint64_t at = c->vaddr + c->pos, raw = 0;
	int64_t s64;
	uint16_t u16;
	uint32_t u32;

	if (enc == 0xff) /* DW_EH_PE_omit */
		return false;
	switch (enc & 0x0f) {
	case 0x00:
	case 0x04:
	case 0x0c:
		if (!get_bytes(c, &raw, 8))
			return false;
		break;
	case 0x01:
		if (!get_uleb(c, &raw))
			return false;
		break;
	case 0x09: /* DW_EH_PE_sleb128: a pc-relative one may be negative */
		if (!get_sleb(c, &s64))
			return false;
		raw = (uint64_t)s64;
		break;
	case 0x02:
		if (!get_bytes(c, &u16, 2))
			return false;
		raw = u16;
		break;
	case 0x0a:
		if (!get_bytes(c, &u16, 2))
			return false;
		raw = (uint64_t)(int64_t)(int16_t)u16;
		break;
	case 0x03:
		if (!get_bytes(c, &u32, 4))
			return false;
		raw = u32;
		break;
	case 0x0b:
		if (!get_bytes(c, &u32, 4))
			return false;
		raw = (uint64_t)(int64_t)(int32_t)u32;
		break;
	default:
		return false;
	}
	switch (enc & 0x70) {
	case 0x00:
		*v = raw;
		return true;
	case 0x10:
		*v = at + raw;
		return true;
	default:
		return false;
	}
}

bool
rec_ehframe_pointer(const uint8_t *sec, size_t len, uint64_t vaddr, size_t *pos,
		    uint8_t enc, uint64_t *v)
{
	struct cur c = { sec, *pos, len, vaddr };

	if (*pos > len || !get_pointer(&c, enc, v))
		return false;
	*pos = c.pos;
	return true;
}

/*
 * Reads an entry's length field; sets *body to the offset after it and
 * *next to the offset of the following entry.  False at the zero
 * terminator or when the entry runs past the section.
 */
static bool
entry_bounds(const struct cur *c, size_t at, size_t *body, size_t *next)
{
	struct cur e = *c;
	uint32_t len32;
	uint64_t len;

	e.pos = at;
	if (!get_bytes(&e, &len32, 4) || len32 == 0)
		return false;
	len = len32;
	if (len32 == 0xffffffffu && !get_bytes(&e, &len, 8))
		return false;
	if (len < 4 || len > e.end - e.pos)
		return false;
	*body = e.pos;
	*next = e.pos + len;
	return true;
}

/* The FDE pointer encoding of the CIE at offset `at`; false if unusable. */
static bool
cie_fde_encoding(const struct cur *c, size_t at, uint8_t *enc)
{
	struct cur e = *c;
	uint64_t skip, auglen;
	uint32_t id;
	uint8_t version, b;
	const char *aug;
	size_t next, auglen_max;

	if (!entry_bounds(c, at, &e.pos, &next))
		return false;
	e.end = next;
	if (!get_bytes(&e, &id, 4) || id != 0 || !get_bytes(&e, &version, 1))
		return false;
	aug = (const char *)e.sec + e.pos;
	auglen_max = e.end - e.pos;
	if (!memchr(aug, 0, auglen_max))
		return false;
	e.pos += strlen(aug) + 1;
	*enc = 0x00;
	if (aug[0] != 'z') /* no augmentation data: absolute pointers */
		return aug[0] == 0;
	if (!get_uleb(&e, &skip) || !get_uleb(&e, &skip) ||
	    (version == 1 ? !get_bytes(&e, &b, 1) : !get_uleb(&e, &skip)) ||
	    !get_uleb(&e, &auglen) || auglen > e.end - e.pos)
		return false;
	e.end = e.pos + auglen;
	for (aug++; *aug; aug++) {
		if (*aug == 'R')
			return get_bytes(&e, enc, 1);
		if (*aug == 'L' && !get_bytes(&e, &b, 1))
			return false;
		if (*aug == 'P' && (!get_bytes(&e, &b, 1) ||
				    !get_pointer(&e, b & 0x7f, &skip)))
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
	const struct cur whole = { sec, 0, len, vaddr };
	struct cur c = whole;
	size_t at = 0, body, next, cie_at = SIZE_MAX, n = 0, cap = 0;
	int32_t *t = NULL;
	uint32_t id;
	uint64_t loc;
	uint8_t enc = 0;
	int r = 0;

	while (r == 0 && entry_bounds(&whole, at, &body, &next)) {
		c.pos = body;
		c.end = next;
		if (get_bytes(&c, &id, 4) && id != 0 && id <= body) {
			if (body - id != cie_at)
				cie_at =
				    cie_fde_encoding(&whole, body - id, &enc)
					? body - id
					: SIZE_MAX;
			if (cie_at != SIZE_MAX && get_pointer(&c, enc, &loc) &&
			    loc != 0)
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
