/*
 * hex.c: the hex encoder of hex.h.
 */
#include "common/hex.h"
#include "common/banned.h"

void
sp_hex_encode(const uint8_t *raw, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = digits[raw[i] >> 4];
		out[2 * i + 1] = digits[raw[i] & 15];
	}
	out[2 * len] = '\0';
}
