/* model.c: the record stream model of model.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/names.h"
#include "sp-fold/model/model.h"
#include "common/banned.h"

struct pframe_key {
	uint32_t frame;
	int32_t pid;
};

struct thread_key {
	int32_t pid;
	uint32_t pad;
	uint64_t tid;
};

static void
syms_release(struct fold_syms *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].group);
		free(s->v[i].source);
	}
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* Frees what a module's or frame's entry points to. */
static void
release_id(void *ctx, enum sp_id_kind kind, uint32_t id, void *data)
{
	struct fold_module *mod = data;

	(void)ctx;
	(void)id;
	if (kind == SP_ID_FRAME)
		syms_release(&((struct fold_frame *)data)->syms);
	if (kind != SP_ID_MODULE)
		return;
	free(mod->path);
	free(mod->buildid);
}

int
fold_model_init(struct fold_model *m)
{
	static const size_t extra[SP_ID_NKINDS] = {
		[SP_ID_MODULE] = sizeof(struct fold_module),
		[SP_ID_FRAME] = sizeof(struct fold_frame),
		[SP_ID_STACK] = sizeof(struct fold_stack),
	};
	int i;

	memset(m, 0, sizeof(*m));
	m->ids = sp_ids_new(extra, release_id, NULL);
	if (!m->ids)
		return -ENOMEM;
	m->mtab = sp_ids_table(m->ids, SP_ID_MODULE);
	m->ftab = sp_ids_table(m->ids, SP_ID_FRAME);
	m->stab = sp_ids_table(m->ids, SP_ID_STACK);
	m->pframe_idx = sp_htab_new();
	m->str_idx = sp_htab_new();
	m->tname = sp_htab_new();
	m->pname = sp_htab_new();
	m->wait_idx = sp_htab_new();
	m->xstack_idx = sp_htab_new();
	if (!m->pframe_idx || !m->str_idx || !m->tname || !m->pname ||
	    !m->wait_idx || !m->xstack_idx || fold_pytab_init(&m->py))
		return -ENOMEM;
	for (i = SP_WAIT_NONE + 1; i < SP_WAIT_NSTATES; i++) {
		snprintf(m->wait_names[i], sizeof(m->wait_names[i]), "[%s]",
			 sp_wait_state_name((enum sp_wait_state)i));
		m->wait_sym[i].name = m->wait_names[i];
		m->wait_syms[i].v = &m->wait_sym[i];
		m->wait_syms[i].n = 1;
	}
	return 0;
}

int
fold_model_wait_stack(struct fold_model *m, uint32_t stack,
		      enum sp_wait_state state, uint32_t *out)
{
	uint32_t key[2] = { stack, (uint32_t)state };
	uint64_t id;

	if (sp_htab_get(m->wait_idx, key, sizeof(key), &id)) {
		*out = (uint32_t)id;
		return 0;
	}
	if (m->nwait >= SP_NONE - FOLD_WAIT_STACK0 - SP_WAIT_NSTATES ||
	    SP_GROW(m->wprefix, m->awprefix, m->nwait + 1) ||
	    SP_GROW(m->wstate, m->awstate, m->nwait + 1))
		return -ENOMEM;
	m->wprefix[m->nwait] = stack;
	m->wstate[m->nwait] = (uint8_t)state;
	*out = FOLD_WAIT_STACK0 + (uint32_t)m->nwait;
	if (sp_htab_put(m->wait_idx, key, sizeof(key), *out))
		return -ENOMEM;
	m->nwait++;
	return 0;
}

void
fold_model_release(struct fold_model *m)
{
	enum sp_id_kind k;
	void *data;
	size_t i;

	for (k = 0; m->ids && k < SP_ID_NKINDS; k++)
		for (i = 0; i < sp_ids_count(m->ids, k); i++)
			if ((data = sp_ids_get(m->ids, k, (uint32_t)i)))
				release_id(NULL, k, (uint32_t)i, data);
	sp_ids_free(m->ids);
	for (i = 0; i < m->npframes; i++)
		syms_release(&m->pframes[i].syms);
	for (i = 0; i < m->nxframes; i++)
		syms_release(&m->xframes[i].syms);
	for (i = 0; i < m->nstrs; i++)
		free(m->strs[i]);
	free(m->pframes);
	free(m->pfree);
	free(m->strs);
	sp_htab_free(m->pframe_idx);
	sp_htab_free(m->str_idx);
	sp_htab_free(m->tname);
	sp_htab_free(m->pname);
	free(m->wprefix);
	free(m->wstate);
	sp_htab_free(m->wait_idx);
	free(m->xframes);
	free(m->xprefix);
	free(m->xsframe);
	sp_htab_free(m->xstack_idx);
	fold_pytab_release(&m->py);
}

struct fold_module *
fold_model_add_module(struct fold_model *m, int32_t pid, bool is_kernel)
{
	return sp_ids_module(m->ids, pid, is_kernel);
}

struct fold_frame *
fold_model_add_frame(struct fold_model *m, uint32_t module)
{
	/* Ids from FOLD_X_FRAME0 are sp-fold's own (model.h). */
	if (sp_ids_count(m->ids, SP_ID_FRAME) >= FOLD_X_FRAME0) {
		errno = ENOMEM;
		return NULL;
	}
	return sp_ids_frame(m->ids, module);
}

int
fold_model_add_stack(struct fold_model *m, uint32_t prefix, uint32_t frame)
{
	struct fold_stack *node;

	/* Ids from FOLD_X_STACK0 are sp-fold's own (model.h). */
	if (sp_ids_count(m->ids, SP_ID_STACK) >= FOLD_X_STACK0 ||
	    !(node = sp_ids_stack(m->ids, prefix, frame)))
		return -ENOMEM;
	node->prefix = prefix;
	node->frame = frame;
	return 0;
}

uint32_t
fold_model_nmodules(const struct fold_model *m)
{
	return sp_ids_count(m->ids, SP_ID_MODULE);
}

void
fold_model_forget(struct fold_model *m, int32_t pid)
{
	sp_ids_forget(m->ids, pid);
}

int
fold_model_defer(struct fold_model *m, int32_t pid)
{
	return sp_ids_defer(m->ids, pid);
}

void
fold_model_forget_deferred(struct fold_model *m)
{
	sp_ids_forget_deferred(m->ids);
}

size_t
fold_model_live(const struct fold_model *m, enum sp_id_kind kind)
{
	return sp_ids_live(m->ids, kind);
}

int
fold_model_xframe(struct fold_model *m, enum sp_frame_mode mode,
		  const struct fold_sym *s, uint32_t *out)
{
	struct fold_xframe *x;
	struct fold_sym *c;

	if (m->nxframes >= FOLD_WAIT_FRAME0 - FOLD_X_FRAME0 ||
	    SP_GROW(m->xframes, m->axframes, m->nxframes + 1))
		return -ENOMEM;
	if (!(c = calloc(1, sizeof(*c))))
		return -ENOMEM;
	*c = *s;
	c->name = strdup(s->name);
	c->group = s->group ? strdup(s->group) : NULL;
	c->source = s->source ? strdup(s->source) : NULL;
	x = &m->xframes[m->nxframes];
	x->mode = mode;
	x->syms = (struct fold_syms){ c, 1 };
	if (!c->name || (s->group && !c->group) || (s->source && !c->source)) {
		syms_release(&x->syms);
		return -ENOMEM;
	}
	*out = FOLD_X_FRAME0 + (uint32_t)m->nxframes++;
	return 0;
}

int
fold_model_xstack(struct fold_model *m, uint32_t prefix, uint32_t frame,
		  uint32_t *out)
{
	uint32_t key[2] = { prefix, frame };
	uint64_t id;

	if (sp_htab_get(m->xstack_idx, key, sizeof(key), &id)) {
		*out = (uint32_t)id;
		return 0;
	}
	if (m->nxstacks >= FOLD_WAIT_STACK0 - FOLD_X_STACK0 ||
	    SP_GROW(m->xprefix, m->axprefix, m->nxstacks + 1) ||
	    SP_GROW(m->xsframe, m->axsframe, m->nxstacks + 1))
		return -ENOMEM;
	m->xprefix[m->nxstacks] = prefix;
	m->xsframe[m->nxstacks] = frame;
	*out = FOLD_X_STACK0 + (uint32_t)m->nxstacks;
	if (sp_htab_put(m->xstack_idx, key, sizeof(key), *out))
		return -ENOMEM;
	m->nxstacks++;
	return 0;
}

int64_t
fold_model_intern(struct fold_model *m, const char *s, size_t n)
{
	uint64_t id;

	if (sp_htab_get(m->str_idx, s, n, &id))
		return (int64_t)id;
	if (SP_GROW(m->strs, m->astrs, m->nstrs + 1))
		return -ENOMEM;
	if (!(m->strs[m->nstrs] = strndup(s, n)))
		return -ENOMEM;
	if (sp_htab_put(m->str_idx, s, n, m->nstrs))
		return -ENOMEM;
	return (int64_t)m->nstrs++;
}

int
fold_model_pframe(struct fold_model *m, uint32_t frame, int32_t pid,
		  struct fold_pframe **pf)
{
	struct pframe_key k = { frame, pid };
	const struct fold_frame *f = fold_model_frame(m, frame);
	uint64_t *slot;
	bool inserted = false;
	size_t idx = m->npfree ? m->pfree[m->npfree - 1] : m->npframes;

	if (!f)
		return -EINVAL; /* the decoder let no such reference through */
	slot = sp_htab_slot(m->pframe_idx, &k, sizeof(k), idx, &inserted);
	if (!slot)
		return -ENOMEM;
	if (inserted && idx == m->npframes &&
	    SP_GROW(m->pframes, m->apframes, m->npframes + 1)) {
		sp_htab_del(m->pframe_idx, &k, sizeof(k));
		return -ENOMEM;
	}
	*pf = &m->pframes[*slot];
	if (!inserted)
		return 0;
	if (idx == m->npframes)
		m->npframes++;
	else
		m->npfree--;
	memset(*pf, 0, sizeof(**pf));
	(*pf)->module = f->module;
	(*pf)->rel_ip = f->rel_ip;
	return 0;
}

/* A key of process `ctx` in the thread names (struct thread_key). */
static bool
thread_of(const void *key, size_t len, uint64_t val, void *ctx)
{
	const struct thread_key *k = key;

	(void)val;
	return len == sizeof(*k) && k->pid == *(const int32_t *)ctx;
}

int
fold_model_forget_names(struct fold_model *m, int32_t pid)
{
	sp_htab_del(m->pname, &pid, sizeof(pid));
	return sp_htab_del_if(m->tname, thread_of, &pid);
}

/* Collects the pframes of one process: their slots go to the free list. */
struct pframe_drop {
	struct fold_model *m;
	int32_t pid;
	int rc;
};

static bool
pframe_of(const void *key, size_t len, uint64_t val, void *ctx)
{
	const struct pframe_key *k = key;
	struct pframe_drop *d = ctx;
	struct fold_model *m = d->m;

	if (len != sizeof(*k) || k->pid != d->pid)
		return false;
	if (SP_GROW(m->pfree, m->apfree, m->npfree + 1)) {
		d->rc = -ENOMEM;
		return false;
	}
	syms_release(&m->pframes[val].syms);
	m->pfree[m->npfree++] = (uint32_t)val;
	return true;
}

int
fold_model_forget_pframes(struct fold_model *m, int32_t pid)
{
	struct pframe_drop d = { m, pid, 0 };
	size_t before = m->npfree;
	int rc = sp_htab_del_if(m->pframe_idx, pframe_of, &d);

	if (rc) {
		/* Nothing removed: the slots stay in use, their symbols
		 * gone (views fall back to the frame's own). */
		m->npfree = before;
		return rc;
	}
	return d.rc; /* a slot the free list had no room for stays out */
}

void
fold_model_view(const struct fold_model *m, uint32_t frame, int32_t pid,
		struct fold_view *v)
{
	const struct fold_frame *f;
	struct pframe_key k = { frame, pid };
	const struct fold_pframe *pf;
	uint64_t idx;

	if (frame >= FOLD_WAIT_FRAME0) {
		memset(v, 0, sizeof(*v));
		v->mode = SP_FRAME_USER;
		v->frame = frame;
		v->module = SP_NONE;
		v->syms = &m->wait_syms[frame - FOLD_WAIT_FRAME0];
		return;
	}
	if (frame >= FOLD_X_FRAME0) {
		memset(v, 0, sizeof(*v));
		v->mode = m->xframes[frame - FOLD_X_FRAME0].mode;
		v->frame = frame;
		v->module = SP_NONE;
		v->syms = &m->xframes[frame - FOLD_X_FRAME0].syms;
		return;
	}
	if (!(f = fold_model_frame(m, frame))) {
		memset(v, 0, sizeof(*v)); /* retired: no caller views one */
		v->frame = frame;
		v->module = SP_NONE;
		v->syms = &m->wait_syms[SP_WAIT_NONE];
		return;
	}
	v->frame = frame;
	v->mode = f->mode;
	v->module = f->module;
	v->abs_ip = f->abs_ip;
	v->rel_ip = f->rel_ip;
	v->syms = &f->syms;
	if (!sp_htab_get(m->pframe_idx, &k, sizeof(k), &idx))
		return;
	pf = &m->pframes[idx];
	v->module = pf->module;
	v->rel_ip = pf->rel_ip;
	if (pf->syms.n)
		v->syms = &pf->syms;
}

int
fold_model_walk(const struct fold_model *m, uint32_t stack, struct sp_buf *ids)
{
	size_t start = ids->len, n, i;
	uint32_t *v, t, frame, next;
	const struct fold_stack *node;

	for (; stack != SP_NONE; stack = next) {
		if (stack >= FOLD_WAIT_STACK0) {
			frame = FOLD_WAIT_FRAME0 +
				m->wstate[stack - FOLD_WAIT_STACK0];
			next = m->wprefix[stack - FOLD_WAIT_STACK0];
		} else if (stack >= FOLD_X_STACK0) {
			frame = m->xsframe[stack - FOLD_X_STACK0];
			next = m->xprefix[stack - FOLD_X_STACK0];
		} else if ((node = sp_idtab_get(m->stab, stack))) {
			frame = node->frame;
			next = node->prefix;
		} else {
			break;
		}
		if (sp_buf_add(ids, &frame, sizeof(frame)))
			return -ENOMEM;
	}
	v = (uint32_t *)(ids->data + start);
	n = (ids->len - start) / sizeof(uint32_t);
	for (i = 0; i < n / 2; i++) {
		t = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
	return 0;
}

static const char *
thread_name(const struct fold_model *m, int32_t pid, uint64_t tid)
{
	struct thread_key k;
	uint64_t id;

	memset(&k, 0, sizeof(k));
	k.pid = pid;
	k.tid = tid;
	return sp_htab_get(m->tname, &k, sizeof(k), &id) ? m->strs[id] : NULL;
}

static const char *
process_name(const struct fold_model *m, int32_t pid)
{
	uint64_t id;

	return sp_htab_get(m->pname, &pid, sizeof(pid), &id) ? m->strs[id]
							     : NULL;
}

const char *
fold_model_comm(const struct fold_model *m, int32_t pid, uint64_t tid,
		bool process)
{
	const char *t = thread_name(m, pid, tid);
	const char *p = process_name(m, pid);
	const char *main_thread = thread_name(m, pid, (uint64_t)pid);

	if (process)
		return p ? p : main_thread ? main_thread : t;
	return t ? t : p ? p : main_thread;
}

size_t
fold_source_file_len(const char *source)
{
	const char *colon = source ? strrchr(source, ':') : NULL;
	size_t n = source ? strlen(source) : 0;

	if (colon && colon[1] &&
	    strspn(colon + 1, "0123456789") == strlen(colon + 1))
		return (size_t)(colon - source);
	return n;
}

uint64_t
fold_model_period_ns(const struct fold_model *m)
{
	return m->interval_us ? m->interval_us * 1000 : 1000000;
}
