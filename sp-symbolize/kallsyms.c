/*
 * kallsyms.c: kernel symbol tables (see kallsyms.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp-symbolize/kallsyms.h"
#include "common/buf.h"
#include "common/banned.h"

#define SP_KSYM_NOMODULE SIZE_MAX

struct sp_ksym {
	uint64_t addr;
	size_t name;		/* offset into names */
	size_t module;		/* offset into names, or SP_KSYM_NOMODULE */
	unsigned rank;
	size_t seq;
};

struct sp_kallsyms {
	struct sp_ksym *v;
	size_t n;
	size_t alloc;
	struct sp_buf names;
};

static unsigned
type_rank(char type)
{
	switch (type) {
	case 'T':
		return 4;
	case 'W':
		return 3;
	case 't':
		return 2;
	case 'w':
		return 1;
	default:
		return 0;
	}
}

static size_t
underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

static size_t
add_name(struct sp_kallsyms *k, const char *s, size_t n)
{
	size_t off = k->names.len;

	if (sp_buf_add(&k->names, s, n) || sp_buf_addc(&k->names, '\0'))
		return SIZE_MAX;
	return off;
}

static int
ks_push(struct sp_kallsyms *k, uint64_t addr, unsigned rank,
	const char *name, const char *module)
{
	struct sp_ksym *s;

	if (k->n == k->alloc) {
		size_t alloc = k->alloc ? 2 * k->alloc : 1024;
		struct sp_ksym *v = realloc(k->v, alloc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->v = v;
		k->alloc = alloc;
	}
	s = &k->v[k->n];
	s->addr = addr;
	s->rank = rank * 64 + (63 - (underscores(name) & 63));
	s->seq = k->n;
	s->name = add_name(k, name, strlen(name));
	s->module = module ? add_name(k, module, strlen(module)) :
			     SP_KSYM_NOMODULE;
	if (s->name == SIZE_MAX || (module && s->module == SIZE_MAX))
		return -ENOMEM;
	k->n++;
	return 0;
}

/* Parses one line in place; returns 0, 1 to skip it, or -EBADMSG. */
static int
ks_parse_line(struct sp_kallsyms *k, char *line)
{
	char *end, *type, *name, *module, *save = NULL;
	unsigned long long addr;

	errno = 0;
	addr = strtoull(line, &end, 16);
	if (end == line || errno || !isspace((unsigned char)*end))
		return -EBADMSG;
	type = strtok_r(end, " \t\n", &save);
	name = strtok_r(NULL, " \t\n", &save);
	module = strtok_r(NULL, " \t\n", &save);
	if (!type || !name || type[1])
		return -EBADMSG;
	if (!type_rank(type[0]))
		return 1;
	return ks_push(k, addr, type_rank(type[0]), name, module);
}

static int
cmp_ksym(const void *pa, const void *pb)
{
	const struct sp_ksym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void
ks_finish(struct sp_kallsyms *k)
{
	size_t i, n = 0;
	bool nonzero = false;

	for (i = 0; i < k->n; i++)
		nonzero |= k->v[i].addr != 0;
	if (!nonzero) {
		k->n = 0;
		return;
	}
	qsort(k->v, k->n, sizeof(*k->v), cmp_ksym);
	for (i = 0; i < k->n; i++)
		if (n == 0 || k->v[n - 1].addr != k->v[i].addr)
			k->v[n++] = k->v[i];
	k->n = n;
}

struct sp_kallsyms *
sp_kallsyms_read(FILE *f, unsigned long *lineno)
{
	struct sp_kallsyms *k = calloc(1, sizeof(*k));
	char *line = NULL;
	size_t cap = 0;
	unsigned long no = 0;
	int rc = 0;

	if (!k)
		return NULL;
	while (rc >= 0 && getline(&line, &cap, f) > 0) {
		no++;
		if (line[0] != '\n')
			rc = ks_parse_line(k, line);
	}
	free(line);
	if (rc >= 0 && ferror(f))
		rc = -EIO;
	if (rc < 0) {
		if (lineno)
			*lineno = no;
		sp_kallsyms_free(k);
		errno = -rc;
		return NULL;
	}
	ks_finish(k);
	return k;
}

struct sp_kallsyms *
sp_kallsyms_load(const char *path, unsigned long *lineno)
{
	FILE *f = fopen(path, "re");
	struct sp_kallsyms *k;
	int saved;

	if (lineno)
		*lineno = 0;
	if (!f)
		return NULL;
	k = sp_kallsyms_read(f, lineno);
	saved = errno;
	fclose(f);
	errno = saved;
	return k;
}

void
sp_kallsyms_free(struct sp_kallsyms *k)
{
	if (!k)
		return;
	free(k->v);
	sp_buf_release(&k->names);
	free(k);
}

size_t
sp_kallsyms_count(const struct sp_kallsyms *k)
{
	return k->n;
}

bool
sp_kallsyms_lookup(const struct sp_kallsyms *k, uint64_t addr,
		   const char **name, const char **module, uint64_t *start)
{
	size_t lo = 0, hi = k->n;
	const struct sp_ksym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	s = &k->v[lo - 1];
	*name = (const char *)k->names.data + s->name;
	*module = s->module == SP_KSYM_NOMODULE ? NULL :
		  (const char *)k->names.data + s->module;
	*start = s->addr;
	return true;
}
