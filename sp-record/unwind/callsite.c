/*
 * callsite.c: decoding the call before a return address (callsite.h).
 */
#include <string.h>

#include "sp-record/unwind/callsite.h"
#include "common/banned.h"

bool
rec_callsite_target(const uint8_t before[REC_CALLSITE_BEFORE], uint64_t ra,
		    uint64_t *target)
{
	int32_t rel;

	if (before[0] != 0xe8)
		return false;
	memcpy(&rel, before + 1, sizeof(rel));
	*target = ra + (uint64_t)(int64_t)rel;
	return true;
}

/* The length of ff /2 with ModRM `modrm` (and SIB `sib`), or 0. */
static size_t
indirect_len(uint8_t modrm, uint8_t sib)
{
	unsigned mod = modrm >> 6, reg = modrm >> 3 & 7, rm = modrm & 7;
	size_t len = 2;

	if (reg != 2)
		return 0;
	if (mod == 3)
		return len;
	if (rm == 4) {
		len++;
		if (mod == 0 && (sib & 7) == 5)
			len += 4;
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		len += 4;
	return len;
}

bool
rec_callsite_indirect(const uint8_t before[REC_CALLSITE_INDIRECT])
{
	size_t i, at;

	for (i = 0; i + 2 <= REC_CALLSITE_INDIRECT; i++) {
		at = i + ((before[i] & 0xf0) == 0x40);
		if (at + 2 > REC_CALLSITE_INDIRECT || before[at] != 0xff)
			continue;
		if (at + indirect_len(before[at + 1],
				      at + 2 < REC_CALLSITE_INDIRECT
					  ? before[at + 2]
					  : 0) ==
		    REC_CALLSITE_INDIRECT)
			return true;
	}
	return false;
}

bool
rec_callsite_is_plt(const uint8_t code[REC_CALLSITE_PLT])
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const uint8_t *p = code;

	if (memcmp(p, endbr64, sizeof(endbr64)) == 0) {
		p += sizeof(endbr64);
		if (p[0] == 0xf2)
			p++;
	}
	return p[0] == 0xff && p[1] == 0x25;
}

size_t
rec_callsite_jumps(const uint8_t *code, size_t len, uint64_t at, uint64_t *out,
		   size_t max)
{
	size_t i, op, n = 0;
	uint64_t dest;
	int32_t rel;

	for (i = 0; i + 5 <= len; i++) {
		if (code[i] == 0xe9)
			op = 1;
		else if (code[i] == 0x0f && i + 6 <= len &&
			 (code[i + 1] & 0xf0) == 0x80)
			op = 2;
		else
			continue;
		memcpy(&rel, code + i + op, sizeof(rel));
		dest = at + i + op + 4 + (uint64_t)(int64_t)rel;
		if (dest >= at && dest < at + len)
			continue;
		if (n < max)
			out[n] = dest;
		n++;
	}
	return n;
}
