/* buf.c: the growable byte buffer of buf.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/banned.h"

int
sp_buf_grow(struct sp_buf *b, size_t extra)
{
	size_t need, alloc;
	uint8_t *p;

	if (extra > SIZE_MAX - b->len - 1)
		return -ENOMEM;
	need = b->len + extra + 1;
	if (need <= b->alloc)
		return 0;
	alloc = b->alloc ? b->alloc : 64;
	while (alloc < need)
		alloc = alloc > SIZE_MAX / 2 ? need : alloc * 2;
	p = realloc(b->data, alloc);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->alloc = alloc;
	b->data[b->len] = 0;
	return 0;
}

int
sp_buf_add(struct sp_buf *b, const void *p, size_t n)
{
	int rc = sp_buf_grow(b, n);

	if (rc)
		return rc;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
	return 0;
}

int
sp_buf_addc(struct sp_buf *b, uint8_t c)
{
	return sp_buf_add(b, &c, 1);
}

int
sp_buf_adds(struct sp_buf *b, const char *s)
{
	return sp_buf_add(b, s, strlen(s));
}

int
sp_buf_addf(struct sp_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, rc;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	rc = sp_buf_grow(b, (size_t)n);
	if (rc)
		return rc;
	va_start(ap, fmt);
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void
sp_buf_consume(struct sp_buf *b, size_t n)
{
	if (n >= b->len) {
		sp_buf_reset(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = 0;
}

void
sp_buf_reset(struct sp_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = 0;
}

void
sp_buf_release(struct sp_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
}

/*
 * Moves what stdio holds of `f` into `b`, up to and including a newline
 * and at most `room` bytes; sets *eol when it took a newline.  Returns 0
 * or -ENOMEM.  glibc's buffer is read in place (a byte at a time was most
 * of a record reader's time); elsewhere nothing is taken and the caller
 * reads byte by byte.
 */
static int
take_buffered(struct sp_buf *b, FILE *f, size_t room, bool *eol)
{
#ifdef __GLIBC__
	const char *p = f->_IO_read_ptr, *nl;
	size_t n = (size_t)(f->_IO_read_end - f->_IO_read_ptr);

	if (!p || !n)
		return 0;
	if (n > room)
		n = room;
	nl = memchr(p, '\n', n);
	if (nl) {
		n = (size_t)(nl - p) + 1;
		*eol = true;
	}
	if (sp_buf_grow(b, n))
		return -ENOMEM;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
	f->_IO_read_ptr += n;
#else
	(void)b;
	(void)f;
	(void)room;
	(void)eol;
#endif
	return 0;
}

int
sp_buf_getline(struct sp_buf *b, FILE *f, size_t max)
{
	bool eol = false;
	int c;

	sp_buf_reset(b);
	for (;;) {
		if (take_buffered(b, f, max - b->len, &eol))
			return -ENOMEM;
		if (eol)
			return 1;
		/* Refills stdio's buffer, or ends the input. */
		if ((c = getc_unlocked(f)) == EOF)
			break;
		if (b->len == max)
			return -E2BIG;
		if (sp_buf_grow(b, 1))
			return -ENOMEM;
		b->data[b->len++] = (uint8_t)c;
		b->data[b->len] = 0;
		if (c == '\n')
			return 1;
	}
	if (ferror(f))
		return -EIO;
	return b->len > 0;
}
