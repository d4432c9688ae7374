/*
 * recpy.c: the Python frame records of the text record stream (records.h):
 * their one decoder, called by recdec.c, and their one spelling, called by
 * recwrite.c.
 *
 *   pycode   ID FIRSTLINE NAME FILE
 *   pynode   ID PREFIX|- PYCODE LINE entry|-
 *   pystack  LEAF|- ok|truncated|inconsistent INDEX,INDEX,...|-
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/records.h"
#include "common/banned.h"

/* Sets *why to "bad WHAT 'FIELD'" and returns -EBADMSG. */
static int
bad_field(struct sp_buf *why, const char *kind, const char *what, const char *s)
{
	sp_buf_reset(why);
	sp_buf_addf(why, "malformed %s record: bad %s '", kind, what);
	sp_escape(why, s, strnlen(s, 64));
	sp_buf_adds(why, strlen(s) > 64 ? "...'" : "'");
	return -EBADMSG;
}

static int
say(struct sp_buf *why, const char *kind, const char *msg)
{
	sp_buf_reset(why);
	sp_buf_addf(why, "%s record: %s", kind, msg);
	return -EBADMSG;
}

static int
get_id(const char *s, bool none_ok, uint32_t *id)
{
	return sp_parse_id(s, id) || (*id == SP_NONE && !none_ok) ? -EBADMSG
								  : 0;
}

/* A line number: decimal, "-1" for unknown. */
static int
get_line(const char *s, int32_t *v)
{
	return sp_parse_i32(s, v);
}

/* Unescapes a text field in place; NUL bytes are refused. */
static int
text(char *s, size_t *len)
{
	long n = sp_unescape(s);

	if (n < 0 || strlen(s) != (size_t)n)
		return -EBADMSG;
	*len = (size_t)n;
	return 0;
}

static int
dec_code(char **f, struct sp_rec *rec, struct sp_py_bounds *b,
	 struct sp_buf *why)
{
	struct sp_ext_pycode *c = &rec->u.pycode;
	const char *msg;

	if (get_id(f[1], false, &c->id))
		return bad_field(why, "pycode", "ID", f[1]);
	if (get_line(f[2], &c->firstline))
		return bad_field(why, "pycode", "FIRSTLINE", f[2]);
	if (text(f[3], &c->name_len))
		return bad_field(why, "pycode", "NAME", f[3]);
	if (text(f[4], &c->file_len))
		return bad_field(why, "pycode", "FILE", f[4]);
	c->name = f[3];
	c->file = f[4];
	msg = sp_py_check_code(b, c);
	return msg ? say(why, "pycode", msg) : 0;
}

static int
dec_node(char **f, struct sp_rec *rec, struct sp_py_bounds *b,
	 struct sp_buf *why)
{
	struct sp_ext_pynode *nd = &rec->u.pynode;
	const char *msg;

	if (get_id(f[1], false, &nd->id))
		return bad_field(why, "pynode", "ID", f[1]);
	if (get_id(f[2], true, &nd->prefix))
		return bad_field(why, "pynode", "PREFIX", f[2]);
	if (get_id(f[3], false, &nd->code))
		return bad_field(why, "pynode", "PYCODE", f[3]);
	if (get_line(f[4], &nd->line))
		return bad_field(why, "pynode", "LINE", f[4]);
	if (strcmp(f[5], "entry") && strcmp(f[5], "-"))
		return bad_field(why, "pynode", "flag", f[5]);
	nd->flags = strcmp(f[5], "entry") ? 0 : SP_PYNODE_ENTRY;
	msg = sp_py_check_node(b, nd);
	return msg ? say(why, "pynode", msg) : 0;
}

/* "I,J,K" or "-" into s->index. */
static int
indexes(const char *list, struct sp_ext_pystack *s)
{
	char num[16];
	const char *p = list, *comma;
	size_t n;

	s->ngroups = 0;
	if (!strcmp(list, "-"))
		return 0;
	for (;;) {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		if (n == 0 || n >= sizeof(num) ||
		    s->ngroups == SP_PYSTACK_GROUPS_MAX)
			return -EBADMSG;
		memcpy(num, p, n);
		num[n] = 0;
		if (get_id(num, false, &s->index[s->ngroups++]))
			return -EBADMSG;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int
dec_stack(char **f, struct sp_rec *rec, struct sp_py_bounds *b,
	  struct sp_ext_pystack *s, struct sp_buf *why)
{
	const char *msg;
	int flags;

	if (get_id(f[1], true, &s->leaf))
		return bad_field(why, "pystack", "LEAF", f[1]);
	if ((flags = sp_pystack_flags_parse(f[2])) < 0)
		return bad_field(why, "pystack", "flag", f[2]);
	s->flags = (uint8_t)flags;
	if (indexes(f[3], s))
		return bad_field(why, "pystack", "INDEX list", f[3]);
	rec->u.pystack = s;
	msg = sp_py_check_stack(b, s);
	return msg ? say(why, "pystack", msg) : 0;
}

int
sp_recpy_decode(char **f, struct sp_rec *rec, struct sp_py_bounds *b,
		struct sp_ext_pystack *s, struct sp_buf *why)
{
	switch (rec->kind) {
	case SP_REC_PYCODE:
		return dec_code(f, rec, b, why);
	case SP_REC_PYNODE:
		return dec_node(f, rec, b, why);
	case SP_REC_PYSTACK:
		return dec_stack(f, rec, b, s, why);
	default:
		return -EINVAL;
	}
}

static void
write_stack(FILE *f, const struct sp_ext_pystack *s)
{
	uint32_t i;

	fputs("pystack\t", f);
	if (s->leaf == SP_NONE)
		fputc('-', f);
	else
		fprintf(f, "%" PRIu32, s->leaf);
	fprintf(f, "\t%s\t", sp_pystack_flags_name(s->flags));
	if (!s->ngroups)
		fputc('-', f);
	for (i = 0; i < s->ngroups; i++)
		fprintf(f, "%s%" PRIu32, i ? "," : "", s->index[i]);
	fputc('\n', f);
}

void
sp_recpy_write(FILE *f, const struct sp_rec *rec)
{
	const struct sp_ext_pycode *c = &rec->u.pycode;
	const struct sp_ext_pynode *nd = &rec->u.pynode;

	switch (rec->kind) {
	case SP_REC_PYCODE:
		fprintf(f, "pycode\t%" PRIu32 "\t%" PRId32 "\t", c->id,
			c->firstline);
		sp_escape_file(f, c->name, c->name_len);
		fputc('\t', f);
		sp_escape_file(f, c->file, c->file_len);
		fputc('\n', f);
		break;
	case SP_REC_PYNODE:
		fprintf(f, "pynode\t%" PRIu32 "\t", nd->id);
		if (nd->prefix == SP_NONE)
			fputc('-', f);
		else
			fprintf(f, "%" PRIu32, nd->prefix);
		fprintf(f, "\t%" PRIu32 "\t%" PRId32 "\t%s\n", nd->code,
			nd->line, nd->flags & SP_PYNODE_ENTRY ? "entry" : "-");
		break;
	case SP_REC_PYSTACK:
		write_stack(f, rec->u.pystack);
		break;
	default:
		break;
	}
}
