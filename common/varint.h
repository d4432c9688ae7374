/*
 * varint.h: LEB128 numbers, the one reader of them for every format the
 * tools read (the spool, DWARF, .eh_frame), and the spool's varints.
 *
 * The one answer to an encoding (sp_leb_get_*): a value that fits 64 bits
 * is accepted however many bytes spell it, because producers pad (an
 * assembler's .uleb128 fills a fixed width with 0x80 bytes); a value that
 * does not fit is refused, never cut: ff ff ff ff ff ff ff ff ff 7f is
 * 2^70 - 1, -EOVERFLOW, not all ones.  For a signed (SLEB128) number,
 * the bits beyond 64 must repeat bit 63.
 *
 * The spool's varints (sp_varint_*) are these numbers of at most
 * SP_VARINT_MAX bytes, signed ones zigzag-encoded first
 * ((v << 1) ^ (v >> 63)).
 */
#ifndef SP_VARINT_H
#define SP_VARINT_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define SP_VARINT_MAX 10 /* bytes in the longest u64 */

/*
 * Decodes an unsigned (ULEB128) or signed (SLEB128) number from
 * [*p, end).  Returns 0 with the value in *v and *p after it; -EAGAIN
 * when the input ends inside the number (a stream may read more; for
 * input that is whole it is bad data); -EOVERFLOW when the value does not
 * fit 64 bits.  On error *p and *v are unchanged.  Reads no byte at or
 * past `end`.
 */
int sp_leb_get_u64(const uint8_t **p, const uint8_t *end, uint64_t *v);
int sp_leb_get_s64(const uint8_t **p, const uint8_t *end, int64_t *v);

/* Appends to `b` in the fewest bytes; return 0 or -ENOMEM. */
int sp_varint_put_u64(struct sp_buf *b, uint64_t v);
int sp_varint_put_i64(struct sp_buf *b, int64_t v);

/*
 * Decodes a spool varint from [*p, end): sp_leb_get_u64's answer, and
 * longer than SP_VARINT_MAX bytes is bad data.  Returns 0 and advances
 * *p, -EAGAIN if the input ends inside the varint, or -EBADMSG if it is
 * longer than 10 bytes or overflows 64 bits.
 */
int sp_varint_get_u64(const uint8_t **p, const uint8_t *end, uint64_t *v);
int sp_varint_get_i64(const uint8_t **p, const uint8_t *end, int64_t *v);

#endif
