/*
 * callsite.c: decoding the call before a return address (callsite.h).
 */
#include <string.h>

#include "sp-record/callsite.h"
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
