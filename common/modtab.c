/*
 * modtab.c: the recorder's module table (modtab.h).
 *
 * Modules are kept by id forever (frames refer to them); each owner (a
 * process, or the kernel) has a group listing its active modules and an
 * index sorted by start address, rebuilt only when that group changed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/grow.h"
#include "common/htab.h"
#include "common/modtab.h"
#include "common/banned.h"

struct entry {
	uint64_t start, end;
	uint32_t id;
};

struct group {
	uint32_t *ids; /* active modules, ascending ids */
	size_t n, alloc;
	struct entry *index; /* sorted by (start, id) unless overlaps */
	size_t nindex;
	bool dirty, overlaps;
};

struct sp_modtab {
	struct sp_module *mods;
	bool *active;
	size_t n, alloc, aactive;
	struct sp_htab *dedup;  /* module identity -> id */
	struct sp_htab *owners; /* pid -> group index */
	struct group *groups;
	size_t ngroups, agroups;
	struct group kernel;
	struct sp_buf key; /* scratch for identity keys */
};

struct sp_modtab *
sp_modtab_new(void)
{
	struct sp_modtab *t = calloc(1, sizeof(*t));

	if (!t || !(t->dedup = sp_htab_new()) || !(t->owners = sp_htab_new())) {
		sp_modtab_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void
sp_modtab_free(struct sp_modtab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		free((char *)t->mods[i].path);
	for (i = 0; i < t->ngroups; i++) {
		free(t->groups[i].ids);
		free(t->groups[i].index);
	}
	free(t->kernel.ids);
	free(t->kernel.index);
	free(t->groups);
	free(t->mods);
	free(t->active);
	sp_htab_free(t->dedup);
	sp_htab_free(t->owners);
	sp_buf_release(&t->key);
	free(t);
}

static struct group *
group_of(struct sp_modtab *t, bool is_kernel, int32_t pid, bool create)
{
	uint64_t key = (uint64_t)(int64_t)pid, idx, *slot;
	bool fresh;

	if (is_kernel)
		return &t->kernel;
	if (!create)
		return sp_htab_get(t->owners, &key, sizeof(key), &idx)
			   ? &t->groups[idx]
			   : NULL;
	if (SP_GROW(t->groups, t->agroups, t->ngroups + 1))
		return NULL;
	slot = sp_htab_slot(t->owners, &key, sizeof(key), t->ngroups, &fresh);
	if (!slot)
		return NULL;
	if (fresh)
		memset(&t->groups[t->ngroups++], 0, sizeof(*t->groups));
	return &t->groups[*slot];
}

static int
identity_key(struct sp_modtab *t, const struct sp_module *m)
{
	uint64_t f[6] = { (uint64_t)(int64_t)m->pid,
			  m->start,
			  m->end,
			  m->file_offset,
			  m->inode,
			  m->is_kernel };

	sp_buf_reset(&t->key);
	if (sp_buf_add(&t->key, f, sizeof(f)) ||
	    sp_buf_add(&t->key, m->path, m->path_len))
		return -ENOMEM;
	return 0;
}

static int
add_module(struct sp_modtab *t, const struct sp_module *m, struct group *g)
{
	struct sp_module *copy;

	if (SP_GROW(t->mods, t->alloc, t->n + 1) ||
	    SP_GROW(t->active, t->aactive, t->n + 1) ||
	    SP_GROW(g->ids, g->alloc, g->n + 1))
		return -ENOMEM;
	copy = &t->mods[t->n];
	*copy = *m;
	copy->id = (uint32_t)t->n;
	copy->path = strndup(m->path ? m->path : "", m->path_len);
	if (!copy->path)
		return -ENOMEM;
	t->active[t->n++] = true;
	g->ids[g->n++] = copy->id;
	g->dirty = true;
	return 0;
}

int
sp_modtab_intern(struct sp_modtab *t, const struct sp_module *m,
		 struct sp_spool_writer *w, uint32_t *id)
{
	struct group *g;
	uint64_t old;
	int rc;

	*id = SP_NONE;
	if (m->end <= m->start)
		return 0;
	if (identity_key(t, m))
		return -ENOMEM;
	if (sp_htab_get(t->dedup, t->key.data, t->key.len, &old) &&
	    t->active[old]) {
		*id = (uint32_t)old;
		return 0;
	}
	g = group_of(t, m->is_kernel, m->pid, true);
	if (!g || add_module(t, m, g) ||
	    sp_htab_put(t->dedup, t->key.data, t->key.len, t->n - 1))
		return -ENOMEM;
	*id = (uint32_t)(t->n - 1);
	if (!w)
		return 0;
	rc = sp_spool_writer_module(w, &t->mods[*id]);
	return rc;
}

int
sp_modtab_deactivate(struct sp_modtab *t, int32_t pid,
		     struct sp_spool_writer *w)
{
	struct group *g = group_of(t, false, pid, false);
	size_t i;

	if (!g || !g->n)
		return 0;
	for (i = 0; i < g->n; i++)
		t->active[g->ids[i]] = false;
	g->n = 0;
	g->dirty = true;
	return w ? sp_spool_writer_deactivate(w, pid) : 0;
}

int
sp_modtab_clone(struct sp_modtab *t, int32_t parent, int32_t child,
		struct sp_spool_writer *w)
{
	struct group *g = group_of(t, false, parent, false);
	size_t i, n = g ? g->n : 0;
	uint32_t id;
	int rc;

	/* Interning for the child may move the groups array: index by i. */
	for (i = 0; i < n; i++) {
		struct sp_module m;

		g = group_of(t, false, parent, false);
		m = t->mods[g->ids[i]];
		m.pid = child;
		rc = sp_modtab_intern(t, &m, w, &id);
		if (rc)
			return rc;
	}
	return 0;
}

static int
cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Rebuilds a group's index; an allocation failure leaves it dirty. */
static void
rebuild(struct sp_modtab *t, struct group *g)
{
	struct entry *e = reallocarray(g->index, g->n ? g->n : 1, sizeof(*e));
	size_t i;

	if (!e)
		return;
	g->index = e;
	for (i = 0; i < g->n; i++) {
		e[i].start = t->mods[g->ids[i]].start;
		e[i].end = t->mods[g->ids[i]].end;
		e[i].id = g->ids[i];
	}
	g->nindex = g->n;
	qsort(e, g->n, sizeof(*e), cmp_entry);
	g->overlaps = false;
	for (i = 1; i < g->n; i++)
		if (e[i - 1].end > e[i].start)
			g->overlaps = true;
	/* With overlaps the newest covering module wins: keep id order. */
	if (g->overlaps)
		for (i = 0; i < g->n; i++) {
			e[i].start = t->mods[g->ids[i]].start;
			e[i].end = t->mods[g->ids[i]].end;
			e[i].id = g->ids[i];
		}
	g->dirty = false;
}

static uint32_t
group_find(const struct group *g, uint64_t addr)
{
	size_t lo = 0, hi = g->nindex;

	if (g->overlaps) {
		for (hi = g->nindex; hi-- > 0;)
			if (g->index[hi].start <= addr &&
			    addr < g->index[hi].end)
				return g->index[hi].id;
		return SP_NONE;
	}
	while (lo < hi) { /* first entry with start > addr */
		size_t mid = lo + (hi - lo) / 2;

		if (g->index[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < g->index[lo - 1].end)
		return g->index[lo - 1].id;
	return SP_NONE;
}

void
sp_modtab_resolve(struct sp_modtab *t, int32_t pid, uint64_t abs_ip,
		  enum sp_frame_mode mode, struct sp_frame *out)
{
	struct group *g = NULL;
	uint32_t id = SP_NONE;

	if (mode == SP_FRAME_USER)
		g = group_of(t, false, pid, false);
	else if (mode == SP_FRAME_KERNEL)
		g = &t->kernel;
	if (g && g->dirty)
		rebuild(t, g);
	if (g && !g->dirty)
		id = group_find(g, abs_ip);
	out->mode = mode;
	out->abs_ip = abs_ip;
	out->module_id = id;
	out->rel_ip = abs_ip;
	if (id != SP_NONE)
		out->rel_ip =
		    abs_ip - t->mods[id].start + t->mods[id].file_offset;
}

const struct sp_module *
sp_modtab_get(const struct sp_modtab *t, uint32_t id)
{
	return id < t->n ? &t->mods[id] : NULL;
}

bool
sp_modtab_is_active(const struct sp_modtab *t, uint32_t id)
{
	return id < t->n && t->active[id];
}

uint32_t
sp_modtab_count(const struct sp_modtab *t)
{
	return (uint32_t)t->n;
}
