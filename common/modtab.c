/*
 * modtab.c: the recorder's module table (modtab.h).
 *
 * Only active modules are kept: a module is freed when its process
 * execs or exits, so the table is as big as the live processes' mappings
 * however many processes came and went.  Each owner (a process, or the
 * kernel) has a group listing its modules and an index sorted by start
 * address, rebuilt only when that group changed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/grow.h"
#include "common/htab.h"
#include "common/modtab.h"
#include "common/search.h"
#include "common/banned.h"

/* Holds what resolution needs, so that it never looks a module up. */
struct entry {
	uint64_t start, end, file_offset;
	uint32_t id;
};

struct group {
	struct entry *mods; /* its modules, ascending ids */
	size_t n, alloc;
	struct entry *index; /* sorted by (start, id) unless overlaps */
	size_t nindex;
	size_t hint; /* the index entry found last: a stack's frames run
			in a few modules, each many frames long */
	bool dirty, overlaps;
};

struct sp_modtab {
	struct sp_htab *by_id; /* id -> struct sp_module * (path copied) */
	uint32_t next_id;
	struct sp_htab *dedup;  /* module identity -> id */
	struct sp_htab *owners; /* pid -> struct group * */
	struct group kernel;
	struct sp_buf key; /* scratch for identity keys */
	/* the group resolved last, by pid: a stack's frames are one pid's */
	struct group *last;
	int32_t last_pid;
};

struct sp_modtab *
sp_modtab_new(void)
{
	struct sp_modtab *t = calloc(1, sizeof(*t));

	if (!t || !(t->dedup = sp_htab_new()) || !(t->owners = sp_htab_new()) ||
	    !(t->by_id = sp_htab_new())) {
		sp_modtab_free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

static void
module_free(struct sp_module *m)
{
	if (m)
		free((char *)m->path);
	free(m);
}

static void
group_free(struct group *g)
{
	free(g->mods);
	free(g->index);
}

void
sp_modtab_free(struct sp_modtab *t)
{
	size_t pos = 0;
	uint64_t val;

	if (!t)
		return;
	while (t->by_id && sp_htab_next(t->by_id, &pos, NULL, NULL, &val))
		module_free((struct sp_module *)(uintptr_t)val);
	pos = 0;
	while (t->owners && sp_htab_next(t->owners, &pos, NULL, NULL, &val)) {
		group_free((struct group *)(uintptr_t)val);
		free((struct group *)(uintptr_t)val);
	}
	group_free(&t->kernel);
	sp_htab_free(t->by_id);
	sp_htab_free(t->dedup);
	sp_htab_free(t->owners);
	sp_buf_release(&t->key);
	free(t);
}

static struct sp_module *
module_of(const struct sp_modtab *t, uint32_t id)
{
	uint64_t val;

	return sp_htab_get(t->by_id, &id, sizeof(id), &val)
		   ? (struct sp_module *)(uintptr_t)val
		   : NULL;
}

static struct group *
group_of(struct sp_modtab *t, bool is_kernel, int32_t pid, bool create)
{
	uint64_t key = (uint64_t)(int64_t)pid, val;
	struct group *g;

	if (is_kernel)
		return &t->kernel;
	if (sp_htab_get(t->owners, &key, sizeof(key), &val))
		return (struct group *)(uintptr_t)val;
	if (!create || !(g = calloc(1, sizeof(*g))))
		return NULL;
	if (sp_htab_put(t->owners, &key, sizeof(key), (uintptr_t)g)) {
		free(g);
		return NULL;
	}
	return g;
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

/* Copies `m` under the next id into `g`; the caller has its identity key. */
static int
add_module(struct sp_modtab *t, const struct sp_module *m, struct group *g)
{
	struct sp_module *copy = malloc(sizeof(*copy));
	uint32_t id = t->next_id;

	if (!copy)
		return -ENOMEM;
	*copy = *m;
	copy->id = id;
	copy->path = strndup(m->path ? m->path : "", m->path_len);
	if (!copy->path || SP_GROW(g->mods, g->alloc, g->n + 1) ||
	    sp_htab_put(t->by_id, &id, sizeof(id), (uintptr_t)copy)) {
		module_free(copy);
		return -ENOMEM;
	}
	if (sp_htab_put(t->dedup, t->key.data, t->key.len, id)) {
		sp_htab_del(t->by_id, &id, sizeof(id));
		module_free(copy);
		return -ENOMEM;
	}
	t->next_id++;
	g->mods[g->n++] =
	    (struct entry){ m->start, m->end, m->file_offset, id };
	g->dirty = true;
	return 0;
}

/*
 * Module `m` no longer answers to its identity: an identical module
 * interned later gets a new id.  A newer module of the same identity may
 * own the key by now; it keeps it.
 */
static void
forget_identity(struct sp_modtab *t, const struct sp_module *m)
{
	uint64_t val;

	if (!identity_key(t, m) &&
	    sp_htab_get(t->dedup, t->key.data, t->key.len, &val) &&
	    val == m->id)
		sp_htab_del(t->dedup, t->key.data, t->key.len);
}

/* Forgets module `id` entirely: it is no longer active. */
static void
drop_module(struct sp_modtab *t, uint32_t id)
{
	struct sp_module *m = module_of(t, id);

	if (!m)
		return;
	forget_identity(t, m);
	sp_htab_del(t->by_id, &id, sizeof(id));
	module_free(m);
}

/*
 * The newest module `e` of `g` was mapped over older ones: an address it
 * covers no longer resolves to them, and a mapping that comes back later
 * (dlclose, dlopen) is a new module, not the one it replaced.  Older
 * modules it covers wholly are dropped; one it covers in part keeps the
 * rest of its range but not its identity.
 */
static void
supersede(struct sp_modtab *t, struct group *g, struct entry e)
{
	struct sp_module *m;
	size_t i, kept = 0;

	for (i = 0; i < g->n; i++) {
		struct entry o = g->mods[i];

		if (o.id == e.id || o.end <= e.start || e.end <= o.start) {
			g->mods[kept++] = o;
			continue;
		}
		if (e.start <= o.start && o.end <= e.end) {
			drop_module(t, o.id);
			continue;
		}
		if ((m = module_of(t, o.id)))
			forget_identity(t, m);
		g->mods[kept++] = o;
	}
	g->n = kept;
}

int
sp_modtab_intern(struct sp_modtab *t, const struct sp_module *m,
		 struct sp_spool_writer *w, uint32_t *id)
{
	struct group *g;
	uint64_t old;

	*id = SP_NONE;
	if (m->end <= m->start)
		return 0;
	if (identity_key(t, m))
		return -ENOMEM;
	if (sp_htab_get(t->dedup, t->key.data, t->key.len, &old)) {
		*id = (uint32_t)old;
		return 0;
	}
	g = group_of(t, m->is_kernel, m->pid, true);
	if (!g || add_module(t, m, g))
		return -ENOMEM;
	*id = t->next_id - 1;
	supersede(t, g, g->mods[g->n - 1]);
	return w ? sp_spool_writer_module(w, module_of(t, *id)) : 0;
}

int
sp_modtab_deactivate(struct sp_modtab *t, int32_t pid,
		     struct sp_spool_writer *w)
{
	uint64_t key = (uint64_t)(int64_t)pid;
	struct group *g = group_of(t, false, pid, false);
	size_t i, n;

	if (!g)
		return 0;
	n = g->n;
	for (i = 0; i < n; i++)
		drop_module(t, g->mods[i].id);
	sp_htab_del(t->owners, &key, sizeof(key));
	if (t->last == g)
		t->last = NULL;
	group_free(g);
	free(g);
	return n && w ? sp_spool_writer_deactivate(w, pid) : 0;
}

int
sp_modtab_clone(struct sp_modtab *t, int32_t parent, int32_t child,
		struct sp_spool_writer *w)
{
	struct group *g = group_of(t, false, parent, false);
	size_t i, n = g && parent != child ? g->n : 0;
	uint32_t id;
	int rc;

	/* The parent's modules in id order, so that the newer of two
	 * overlapping ones is newer in the child too. */
	for (i = 0; i < n; i++) {
		struct sp_module m = *module_of(t, g->mods[i].id);

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
rebuild(struct group *g)
{
	struct entry *e = reallocarray(g->index, g->n ? g->n : 1, sizeof(*e));
	size_t i;

	if (!e)
		return;
	g->index = e;
	memcpy(e, g->mods, g->n * sizeof(*e));
	g->nindex = g->n;
	qsort(e, g->n, sizeof(*e), cmp_entry);
	g->overlaps = false;
	for (i = 1; i < g->n; i++)
		if (e[i - 1].end > e[i].start)
			g->overlaps = true;
	/* With overlaps the newest covering module wins: keep id order. */
	if (g->overlaps)
		memcpy(e, g->mods, g->n * sizeof(*e));
	g->dirty = false;
}

static const struct entry *
group_find(struct group *g, uint64_t addr)
{
	size_t i;

	/* without overlaps, the one entry that covers addr is the answer */
	if (!g->overlaps && g->hint < g->nindex &&
	    g->index[g->hint].start <= addr && addr < g->index[g->hint].end)
		return &g->index[g->hint];
	if (g->overlaps) {
		for (i = g->nindex; i-- > 0;)
			if (g->index[i].start <= addr && addr < g->index[i].end)
				return &g->index[i];
		return NULL;
	}
	i = SP_SEARCH_LAST_LE(g->index, g->nindex, start, addr);
	if (i != SIZE_MAX && addr < g->index[i].end) {
		g->hint = i;
		return &g->index[i];
	}
	return NULL;
}

void
sp_modtab_resolve(struct sp_modtab *t, int32_t pid, uint64_t abs_ip,
		  enum sp_frame_mode mode, struct sp_frame *out)
{
	const struct entry *e = NULL;
	struct group *g = NULL;

	if (mode == SP_FRAME_USER && t->last && t->last_pid == pid) {
		g = t->last;
	} else if (mode == SP_FRAME_USER) {
		g = group_of(t, false, pid, false);
		t->last = g;
		t->last_pid = pid;
	} else if (mode == SP_FRAME_KERNEL)
		g = &t->kernel;
	if (g && g->dirty)
		rebuild(g);
	if (g && !g->dirty)
		e = group_find(g, abs_ip);
	out->mode = mode;
	out->abs_ip = abs_ip;
	out->module_id = e ? e->id : SP_NONE;
	out->rel_ip = e ? abs_ip - e->start + e->file_offset : abs_ip;
}

const struct sp_module *
sp_modtab_get(const struct sp_modtab *t, uint32_t id)
{
	return module_of(t, id);
}

bool
sp_modtab_is_active(const struct sp_modtab *t, uint32_t id)
{
	return module_of(t, id) != NULL;
}

uint32_t
sp_modtab_count(const struct sp_modtab *t)
{
	return t->next_id;
}
