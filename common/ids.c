/*
 * ids.c: per-id owners and forgetting.  Each process that owns ids has a
 * list of them by kind, so forgetting it costs what it owned.  Stack
 * nodes of two owners, which only a crafted stream holds, are listed
 * apart and checked at every forget.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/htab.h"
#include "common/idtab.h"
#include "common/ids.h"
#include "common/spool.h"
#include "common/banned.h"

enum own { OWN_SHARED, OWN_PID, OWN_MULTI };

/*
 * Who owns an id.  Heads live in tables of their own, apart from the
 * caller's data, so a reader's lookups touch only its data.
 */
struct head {
	int32_t pid; /* with OWN_PID */
	uint32_t own;
};

struct idvec {
	uint32_t *v;
	size_t n, alloc;
};

struct owner {
	int32_t pid;
	struct idvec ids[SP_ID_NKINDS];
};

/* A stack node of two owners or more, and what it is made of. */
struct multi {
	uint32_t id, prefix, frame_id;
};

struct sp_ids {
	struct sp_idtab *head[SP_ID_NKINDS]; /* struct head by id */
	struct sp_idtab *tab[SP_ID_NKINDS];  /* the caller's data, or NULL */
	struct sp_htab *owner_index;         /* pid -> index into owners */
	struct owner *owners;
	size_t nowners, aowners;
	struct multi *multi;
	size_t nmulti, amulti;
	struct owner *deferred; /* set apart by sp_ids_defer() */
	size_t ndeferred, adeferred;
	sp_ids_release_fn *release;
	void *ctx;
};

struct sp_ids *
sp_ids_new(const size_t extra[SP_ID_NKINDS], sp_ids_release_fn *release,
	   void *ctx)
{
	struct sp_ids *ids = calloc(1, sizeof(*ids));
	int k;

	if (!ids)
		goto nomem;
	ids->release = release;
	ids->ctx = ctx;
	ids->owner_index = sp_htab_new();
	if (!ids->owner_index)
		goto nomem;
	for (k = 0; k < SP_ID_NKINDS; k++) {
		ids->head[k] = sp_idtab_new(sizeof(struct head));
		if (!ids->head[k] ||
		    (extra[k] && !(ids->tab[k] = sp_idtab_new(extra[k]))))
			goto nomem;
	}
	return ids;
nomem:
	sp_ids_free(ids);
	errno = ENOMEM;
	return NULL;
}

static void
owner_release(struct owner *o)
{
	int k;

	for (k = 0; k < SP_ID_NKINDS; k++)
		free(o->ids[k].v);
}

void
sp_ids_free(struct sp_ids *ids)
{
	size_t i;
	int k;

	if (!ids)
		return;
	for (k = 0; k < SP_ID_NKINDS; k++) {
		sp_idtab_free(ids->head[k]);
		sp_idtab_free(ids->tab[k]);
	}
	for (i = 0; i < ids->nowners; i++)
		owner_release(&ids->owners[i]);
	for (i = 0; i < ids->ndeferred; i++)
		owner_release(&ids->deferred[i]);
	free(ids->owners);
	free(ids->deferred);
	free(ids->multi);
	sp_htab_free(ids->owner_index);
	free(ids);
}

static struct owner *
find_owner(const struct sp_ids *ids, int32_t pid)
{
	uint64_t key = (uint64_t)(int64_t)pid, idx;

	if (!sp_htab_get(ids->owner_index, &key, sizeof(key), &idx))
		return NULL;
	return &ids->owners[idx];
}

static struct owner *
get_owner(struct sp_ids *ids, int32_t pid)
{
	uint64_t key = (uint64_t)(int64_t)pid, *slot;
	bool fresh;

	if (SP_GROW(ids->owners, ids->aowners, ids->nowners + 1))
		return NULL;
	slot = sp_htab_slot(ids->owner_index, &key, sizeof(key), ids->nowners,
			    &fresh);
	if (!slot)
		return NULL;
	if (fresh) {
		memset(&ids->owners[ids->nowners], 0, sizeof(*ids->owners));
		ids->owners[ids->nowners++].pid = pid;
	}
	return &ids->owners[*slot];
}

/* Defines the next id of `kind` with its owner. */
static void *
define(struct sp_ids *ids, enum sp_id_kind kind, enum own own, int32_t pid)
{
	uint32_t id = sp_idtab_count(ids->head[kind]);
	struct owner *o = NULL;
	struct idvec *l = NULL;
	struct head *h;

	if (own == OWN_PID) {
		o = get_owner(ids, pid);
		l = o ? &o->ids[kind] : NULL;
		if (!l || SP_GROW(l->v, l->alloc, l->n + 1)) {
			errno = ENOMEM;
			return NULL;
		}
	}
	/* The data grows first; should the head then fail, the zeroed
	 * data entry waits for the next try. */
	if (ids->tab[kind] && sp_idtab_count(ids->tab[kind]) == id &&
	    !sp_idtab_add(ids->tab[kind]))
		return NULL;
	h = sp_idtab_add(ids->head[kind]);
	if (!h)
		return NULL;
	h->own = own;
	h->pid = pid;
	if (l)
		l->v[l->n++] = id;
	return ids->tab[kind] ? sp_idtab_get(ids->tab[kind], id) : h;
}

void *
sp_ids_module(struct sp_ids *ids, int32_t pid, bool is_kernel)
{
	return define(ids, SP_ID_MODULE, is_kernel ? OWN_SHARED : OWN_PID, pid);
}

void *
sp_ids_thread(struct sp_ids *ids, int32_t pid)
{
	return define(ids, SP_ID_THREAD, OWN_PID, pid);
}

static const struct head *
head_of(const struct sp_ids *ids, enum sp_id_kind kind, uint32_t id)
{
	return sp_idtab_get(ids->head[kind], id);
}

void *
sp_ids_frame(struct sp_ids *ids, uint32_t module_id)
{
	const struct head *m = NULL;

	if (module_id != SP_NONE)
		m = head_of(ids, SP_ID_MODULE, module_id);
	if (!m)
		return define(ids, SP_ID_FRAME, OWN_SHARED, 0);
	return define(ids, SP_ID_FRAME, m->own, m->pid);
}

void *
sp_ids_stack(struct sp_ids *ids, uint32_t prefix, uint32_t frame_id)
{
	const struct head *f = head_of(ids, SP_ID_FRAME, frame_id);
	const struct head *p = NULL;
	enum own own = f ? f->own : OWN_SHARED;
	int32_t pid = f ? f->pid : 0;
	void *data;

	if (prefix != SP_NONE)
		p = head_of(ids, SP_ID_STACK, prefix);
	if (p && p->own == OWN_MULTI)
		own = OWN_MULTI;
	else if (p && p->own == OWN_PID && own == OWN_SHARED)
		pid = p->pid, own = OWN_PID;
	else if (p && p->own == OWN_PID && p->pid != pid)
		own = OWN_MULTI;
	if (own == OWN_MULTI &&
	    SP_GROW(ids->multi, ids->amulti, ids->nmulti + 1)) {
		errno = ENOMEM;
		return NULL;
	}
	data = define(ids, SP_ID_STACK, own, pid);
	if (data && own == OWN_MULTI) {
		struct multi *m = &ids->multi[ids->nmulti++];

		m->id = sp_idtab_count(ids->head[SP_ID_STACK]) - 1;
		m->prefix = prefix;
		m->frame_id = frame_id;
	}
	return data;
}

void *
sp_ids_get(const struct sp_ids *ids, enum sp_id_kind kind, uint32_t id)
{
	if (!ids->tab[kind])
		return sp_idtab_get(ids->head[kind], id);
	return sp_idtab_get(ids->tab[kind], id);
}

const struct sp_idtab *
sp_ids_table(const struct sp_ids *ids, enum sp_id_kind kind)
{
	return ids->tab[kind];
}

uint32_t
sp_ids_count(const struct sp_ids *ids, enum sp_id_kind kind)
{
	return sp_idtab_count(ids->head[kind]);
}

size_t
sp_ids_live(const struct sp_ids *ids, enum sp_id_kind kind)
{
	return sp_idtab_live(ids->head[kind]);
}

static void
retire(struct sp_ids *ids, enum sp_id_kind kind, uint32_t id)
{
	void *data = sp_ids_get(ids, kind, id);

	if (!data)
		return;
	if (ids->release && ids->tab[kind])
		ids->release(ids->ctx, kind, id, data);
	sp_idtab_retire(ids->head[kind], id);
	if (ids->tab[kind])
		sp_idtab_retire(ids->tab[kind], id);
}

/*
 * Retires the nodes of two owners that hold a retired frame or prefix.
 * They are in id order, so a prefix is settled before its children.
 */
static void
sweep_multi(struct sp_ids *ids)
{
	size_t i, kept = 0;

	for (i = 0; i < ids->nmulti; i++) {
		struct multi *m = &ids->multi[i];

		if (!head_of(ids, SP_ID_STACK, m->id))
			continue;
		if (!head_of(ids, SP_ID_FRAME, m->frame_id) ||
		    (m->prefix != SP_NONE &&
		     !head_of(ids, SP_ID_STACK, m->prefix))) {
			retire(ids, SP_ID_STACK, m->id);
			continue;
		}
		ids->multi[kept++] = *m;
	}
	ids->nmulti = kept;
}

/*
 * Takes the owner out of the index and the array, its lists kept in *o
 * for the caller; the last owner moves into its place.
 */
static void
unlist_owner(struct sp_ids *ids, struct owner *o)
{
	uint64_t key = (uint64_t)(int64_t)o->pid;
	size_t idx = (size_t)(o - ids->owners);
	struct owner *last = &ids->owners[--ids->nowners];

	sp_htab_del(ids->owner_index, &key, sizeof(key));
	if (o != last) {
		*o = *last;
		key = (uint64_t)(int64_t)o->pid;
		sp_htab_put(ids->owner_index, &key, sizeof(key), idx);
	}
}

/* Retires what `o` lists, nodes first, so a release callback still sees
 * their frames. */
static void
retire_owned(struct sp_ids *ids, const struct owner *o)
{
	static const enum sp_id_kind order[] = { SP_ID_STACK, SP_ID_THREAD,
						 SP_ID_FRAME, SP_ID_MODULE };
	size_t i, k;

	for (k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (i = 0; i < o->ids[order[k]].n; i++)
			retire(ids, order[k], o->ids[order[k]].v[i]);
}

void
sp_ids_forget(struct sp_ids *ids, int32_t pid)
{
	struct owner *o = find_owner(ids, pid), gone;

	if (!o)
		return;
	retire_owned(ids, o);
	if (ids->nmulti)
		sweep_multi(ids);
	gone = *o;
	unlist_owner(ids, o);
	owner_release(&gone);
}

int
sp_ids_defer(struct sp_ids *ids, int32_t pid)
{
	struct owner *o = find_owner(ids, pid);

	if (!o)
		return 0;
	if (SP_GROW(ids->deferred, ids->adeferred, ids->ndeferred + 1))
		return -ENOMEM;
	ids->deferred[ids->ndeferred++] = *o;
	unlist_owner(ids, o);
	return 0;
}

void
sp_ids_forget_deferred(struct sp_ids *ids)
{
	size_t i;

	for (i = 0; i < ids->ndeferred; i++)
		retire_owned(ids, &ids->deferred[i]);
	if (ids->ndeferred && ids->nmulti)
		sweep_multi(ids);
	for (i = 0; i < ids->ndeferred; i++)
		owner_release(&ids->deferred[i]);
	ids->ndeferred = 0;
}
