/*
 * symres.c: results of symbolizing one frame (see symres.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/names.h"
#include "sp-symbolize/out/symres.h"
#include "common/banned.h"

struct sym_entry *
sym_res_add(struct sym_res *r, const char *name)
{
	struct sym_entry *s;

	if (r->n == r->alloc) {
		size_t alloc = r->alloc ? 2 * r->alloc : 4;
		struct sym_entry *v = realloc(r->v, alloc * sizeof(*v));

		if (!v)
			return NULL;
		r->v = v;
		r->alloc = alloc;
	}
	s = &r->v[r->n];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		return NULL;
	r->n++;
	return s;
}

struct sym_entry *
sym_res_addhex(struct sym_res *r, const char *prefix, uint64_t value)
{
	char *name;
	struct sym_entry *s;

	if (asprintf(&name, "%s+0x%" PRIx64, prefix, value) < 0)
		return NULL;
	s = sym_res_add(r, name);
	free(name);
	return s;
}

int
sym_sym_set_file(struct sym_entry *s, const char *file, unsigned line)
{
	char *copy = strdup(file);

	if (!copy)
		return -ENOMEM;
	free(s->file);
	s->file = copy;
	s->line = line;
	return 0;
}

int
sym_res_append(struct sym_res *dst, const struct sym_res *src)
{
	size_t i;

	for (i = 0; i < src->n; i++) {
		const struct sym_entry *a = &src->v[i];
		struct sym_entry *b = sym_res_add(dst, a->name);

		if (!b || (a->file && sym_sym_set_file(b, a->file, a->line)))
			return -ENOMEM;
		b->offset = a->offset;
		b->has_offset = a->has_offset;
		b->flags = a->flags;
		b->start_line = a->start_line;
	}
	return 0;
}

void
sym_res_flag_all(struct sym_res *r, unsigned flags)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		r->v[i].flags |= flags;
}

void
sym_res_release(struct sym_res *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].file);
	}
	free(r->v);
	r->v = NULL;
	r->n = r->alloc = 0;
}

int
sym_res_add_fallback(struct sym_res *r, const struct sp_frame *f,
		     const char *path, unsigned flags)
{
	struct sp_buf name = SP_BUF_INIT;
	struct sym_entry *s = NULL;

	if (sp_fallback_name(&name, f->mode, path, f->rel_ip, f->abs_ip) == 0)
		s = sym_res_add(r, (const char *)name.data);
	sp_buf_release(&name);
	if (!s)
		return -ENOMEM;
	s->flags |= flags;
	return 0;
}
