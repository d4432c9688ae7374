/*
 * records.h: the text record stream that sp-dump writes and the other
 * tools read: one record per line, fields separated by tabs, the first
 * field naming the kind.  docs/sp-records.5 describes every kind.
 *
 * Text fields that may hold any byte (paths, names) are escaped: a
 * backslash, tab, newline or carriage return becomes \\ \t \n \r, other
 * control bytes and DEL become \xHH.
 */
#ifndef SP_RECORDS_H
#define SP_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "common/spool.h"

#define SP_RECORDS_VERSION 1

/* Appends `s` escaped; returns 0 or -ENOMEM. */
int sp_escape(struct sp_buf *out, const char *s, size_t n);
/* Writes `s` escaped to `f`. */
void sp_escape_file(FILE *f, const char *s, size_t n);
/*
 * Unescapes `s` in place (NUL-terminates it); returns the new length or
 * -EBADMSG for a malformed escape.
 */
long sp_unescape(char *s);

/* One line split into fields; pointers are into the reader's buffer. */
struct sp_fields {
	size_t n;
	char **f;         /* n NUL-terminated fields */
	uint64_t lineno;  /* 1-based */
	const char *line; /* the raw line without its newline */
	size_t line_len;
};

struct sp_recin;

/* Creates a line reader of `f` (not owned).  NULL with errno on failure. */
struct sp_recin *sp_recin_new(FILE *f);
void sp_recin_free(struct sp_recin *in);
/*
 * Reads the next non-empty line into *out (valid until the next call).
 * Returns 1, 0 at end of input, -EIO on a read error, -EBADMSG for a
 * line with a NUL byte or a last line with no newline (a cut stream).
 */
int sp_recin_next(struct sp_recin *in, struct sp_fields *out);

/*
 * Field parsers: return 0 or -EBADMSG.  Decimal for ids, counts and pids;
 * hex with a 0x prefix for addresses; "-" parses as SP_NONE for ids.
 */
int sp_parse_u64(const char *s, uint64_t *v);
int sp_parse_i32(const char *s, int32_t *v);
int sp_parse_hex(const char *s, uint64_t *v);
int sp_parse_id(const char *s, uint32_t *v);
/* The value of a hex digit, or -1. */
int sp_hexval(char c);

/* A frame mode's name in records ("user", "kernel", "truncated"). */
const char *sp_frame_mode_name(enum sp_frame_mode mode);
/* Parses a frame mode's name; returns 0 or -EBADMSG. */
int sp_parse_frame_mode(const char *s, enum sp_frame_mode *mode);

#endif
