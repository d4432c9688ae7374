/*
 * pydecode.c: CPython line tables and str objects, decoded against their
 * end (see pydecode.h).  The formats are CPython's own: Objects/
 * lnotab_notes.txt of 3.8-3.10 and Objects/locations.md of 3.11+.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "sp-record/python/pydecode.h"
#include "common/banned.h"

/*
 * 3.8, 3.9: pairs (address increment, signed line increment); the line
 * in force at `addr` is the sum of the line increments of every pair
 * whose address is at most `addr`.
 */
static int32_t
lnotab_line(const uint8_t *tab, size_t len, int32_t first, uint32_t addr)
{
	int64_t line = first;
	uint64_t at = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		at += tab[i];
		if (at > addr)
			break;
		line += (int8_t)tab[i + 1];
	}
	return line < 0 || line > INT32_MAX ? -1 : (int32_t)line;
}

/*
 * 3.10: pairs (byte length of a range, signed line increment, -128 for
 * a range without a line); ranges follow each other from address 0.
 */
static int32_t
lines310_line(const uint8_t *tab, size_t len, int32_t first, uint32_t addr)
{
	int64_t line = first;
	uint64_t start = 0, end;
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		end = start + tab[i];
		if ((int8_t)tab[i + 1] != -128)
			line += (int8_t)tab[i + 1];
		if (addr >= start && addr < end) {
			if ((int8_t)tab[i + 1] == -128)
				return -1;
			return line < 0 || line > INT32_MAX ? -1
							    : (int32_t)line;
		}
		start = end;
	}
	return -1;
}

/* A varint of 6-bit groups, bit 6 saying another follows; 0 if cut. */
static int
loc_varint(const uint8_t *p, const uint8_t *end, uint32_t *v)
{
	uint32_t x = 0, shift = 0;
	uint8_t b;

	do {
		if (p >= end || shift > 30)
			return 0;
		b = *p++;
		x |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	*v = x;
	return 1;
}

/* The line increment of the entry starting at `p`; 0 if cut. */
static int
loc_delta(const uint8_t *p, const uint8_t *end, int64_t *delta)
{
	unsigned code = (*p >> 3) & 15;
	uint32_t u;

	*delta = 0;
	if (code == 13 || code == 14) { /* no columns, long form */
		if (!loc_varint(p + 1, end, &u))
			return 0;
		*delta = u & 1 ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
	} else if (code >= 10 && code <= 12) { /* one line forms */
		*delta = code - 10;
	}
	return 1;
}

/*
 * 3.11+: entries that each start with a byte with bit 7 set, holding a
 * code (bits 3-6) and the entry's length in code units less one (bits
 * 0-2); code 15 has no line, 13 and 14 carry a signed varint line
 * increment, 10-12 increments of 0-2, the short forms none.
 */
static int32_t
locations_line(const uint8_t *tab, size_t len, int32_t first, uint32_t addr)
{
	const uint8_t *p = tab, *end = tab + len;
	int64_t line = first, delta;
	uint64_t start = 0;

	while (p < end) {
		if (!(*p & 128) || !loc_delta(p, end, &delta))
			return -1;
		line += delta;
		start += ((uint64_t)(*p & 7) + 1) * 2;
		if (addr < start) {
			if (((*p >> 3) & 15) == 15)
				return -1;
			return line < 0 || line > INT32_MAX ? -1
							    : (int32_t)line;
		}
		for (p++; p < end && !(*p & 128); p++)
			;
	}
	return -1;
}

/* Whether 3.8-3.9 pairs `tab` reach past byte offset `addr`. */
static bool
lnotab_covers(const uint8_t *tab, size_t len, uint32_t addr)
{
	uint64_t at = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		if ((at += tab[i]) > addr)
			return true;
	return false;
}

int32_t
rec_pydecode_line_cut(enum rec_pydecode_lines fmt, const uint8_t *tab,
		      size_t len, int32_t first, uint32_t addr)
{
	if (fmt == REC_PY_LNOTAB && !lnotab_covers(tab, len, addr))
		return -1;
	return rec_pydecode_line(fmt, tab, len, first, addr);
}

int32_t
rec_pydecode_line(enum rec_pydecode_lines fmt, const uint8_t *tab, size_t len,
		  int32_t first, uint32_t addr)
{
	switch (fmt) {
	case REC_PY_LNOTAB:
		return lnotab_line(tab, len, first, addr);
	case REC_PY_LINES310:
		return lines310_line(tab, len, first, addr);
	case REC_PY_LOCATIONS:
		return locations_line(tab, len, first, addr);
	}
	return -1;
}

/* The state bits of every version 3.8-3.13 (x86-64, GCC bit fields). */
#define STATE_KIND(s) (((s) >> 2) & 7)
#define STATE_COMPACT(s) (((s) >> 5) & 1)
#define STATE_ASCII(s) (((s) >> 6) & 1)

int
rec_pydecode_str_shape(const uint8_t *hdr, size_t len,
		       const struct rec_pydecode_strlayout *l,
		       uint32_t max_chars, struct rec_pydecode_strshape *s)
{
	uint32_t state;
	int64_t n;

	if ((size_t)l->length + 8 > len || (size_t)l->state + 4 > len)
		return -EBADMSG;
	memcpy(&n, hdr + l->length, 8);
	memcpy(&state, hdr + l->state, 4);
	if (!STATE_COMPACT(state) || n < 0)
		return -EBADMSG;
	s->kind = STATE_KIND(state);
	if (s->kind != 1 && s->kind != 2 && s->kind != 4)
		return -EBADMSG;
	if (STATE_ASCII(state) && s->kind != 1)
		return -EBADMSG;
	if (n > max_chars)
		return -E2BIG;
	s->data_off = STATE_ASCII(state) ? l->ascii_size : l->compact_size;
	s->nchars = (uint32_t)n;
	s->nbytes = s->nchars * s->kind;
	return 0;
}

/* Appends code point `c` as UTF-8; NUL and surrogates become U+FFFD. */
static int
add_utf8(struct sp_buf *out, uint32_t c)
{
	uint8_t b[4];
	size_t n;

	if (c == 0 || (c >= 0xd800 && c <= 0xdfff))
		c = 0xfffd;
	if (c < 0x80) {
		b[0] = (uint8_t)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (uint8_t)(0xc0 | c >> 6);
		b[1] = (uint8_t)(0x80 | (c & 63));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (uint8_t)(0xe0 | c >> 12);
		b[1] = (uint8_t)(0x80 | (c >> 6 & 63));
		b[2] = (uint8_t)(0x80 | (c & 63));
		n = 3;
	} else {
		b[0] = (uint8_t)(0xf0 | c >> 18);
		b[1] = (uint8_t)(0x80 | (c >> 12 & 63));
		b[2] = (uint8_t)(0x80 | (c >> 6 & 63));
		b[3] = (uint8_t)(0x80 | (c & 63));
		n = 4;
	}
	return sp_buf_add(out, b, n);
}

int
rec_pydecode_str_utf8(const uint8_t *data, size_t n, uint32_t kind,
		      struct sp_buf *out)
{
	uint16_t c2;
	uint32_t c;
	size_t i;
	int rc;

	if (kind != 1 && kind != 2 && kind != 4)
		return -EBADMSG;
	for (i = 0; i < n; i += kind) {
		if (n - i < kind) {
			c = 0xfffd;
		} else if (kind == 1) {
			c = data[i];
		} else if (kind == 2) {
			memcpy(&c2, data + i, 2);
			c = c2;
		} else {
			memcpy(&c, data + i, 4);
		}
		if (c > 0x10ffff)
			return -EBADMSG;
		rc = add_utf8(out, c);
		if (rc < 0)
			return rc;
	}
	return 0;
}
