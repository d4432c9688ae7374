/*
 * buf.h: a growable byte buffer embedded by value.
 *
 * Invariants: `data` is NULL when `alloc` is 0; otherwise it points to
 * `alloc` bytes of which the first `len` are in use and data[len] is a NUL
 * byte, so a buffer of text can be passed to C string functions.  Start
 * with SP_BUF_INIT and end with sp_buf_release().
 */
#ifndef SP_BUF_H
#define SP_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sp_buf {
	uint8_t *data;
	size_t len;
	size_t alloc;
};

#define SP_BUF_INIT                                                            \
	{                                                                      \
		NULL, 0, 0                                                     \
	}

/* Makes room for `extra` more bytes; returns 0 or -ENOMEM. */
int sp_buf_grow(struct sp_buf *b, size_t extra);
/* Appends `n` bytes; returns 0 or -ENOMEM. */
int sp_buf_add(struct sp_buf *b, const void *p, size_t n);
int sp_buf_addc(struct sp_buf *b, uint8_t c);
int sp_buf_adds(struct sp_buf *b, const char *s);
/* printf-style append; returns 0 or -ENOMEM. */
int sp_buf_addf(struct sp_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * Reads one line of `f`, its newline included when it has one, into `b`
 * (emptied first).  Returns 1 for a line, 0 at the end of the input with
 * nothing read, -E2BIG when the line passes `max` bytes (b then holds the
 * first `max`), -EIO for a read error (errno tells which) or -ENOMEM.  A
 * failed read is never taken for the end of the input.
 */
int sp_buf_getline(struct sp_buf *b, FILE *f, size_t max);
/* Removes the first `n` bytes, moving the rest to the front. */
void sp_buf_consume(struct sp_buf *b, size_t n);
/* Empties the buffer but keeps its memory. */
void sp_buf_reset(struct sp_buf *b);
/* Frees the memory and leaves the buffer as SP_BUF_INIT. */
void sp_buf_release(struct sp_buf *b);

#endif
