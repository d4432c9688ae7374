/*
 * varint.h: LEB128 varints as the spool uses them.  Signed values are
 * zigzag-encoded first ((v << 1) ^ (v >> 63)).
 */
#ifndef SP_VARINT_H
#define SP_VARINT_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define SP_VARINT_MAX 10 /* bytes in the longest u64 */

/* Appends to `b`; return 0 or -ENOMEM. */
int sp_varint_put_u64(struct sp_buf *b, uint64_t v);
int sp_varint_put_i64(struct sp_buf *b, int64_t v);

/*
 * Decodes from [*p, end).  Returns 0 and advances *p, -EAGAIN if the input
 * ends inside the varint, or -EBADMSG if it is longer than 10 bytes or
 * overflows 64 bits.
 */
int sp_varint_get_u64(const uint8_t **p, const uint8_t *end, uint64_t *v);
int sp_varint_get_i64(const uint8_t **p, const uint8_t *end, int64_t *v);

#endif
