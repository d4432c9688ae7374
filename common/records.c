/* records.c: escaping and field parsing of records.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/records.h"
#include "common/spool.h"
#include "common/banned.h"

static void
hex_escape(unsigned char c, char *out)
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	out[4] = 0;
}

/*
 * The escape sequence for the byte at s[i], or NULL when it stands for
 * itself; *used is how many bytes it covers.  A C1 control in UTF-8
 * (U+0080 to U+009F: C2 80 to C2 9F) is escaped whole, since terminals
 * may act on it as they do on ESC.
 */
static const char *
escape_at(const unsigned char *s, size_t i, size_t n, char tmp[9], size_t *used)
{
	unsigned char c = s[i];

	*used = 1;
	switch (c) {
	case '\\':
		return "\\\\";
	case '\t':
		return "\\t";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	}
	if (c == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f) {
		hex_escape(c, tmp);
		hex_escape(s[i + 1], tmp + 4);
		*used = 2;
		return tmp;
	}
	if (c >= 0x20 && c != 0x7f)
		return NULL;
	hex_escape(c, tmp);
	return tmp;
}

/*
 * Writes s[0..n) escaped through `put`, a run of bytes that stand for
 * themselves at a time: the one loop of sp_escape and sp_escape_file.
 * Stops at put's first nonzero return and returns it.
 */
static int
escape_to(const char *s, size_t n,
	  int (*put)(void *sink, const char *p, size_t len), void *sink)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0, used;
	char tmp[9];
	int rc;

	while (i < n) {
		const char *e = escape_at(u, i, n, tmp, &used);

		if (!e) {
			i++;
			continue;
		}
		if ((rc = put(sink, s + run, i - run)) ||
		    (rc = put(sink, e, strlen(e))))
			return rc;
		i += used;
		run = i;
	}
	return put(sink, s + run, n - run);
}

static int
put_buf(void *sink, const char *p, size_t len)
{
	return sp_buf_add(sink, p, len);
}

/* A write error stays in the stream, for the caller's ferror(). */
static int
put_file(void *sink, const char *p, size_t len)
{
	fwrite(p, 1, len, sink);
	return 0;
}

int
sp_escape(struct sp_buf *out, const char *s, size_t n)
{
	return escape_to(s, n, put_buf, out);
}

void
sp_escape_file(FILE *f, const char *s, size_t n)
{
	escape_to(s, n, put_file, f);
}

int
sp_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long
sp_unescape(char *s)
{
	char *w = s;
	const char *r = s;

	while (*r) {
		if (*r != '\\') {
			*w++ = *r++;
			continue;
		}
		switch (r[1]) {
		case '\\':
			*w++ = '\\';
			r += 2;
			break;
		case 't':
			*w++ = '\t';
			r += 2;
			break;
		case 'n':
			*w++ = '\n';
			r += 2;
			break;
		case 'r':
			*w++ = '\r';
			r += 2;
			break;
		case 'x':
			if (sp_hexval(r[2]) < 0 || sp_hexval(r[3]) < 0)
				return -EBADMSG;
			*w++ = (char)(sp_hexval(r[2]) << 4 | sp_hexval(r[3]));
			r += 4;
			break;
		default:
			return -EBADMSG;
		}
	}
	*w = 0;
	return (long)(w - s);
}

/*
 * Decimal digits only, at least one, up to 2^64 - 1; by hand, as strtoull
 * with its locale and errno was a tenth of a reader's time.
 */
int
sp_parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	unsigned d;

	if (*s < '0' || *s > '9')
		return -EBADMSG;
	for (; *s; s++) {
		d = (unsigned)(*s - '0');
		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -EBADMSG;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

int
sp_parse_i32(const char *s, int32_t *v)
{
	bool neg = *s == '-';
	uint64_t x;

	if (sp_parse_u64(s + neg, &x) || x > (uint64_t)INT32_MAX + neg)
		return -EBADMSG;
	*v = neg ? (int32_t)(0 - x) : (int32_t)x;
	return 0;
}

int
sp_parse_hex(const char *s, uint64_t *v)
{
	char *end;

	if (s[0] != '0' || s[1] != 'x' || sp_hexval(s[2]) < 0)
		return -EBADMSG;
	errno = 0;
	*v = strtoull(s + 2, &end, 16);
	return errno || *end ? -EBADMSG : 0;
}

int
sp_parse_id(const char *s, uint32_t *v)
{
	uint64_t x;

	if (!strcmp(s, "-")) {
		*v = SP_NONE;
		return 0;
	}
	if (sp_parse_u64(s, &x) || x >= SP_NONE)
		return -EBADMSG;
	*v = (uint32_t)x;
	return 0;
}

const char *
sp_frame_mode_name(enum sp_frame_mode mode)
{
	return mode == SP_FRAME_KERNEL      ? "kernel"
	       : mode == SP_FRAME_TRUNCATED ? "truncated"
					    : "user";
}

int
sp_parse_frame_mode(const char *s, enum sp_frame_mode *mode)
{
	if (!strcmp(s, "user"))
		*mode = SP_FRAME_USER;
	else if (!strcmp(s, "kernel"))
		*mode = SP_FRAME_KERNEL;
	else if (!strcmp(s, "truncated"))
		*mode = SP_FRAME_TRUNCATED;
	else
		return -EBADMSG;
	return 0;
}

size_t
sp_utf8_len(const void *p, size_t n)
{
	const uint8_t *s = p;
	size_t len, k;
	uint32_t cp;

	if (!n)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (k = 1; k < len; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}
