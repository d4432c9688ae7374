/*
 * group.c: grouped frame names (group.h).  The shapes parsed here are
 * the ones sp-symbolize writes (its kernel symbols, "NAME+0xOFF" or
 * "NAME+0xOFF [MODULE]") and the fallback names of common/names.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/names.h"
#include "sp-fold/model/group.h"
#include "sp-fold/model/model.h"
#include "common/banned.h"

#define UNKNOWN_NAME "[unknown]"

/* The length of a "+0xHEX" at p, or 0 when there is none. */
static size_t
hex_suffix(const char *p, const char *end)
{
	const char *q;

	if (end - p < 4 || memcmp(p, "+0x", 3))
		return 0;
	for (q = p + 3; q < end && isxdigit((unsigned char)*q); q++)
		;
	return q > p + 3 ? (size_t)(q - p) : 0;
}

/* "vfs_read+0x14 [mod]" -> "vfs_read [mod]": the last offset is cut. */
static int
kernel_name(struct sp_buf *out, const char *name, size_t n)
{
	const char *end = name + n;
	size_t i, k;

	for (i = n; i-- > 1;) {
		if (name[i] != '+' || !(k = hex_suffix(name + i, end)))
			continue;
		if (i + k != n && name[i + k] != ' ')
			continue;
		if (sp_buf_add(out, name, i))
			return -ENOMEM;
		return sp_buf_add(out, name + i + k, n - i - k);
	}
	return sp_buf_add(out, name, n);
}

/* "MODULE+0xADDR" -> "[MODULE]", "<0xADDR>" -> "[unknown]". */
static int
unresolved_name(struct sp_buf *out, const char *name, size_t n)
{
	const char *end = name + n, *plus;
	size_t len;

	if (n > 3 && !memcmp(name, "<0x", 3) && end[-1] == '>')
		return sp_buf_adds(out, UNKNOWN_NAME);
	plus = memrchr(name, '+', n);
	if (!plus || hex_suffix(plus, end) != (size_t)(end - plus))
		return sp_buf_add(out, name, n);
	len = (size_t)(plus - name);
	if (!len)
		return sp_buf_adds(out, UNKNOWN_NAME);
	/* a pseudo-path such as "[vdso]" is bracketed already */
	if (name[0] == '[' && name[len - 1] == ']')
		return sp_buf_add(out, name, len);
	if (sp_buf_addc(out, '[') || sp_buf_add(out, name, len))
		return -ENOMEM;
	return sp_buf_addc(out, ']');
}

int
fold_group_name(struct sp_buf *out, const char *name, size_t n, unsigned flags)
{
	if (flags & SP_SYM_UNRESOLVED)
		return unresolved_name(out, name, n);
	if (flags & SP_SYM_KERNEL)
		return kernel_name(out, name, n);
	return sp_buf_add(out, name, n);
}

int
fold_sym_group(struct fold_sym *s)
{
	struct sp_buf b = SP_BUF_INIT;
	size_t n = strlen(s->name);

	free(s->group);
	s->group = NULL;
	if (fold_group_name(&b, s->name, n, s->flags)) {
		sp_buf_release(&b);
		return -ENOMEM;
	}
	if (b.len != n || (n && memcmp(b.data, s->name, n)))
		s->group = (char *)b.data; /* never empty, so not NULL */
	else
		sp_buf_release(&b);
	return 0;
}

const char *
fold_sym_shown(const struct fold_sym *s, const struct fold_name_opts *o)
{
	return o->addrs || !s->group ? s->name : s->group;
}

int
fold_view_fallback(const struct fold_view *v, const struct fold_model *m,
		   bool addrs, struct sp_buf *out)
{
	struct sp_buf b = SP_BUF_INIT;
	const struct fold_module *mod = fold_model_module(m, v->module);
	const char *path = mod ? mod->path : NULL;
	unsigned flags = SP_SYM_UNRESOLVED;
	int rc;

	if (v->mode == SP_FRAME_TRUNCATED)
		flags = SP_SYM_TRUNCATED;
	rc = sp_fallback_name(&b, v->mode, path, v->rel_ip, v->abs_ip);
	if (!rc && addrs)
		rc = sp_buf_add(out, b.data, b.len);
	else if (!rc)
		rc = fold_group_name(out, (const char *)b.data, b.len, flags);
	sp_buf_release(&b);
	return rc;
}
