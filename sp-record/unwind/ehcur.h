/*
 * ehcur.h: a bounded cursor over .eh_frame bytes, the one reader of its
 * encodings in the recorder: fixed-size values (little-endian host),
 * LEB128 numbers (varint.h's one answer) and DW_EH_PE-encoded pointers.
 * Every read is checked against `end` and leaves `pos` unchanged when it
 * would pass it.  Inline: the CFA programs of cfirule.c read a byte at
 * a time.
 */
#ifndef SP_RECORD_UNWIND_EHCUR_H
#define SP_RECORD_UNWIND_EHCUR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/varint.h"

/* [sec + pos, sec + end) is left to read; sec[0] is at ELF `vaddr`. */
struct rec_ehcur {
	const uint8_t *sec;
	size_t pos, end;
	uint64_t vaddr;
};

static inline bool
rec_ehcur_get(struct rec_ehcur *c, void *out, size_t n)
{
	if (n > c->end - c->pos)
		return false;
	memcpy(out, c->sec + c->pos, n);
	c->pos += n;
	return true;
}

static inline bool
rec_ehcur_uleb(struct rec_ehcur *c, uint64_t *v)
{
	const uint8_t *p = c->sec + c->pos;

	if (sp_leb_get_u64(&p, c->sec + c->end, v) < 0)
		return false;
	c->pos = (size_t)(p - c->sec);
	return true;
}

static inline bool
rec_ehcur_sleb(struct rec_ehcur *c, int64_t *v)
{
	const uint8_t *p = c->sec + c->pos;

	if (sp_leb_get_s64(&p, c->sec + c->end, v) < 0)
		return false;
	c->pos = (size_t)(p - c->sec);
	return true;
}

/* The value of a pointer of encoding `enc`'s format (the low 4 bits). */
static inline bool
rec_ehcur_raw(struct rec_ehcur *c, uint8_t enc, uint64_t *raw)
{
	int64_t s64;
	uint16_t u16;
	uint32_t u32;

	switch (enc & 0x0f) {
	case 0x00:
	case 0x04:
	case 0x0c:
		return rec_ehcur_get(c, raw, 8);
	case 0x01:
		return rec_ehcur_uleb(c, raw);
	case 0x09: /* DW_EH_PE_sleb128: a pc-relative one may be negative */
		if (!rec_ehcur_sleb(c, &s64))
			return false;
		*raw = (uint64_t)s64;
		return true;
	case 0x02:
	case 0x0a:
		if (!rec_ehcur_get(c, &u16, 2))
			return false;
		*raw = enc & 0x08 ? (uint64_t)(int64_t)(int16_t)u16 : u16;
		return true;
	case 0x03:
	case 0x0b:
		if (!rec_ehcur_get(c, &u32, 4))
			return false;
		*raw = enc & 0x08 ? (uint64_t)(int64_t)(int32_t)u32 : u32;
		return true;
	}
	return false;
}

/*
 * Reads a DW_EH_PE-encoded pointer.  Absolute and pc-relative values of
 * fixed size (and uleb/sleb) are supported, as libunwind's own lookup
 * does; anything else (datarel, aligned, omit) fails.  The indirect bit
 * is not looked at: callers that care check it.
 */
static inline bool
rec_ehcur_pointer(struct rec_ehcur *c, uint8_t enc, uint64_t *v)
{
	uint64_t at = c->vaddr + c->pos, raw = 0;
	size_t pos = c->pos;

	if (enc == 0xff) /* DW_EH_PE_omit */
		return false;
	if (!rec_ehcur_raw(c, enc, &raw))
		return false;
	switch (enc & 0x70) {
	case 0x00:
		*v = raw;
		return true;
	case 0x10:
		*v = at + raw;
		return true;
	}
	c->pos = pos;
	return false;
}

#endif
