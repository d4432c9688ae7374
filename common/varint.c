/* varint.c: LEB128 numbers and the spool's varints of varint.h. */
#include <errno.h>

#include "common/varint.h"
#include "common/banned.h"

/*
 * Both readers go byte by byte, shift 0, 7, ... 63 and then staying at 70
 * for the bytes a padded number adds: only the byte at 63 and those after
 * it can hold bits beyond 64, and each is checked for them.
 */
int
sp_leb_get_u64(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	unsigned shift = 0;
	uint64_t out = 0;
	uint8_t c;

	do {
		if (q >= end)
			return -EAGAIN;
		c = *q++;
		if (shift < 63)
			out |= (uint64_t)(c & 0x7f) << shift;
		else if (c & (shift == 63 ? 0x7e : 0x7f))
			return -EOVERFLOW;
		else if (shift == 63)
			out |= (uint64_t)(c & 1) << 63;
		shift += shift < 64 ? 7 : 0;
	} while (c & 0x80);
	*p = q;
	*v = out;
	return 0;
}

int
sp_leb_get_s64(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	const uint8_t *q = *p;
	unsigned shift = 0;
	uint64_t out = 0;
	uint8_t c, fill;

	do {
		if (q >= end)
			return -EAGAIN;
		c = *q++;
		/* From bit 63 on, every bit is the sign. */
		fill = shift == 63 ? (c & 1) * 0x7f : (out >> 63) * 0x7f;
		if (shift < 63)
			out |= (uint64_t)(c & 0x7f) << shift;
		else if ((c & 0x7f) != fill)
			return -EOVERFLOW;
		else if (shift == 63)
			out |= (uint64_t)(c & 1) << 63;
		shift += shift < 64 ? 7 : 0;
	} while (c & 0x80);
	if (shift < 64 && (c & 0x40))
		out |= ~(uint64_t)0 << shift;
	*p = q;
	*v = (int64_t)out;
	return 0;
}

int
sp_varint_put_u64(struct sp_buf *b, uint64_t v)
{
	uint8_t *o;
	int rc;

	/* Encoded in place: writers put several per record. */
	if ((rc = sp_buf_grow(b, SP_VARINT_MAX)))
		return rc;
	o = b->data + b->len;
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	b->len = (size_t)(o - b->data);
	b->data[b->len] = 0;
	return 0;
}

int
sp_varint_put_i64(struct sp_buf *b, int64_t v)
{
	uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);

	return sp_varint_put_u64(b, u);
}

int
sp_varint_get_u64(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *stop = end;
	int rc;

	/* Fast path: most spool numbers are one byte. */
	if (*p < end && !(**p & 0x80)) {
		*v = *(*p)++;
		return 0;
	}
	if (end - *p > SP_VARINT_MAX)
		stop = *p + SP_VARINT_MAX;
	rc = sp_leb_get_u64(p, stop, v);
	if (rc == -EAGAIN && stop != end)
		return -EBADMSG; /* more than 10 bytes */
	return rc == -EOVERFLOW ? -EBADMSG : rc;
}

int
sp_varint_get_i64(const uint8_t **p, const uint8_t *end, int64_t *v)
{
	uint64_t u;
	int rc = sp_varint_get_u64(p, end, &u);

	if (rc)
		return rc;
	*v = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
	return 0;
}
