/* ext_py.c: the Python frame records' codecs and checks (ext_py.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/ext_py.h"
#include "common/grow.h"
#include "common/spool.h"
#include "common/varint.h"
#include "common/banned.h"

/* A decoding cursor: every read is checked against `end`. */
struct cur {
	const uint8_t *p;
	const uint8_t *end;
};

/* An id below SP_NONE, or SP_NONE itself when `none_ok`. */
static int
get_id(struct cur *c, uint32_t *id, bool none_ok)
{
	uint64_t v;

	if (sp_varint_get_u64(&c->p, c->end, &v) || v > SP_NONE ||
	    (v == SP_NONE && !none_ok))
		return -EBADMSG;
	*id = (uint32_t)v;
	return 0;
}

static int
get_i32(struct cur *c, int32_t *v)
{
	int64_t s;

	if (sp_varint_get_i64(&c->p, c->end, &s) || s < INT32_MIN ||
	    s > INT32_MAX)
		return -EBADMSG;
	*v = (int32_t)s;
	return 0;
}

static int
get_str(struct cur *c, const char **s, size_t *n)
{
	uint64_t len;

	if (sp_varint_get_u64(&c->p, c->end, &len) ||
	    len > (uint64_t)(c->end - c->p))
		return -EBADMSG;
	*s = (const char *)c->p;
	*n = (size_t)len;
	c->p += len;
	return 0;
}

/* A flags byte with no bit outside `known`. */
static int
get_flags(struct cur *c, uint8_t *f, uint8_t known)
{
	if (c->p >= c->end || (*c->p & ~known))
		return -EBADMSG;
	*f = *c->p++;
	return 0;
}

static int
put_str(struct sp_buf *out, const char *s, size_t n)
{
	int rc = sp_varint_put_u64(out, n);

	return rc ? rc : sp_buf_add(out, s, n);
}

int
sp_ext_pycode_encode(struct sp_buf *out, const struct sp_ext_pycode *c)
{
	int rc = sp_varint_put_u64(out, c->id);

	rc = rc ? rc : sp_varint_put_i64(out, c->firstline);
	rc = rc ? rc : put_str(out, c->name, c->name_len);
	return rc ? rc : put_str(out, c->file, c->file_len);
}

int
sp_ext_pycode_decode(const uint8_t *p, size_t n, struct sp_ext_pycode *c)
{
	struct cur cu = { p, p + n };

	if (get_id(&cu, &c->id, false) || get_i32(&cu, &c->firstline) ||
	    get_str(&cu, &c->name, &c->name_len) ||
	    get_str(&cu, &c->file, &c->file_len))
		return -EBADMSG;
	return cu.p == cu.end ? 0 : -EBADMSG;
}

int
sp_ext_pynode_encode(struct sp_buf *out, const struct sp_ext_pynode *nd)
{
	int rc = sp_varint_put_u64(out, nd->id);

	rc = rc ? rc : sp_varint_put_u64(out, nd->prefix);
	rc = rc ? rc : sp_varint_put_u64(out, nd->code);
	rc = rc ? rc : sp_varint_put_i64(out, nd->line);
	return rc ? rc : sp_buf_addc(out, nd->flags);
}

int
sp_ext_pynode_decode(const uint8_t *p, size_t n, struct sp_ext_pynode *nd)
{
	struct cur cu = { p, p + n };

	if (get_id(&cu, &nd->id, false) || get_id(&cu, &nd->prefix, true) ||
	    get_id(&cu, &nd->code, false) || get_i32(&cu, &nd->line) ||
	    get_flags(&cu, &nd->flags, SP_PYNODE_ENTRY))
		return -EBADMSG;
	return cu.p == cu.end ? 0 : -EBADMSG;
}

int
sp_ext_pystack_encode(struct sp_buf *out, const struct sp_ext_pystack *s)
{
	int rc;
	uint32_t i;

	if (s->ngroups > SP_PYSTACK_GROUPS_MAX)
		return -EINVAL;
	rc = sp_varint_put_u64(out, s->leaf);
	rc = rc ? rc : sp_buf_addc(out, s->flags);
	rc = rc ? rc : sp_varint_put_u64(out, s->ngroups);
	for (i = 0; rc == 0 && i < s->ngroups; i++)
		rc = sp_varint_put_u64(out, s->index[i]);
	return rc;
}

int
sp_ext_pystack_decode(const uint8_t *p, size_t n, struct sp_ext_pystack *s)
{
	struct cur cu = { p, p + n };
	uint32_t i;

	if (get_id(&cu, &s->leaf, true) ||
	    get_flags(&cu, &s->flags,
		      SP_PYSTACK_TRUNCATED | SP_PYSTACK_INCONSISTENT) ||
	    get_id(&cu, &s->ngroups, false) ||
	    s->ngroups > SP_PYSTACK_GROUPS_MAX)
		return -EBADMSG;
	for (i = 0; i < s->ngroups; i++)
		if (get_id(&cu, &s->index[i], false))
			return -EBADMSG;
	return cu.p == cu.end ? 0 : -EBADMSG;
}

void
sp_py_bounds_release(struct sp_py_bounds *b)
{
	free(b->entries);
	memset(b, 0, sizeof(*b));
}

const char *
sp_py_check_code(struct sp_py_bounds *b, const struct sp_ext_pycode *c)
{
	if (c->id != b->ncodes)
		return "pycode id out of order";
	if (memchr(c->name, 0, c->name_len) || memchr(c->file, 0, c->file_len))
		return "pycode name or file holds a NUL byte";
	b->ncodes++;
	return NULL;
}

const char *
sp_py_check_node(struct sp_py_bounds *b, const struct sp_ext_pynode *nd)
{
	uint32_t above;

	if (nd->id != b->nnodes)
		return "pynode id out of order";
	if (nd->prefix != SP_NONE && nd->prefix >= b->nnodes)
		return "pynode prefix not defined before";
	if (nd->code >= b->ncodes)
		return "pynode pycode not defined before";
	if (SP_GROW(b->entries, b->anodes, (size_t)b->nnodes + 1))
		return "out of memory";
	above = nd->prefix == SP_NONE ? 0 : b->entries[nd->prefix];
	b->entries[b->nnodes++] =
	    above + ((nd->flags & SP_PYNODE_ENTRY) ? 1 : 0);
	return NULL;
}

const char *
sp_py_check_stack(struct sp_py_bounds *b, const struct sp_ext_pystack *s)
{
	uint32_t want = 0, i;

	if (b->stack_pending)
		return "a second pystack before its sample";
	if (s->leaf != SP_NONE && s->leaf >= b->nnodes)
		return "pystack leaf not defined before";
	if (s->leaf != SP_NONE && !(s->flags & SP_PYSTACK_INCONSISTENT))
		want = b->entries[s->leaf];
	if (s->ngroups != want)
		return "pystack groups do not match the entry nodes of its "
		       "chain";
	for (i = 1; i < s->ngroups; i++)
		if (s->index[i] >= s->index[i - 1])
			return "pystack indexes not strictly decreasing";
	b->need_depth = s->ngroups ? s->index[0] + 1 : 0;
	b->stack_pending = true;
	return NULL;
}

const char *
sp_py_check_sample(struct sp_py_bounds *b, uint32_t depth)
{
	bool fits = depth >= b->need_depth;

	b->stack_pending = false;
	b->need_depth = 0;
	return fits ? NULL
		    : "the pystack's deepest index lies past its "
		      "sample's frames";
}

const char *
sp_py_check_ext(struct sp_py_bounds *b, uint8_t tag, const uint8_t *p, size_t n,
		const char *malformed)
{
	struct sp_ext_pycode c;
	struct sp_ext_pynode nd;
	struct sp_ext_pystack s;

	switch (tag) {
	case SP_EXT_PYCODE:
		if (sp_ext_pycode_decode(p, n, &c))
			return malformed;
		return sp_py_check_code(b, &c);
	case SP_EXT_PYNODE:
		if (sp_ext_pynode_decode(p, n, &nd))
			return malformed;
		return sp_py_check_node(b, &nd);
	case SP_EXT_PYSTACK:
		if (sp_ext_pystack_decode(p, n, &s))
			return malformed;
		return sp_py_check_stack(b, &s);
	}
	return NULL;
}

static const char *const flag_names[4] = {
	"ok",
	"truncated",
	"inconsistent",
	"inconsistent",
};

const char *
sp_pystack_flags_name(uint8_t flags)
{
	return flag_names[flags & 3];
}

int
sp_pystack_flags_parse(const char *word)
{
	int i;

	for (i = 0; i < 3; i++)
		if (!strcmp(word, flag_names[i]))
			return i == 2 ? SP_PYSTACK_INCONSISTENT : i;
	return -1;
}
