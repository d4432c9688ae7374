/*
 * fuzz_pydecode.c: libFuzzer harness for sp-record's decoders of CPython
 * memory (line tables and str objects), which read a hostile process's
 * bytes.  The first byte picks the decoder: 0-2 a line table format,
 * with a first line and an address in the next eight bytes and the
 * table after them; 3 a str object header in the layout of 3.11 or 3.12
 * (the second byte), whose characters are the bytes after the header.
 * Decoders must stay inside the input, a location table must say "no
 * line" past what its entries can cover, and decoded text must be
 * UTF-8 without NUL.
 *
 * pydecode.c is compiled in directly: it needs only common/buf.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/python/pydecode.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether `s` is UTF-8 without NUL, overlong forms or surrogates. */
static int
valid_utf8(const uint8_t *s, size_t n)
{
	size_t i = 0, k, len;
	uint32_t c;

	while (i < n) {
		if (s[i] == 0)
			return 0;
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		len = s[i] >= 0xf0   ? 4
		      : s[i] >= 0xe0 ? 3
		      : s[i] >= 0xc0 ? 2
				     : 0;
		if (len == 0 || i + len > n)
			return 0;
		c = s[i] & (0x7f >> len);
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			c = c << 6 | (s[i + k] & 63);
		}
		if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) ||
		    (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
		    (c >= 0xd800 && c <= 0xdfff))
			return 0;
		i += len;
	}
	return 1;
}

static void
lines(const uint8_t *copy, size_t size)
{
	enum rec_pydecode_lines fmt = (enum rec_pydecode_lines)copy[0];
	int32_t first, line, cut;
	uint32_t addr;

	if (size < 9)
		return;
	memcpy(&first, copy + 1, 4);
	memcpy(&addr, copy + 5, 4);
	line = rec_pydecode_line(fmt, copy + 9, size - 9, first, addr);
	if (line < -1)
		abort();
	/* a cut table knows no more than the whole one did */
	cut = rec_pydecode_line_cut(fmt, copy + 9, size - 9, first, addr);
	if (cut != line && cut != -1)
		abort();
	/* an entry covers at most 8 code units of 2 bytes */
	if (fmt == REC_PY_LOCATIONS && (uint64_t)addr >= 16 * (size - 9) &&
	    line != -1)
		abort();
}

static void
str(const uint8_t *copy, size_t size)
{
	static const struct rec_pydecode_strlayout l311 = { 16, 32, 48, 72 };
	static const struct rec_pydecode_strlayout l312 = { 16, 32, 40, 56 };
	const struct rec_pydecode_strlayout *l;
	struct sp_buf out = SP_BUF_INIT;
	struct rec_pydecode_strshape s;
	size_t hlen, avail;

	if (size < 2)
		return;
	l = copy[1] & 1 ? &l312 : &l311;
	hlen = size - 2 < l->compact_size ? size - 2 : l->compact_size;
	if (rec_pydecode_str_shape(copy + 2, hlen, l, 1024, &s) < 0)
		return;
	if (s.nchars > 1024 || s.nbytes != s.nchars * s.kind ||
	    (s.data_off != l->ascii_size && s.data_off != l->compact_size))
		abort();
	avail = size - 2 - hlen;
	if (avail > s.nbytes)
		avail = s.nbytes;
	if (rec_pydecode_str_utf8(copy + 2 + hlen, avail, s.kind, &out) == 0 &&
	    !valid_utf8(out.data, out.len))
		abort();
	sp_buf_release(&out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so that ASan sees any read past the end. */
	uint8_t *copy;

	if (size == 0)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (copy[0] < 3)
		lines(copy, size);
	else if (copy[0] == 3)
		str(copy, size);
	free(copy);
	return 0;
}
