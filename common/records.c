/* records.c: escaping, line splitting and field parsing of records.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/records.h"
#include "common/spool.h"
#include "common/banned.h"

/* The escape sequence for byte c, or NULL when c stands for itself. */
static const char *
escape_of(unsigned char c, char tmp[5])
{
	static const char hex[] = "0123456789abcdef";

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
	if (c >= 0x20 && c != 0x7f)
		return NULL;
	tmp[0] = '\\';
	tmp[1] = 'x';
	tmp[2] = hex[c >> 4];
	tmp[3] = hex[c & 15];
	tmp[4] = 0;
	return tmp;
}

int
sp_escape(struct sp_buf *out, const char *s, size_t n)
{
	size_t i, run = 0;
	char tmp[5];

	for (i = 0; i < n; i++) {
		const char *e = escape_of((unsigned char)s[i], tmp);

		if (!e)
			continue;
		if (sp_buf_add(out, s + run, i - run) || sp_buf_adds(out, e))
			return -ENOMEM;
		run = i + 1;
	}
	return sp_buf_add(out, s + run, n - run);
}

void
sp_escape_file(FILE *f, const char *s, size_t n)
{
	size_t i, run = 0;
	char tmp[5];

	for (i = 0; i < n; i++) {
		const char *e = escape_of((unsigned char)s[i], tmp);

		if (!e)
			continue;
		fwrite(s + run, 1, i - run, f);
		fputs(e, f);
		run = i + 1;
	}
	fwrite(s + run, 1, n - run, f);
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

struct sp_recin {
	FILE *f;
	char *line; /* getline's buffer: split in place */
	size_t cap;
	char *raw; /* an unsplit copy for pass-through */
	size_t rawcap;
	char **fields;
	size_t afields;
	uint64_t lineno;
};

struct sp_recin *
sp_recin_new(FILE *f)
{
	struct sp_recin *in = calloc(1, sizeof(*in));

	if (!in) {
		errno = ENOMEM;
		return NULL;
	}
	in->f = f;
	return in;
}

void
sp_recin_free(struct sp_recin *in)
{
	if (!in)
		return;
	free(in->line);
	free(in->raw);
	free(in->fields);
	free(in);
}

static int
split(struct sp_recin *in, char *s, struct sp_fields *out)
{
	size_t n = 0;

	for (;;) {
		char *tab = strchr(s, '\t');

		if (n == in->afields) {
			size_t na = in->afields ? in->afields * 2 : 16;
			char **f = reallocarray(in->fields, na, sizeof(*f));

			if (!f)
				return -ENOMEM;
			in->fields = f;
			in->afields = na;
		}
		in->fields[n++] = s;
		if (!tab)
			break;
		*tab = 0;
		s = tab + 1;
	}
	out->n = n;
	out->f = in->fields;
	return 0;
}

int
sp_recin_next(struct sp_recin *in, struct sp_fields *out)
{
	ssize_t n;

	do {
		n = getline(&in->line, &in->cap, in->f);
		if (n < 0)
			return ferror(in->f) ? -EIO : 0;
		in->lineno++;
		if (memchr(in->line, 0, (size_t)n))
			return -EBADMSG;
		if (in->line[n - 1] != '\n')
			return -EBADMSG;
		in->line[--n] = 0;
	} while (n == 0);
	if ((size_t)n + 1 > in->rawcap) {
		char *raw = realloc(in->raw, (size_t)n + 1);

		if (!raw)
			return -ENOMEM;
		in->raw = raw;
		in->rawcap = (size_t)n + 1;
	}
	memcpy(in->raw, in->line, (size_t)n + 1);
	out->lineno = in->lineno;
	out->line = in->raw;
	out->line_len = (size_t)n;
	return split(in, in->line, out) ? -ENOMEM : 1;
}

int
sp_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EBADMSG;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EBADMSG : 0;
}

int
sp_parse_i32(const char *s, int32_t *v)
{
	char *end;
	long long x;

	if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
		return -EBADMSG;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || *end || x < INT32_MIN || x > INT32_MAX)
		return -EBADMSG;
	*v = (int32_t)x;
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
