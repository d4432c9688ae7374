/* varint.c: LEB128 and zigzag varints of varint.h. */
#include <errno.h>

#include "common/varint.h"
#include "common/banned.h"

int
sp_varint_put_u64(struct sp_buf *b, uint64_t v)
{
	uint8_t tmp[SP_VARINT_MAX];
	size_t n = 0;

	do {
		tmp[n] = v & 0x7f;
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	return sp_buf_add(b, tmp, n);
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
	const uint8_t *q = *p;
	uint64_t out = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t c;

		if (q >= end)
			return -EAGAIN;
		c = *q++;
		/* The tenth byte may carry only the top bit of a u64. */
		if (shift == 63 && (c & 0x7e))
			return -EBADMSG;
		out |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
		shift += 7;
		if (shift > 63)
			return -EBADMSG;
	}
	*p = q;
	*v = out;
	return 0;
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
