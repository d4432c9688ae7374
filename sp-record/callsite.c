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
