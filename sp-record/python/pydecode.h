/*
 * pydecode.h: decoders of bytes read from a CPython process: the line
 * tables of code objects and the characters of str objects.
 *
 * The bytes come from the target's memory, which the target may be
 * changing while we read it, so they are hostile input: every decoder is
 * bounded by the length it is given and never reads past it.
 */
#ifndef SP_RECORD_PYTHON_PYDECODE_H
#define SP_RECORD_PYTHON_PYDECODE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* The line table formats, by the CPython versions that use them. */
enum rec_pydecode_lines {
	REC_PY_LNOTAB,    /* 3.8, 3.9: co_lnotab byte pairs */
	REC_PY_LINES310,  /* 3.10: co_linetable byte pairs */
	REC_PY_LOCATIONS, /* 3.11+: co_linetable location entries */
};

/*
 * The source line of the instruction at byte offset `addr` of a code
 * object whose first line is `first`, from its line table `tab` of `len`
 * bytes in format `fmt`.  Returns the line, or -1 when the table says
 * the instruction has none or does not reach `addr` (a cut table).
 */
int32_t rec_pydecode_line(enum rec_pydecode_lines fmt, const uint8_t *tab,
			  size_t len, int32_t first, uint32_t addr);
/*
 * The same from the first `len` bytes of a longer table: -1 for an
 * instruction past what they cover (3.8 and 3.9's pairs otherwise give
 * the last line they reach).
 */
int32_t rec_pydecode_line_cut(enum rec_pydecode_lines fmt, const uint8_t *tab,
			      size_t len, int32_t first, uint32_t addr);

/* Where a str object's characters lie, from its header. */
struct rec_pydecode_strlayout {
	uint32_t length;       /* offset of the length (Py_ssize_t) */
	uint32_t state;        /* offset of the state bit field (32 bits) */
	uint32_t ascii_size;   /* sizeof(PyASCIIObject): ASCII data */
	uint32_t compact_size; /* sizeof(PyCompactUnicodeObject): others */
};

/* The shape of one str object: its data's offset, size and kind. */
struct rec_pydecode_strshape {
	uint32_t data_off; /* from the object's start */
	uint32_t kind;     /* bytes per character: 1, 2 or 4 */
	uint32_t nchars;
	uint32_t nbytes; /* nchars * kind */
};

/*
 * Reads the shape of a str object from the first `len` bytes of it
 * (`hdr`).  Only compact strings are understood (every name and file
 * name of a code object is one).  Returns 0, -EBADMSG when the header is
 * not a compact str's, or -E2BIG when it holds more than `max_chars`.
 */
int rec_pydecode_str_shape(const uint8_t *hdr, size_t len,
			   const struct rec_pydecode_strlayout *l,
			   uint32_t max_chars, struct rec_pydecode_strshape *s);

/*
 * Appends the `n` bytes of characters `data` of kind `kind` (1, 2 or 4
 * bytes each, native order) to `out` as UTF-8.  NUL characters, lone
 * surrogates and a trailing part character become U+FFFD, so the result
 * is a valid C string.  Returns 0, -EBADMSG for a kind other than 1, 2,
 * 4 or a code point past U+10FFFF, or -ENOMEM.
 */
int rec_pydecode_str_utf8(const uint8_t *data, size_t n, uint32_t kind,
			  struct sp_buf *out);

#endif
