/*
 * hex.h: bytes as lowercase hex, the one encoder: build ids in the
 * record stream, the symbol cache's and the capture tree's file names.
 */
#ifndef SP_HEX_H
#define SP_HEX_H

#include <stddef.h>
#include <stdint.h>

/*
 * Writes the `len` bytes at `raw` as 2 * len lowercase hex digits, then
 * a NUL, into `out`, which holds 2 * len + 1 bytes.
 */
void sp_hex_encode(const uint8_t *raw, size_t len, char *out);

#endif
