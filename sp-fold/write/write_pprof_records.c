/*
 * write_pprof_records.c: --format pprof from a record stream, with what the
 * stream knows: a mapping per module (path, build id), a location per frame and
 * process with its address, one line per logical frame (inlined callees
 * first, as profile.proto orders them) with file and line number,
 * function names grouped as in folded output unless --addrs, and
 * thread, pid and tid labels.  Hidden frames are left out as in folded
 * output.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/satmath.h"
#include "sp-fold/model/events.h"
#include "sp-fold/model/expand.h"
#include "sp-fold/model/group.h"
#include "sp-fold/write/write_pprof_proto.h"
#include "sp-fold/write/write_pprof_records.h"
#include "common/banned.h"

/* Splits "file:line" into a file (copied into `file`) and a line. */
static int64_t
split_source(const char *src, struct sp_buf *file)
{
	const char *colon = src ? strrchr(src, ':') : NULL;
	char *end;
	long long line = 0;

	sp_buf_reset(file);
	if (!src)
		return 0;
	if (colon && colon[1]) {
		line = strtoll(colon + 1, &end, 10);
		if (*end || line < 0) {
			colon = NULL;
			line = 0;
		}
	}
	if (sp_buf_add(file, src, colon ? (size_t)(colon - src) : strlen(src)))
		return -ENOMEM;
	return line;
}

struct lines {
	struct fold_pprof_line *v;
	struct sp_buf *files; /* one buffer per line */
	size_t n, alloc;
	struct sp_buf name; /* fallback name */
};

static int
lines_reserve(struct lines *ls, size_t n)
{
	struct fold_pprof_line *v;
	struct sp_buf *f;

	if (n <= ls->alloc)
		return 0;
	v = realloc(ls->v, n * sizeof(*v));
	if (v)
		ls->v = v;
	f = v ? realloc(ls->files, n * sizeof(*f)) : NULL;
	if (!f)
		return -ENOMEM;
	memset(f + ls->alloc, 0, (n - ls->alloc) * sizeof(*f));
	ls->files = f;
	ls->alloc = n;
	return 0;
}

/* The lines of a view, innermost first; none when all are hidden. */
static int
view_lines(const struct fold_profile *prof, const struct fold_name_opts *o,
	   const struct fold_view *v, size_t upto, struct lines *ls)
{
	const struct fold_syms *s = v->syms;
	size_t i;
	int64_t line;

	ls->n = 0;
	if (lines_reserve(ls, s->n + 1))
		return -ENOMEM;
	if (!s->n) {
		sp_buf_reset(&ls->name);
		if (fold_view_fallback(v, prof->m, o->addrs, &ls->name))
			return -ENOMEM;
		ls->v[ls->n++] =
		    (struct fold_pprof_line){ .name = (char *)ls->name.data };
		return 0;
	}
	for (i = upto < s->n ? upto : s->n; i-- > 0;) {
		if (s->v[i].flags & SP_SYM_HIDDEN && !o->show_hidden)
			continue;
		line = split_source(s->v[i].source, &ls->files[ls->n]);
		if (line < 0)
			return -ENOMEM;
		ls->v[ls->n] = (struct fold_pprof_line){
			.name = fold_sym_shown(&s->v[i], o),
			.file = ls->files[ls->n].data
				    ? (char *)ls->files[ls->n].data
				    : NULL,
			.line = line,
			.symbol = !(s->v[i].flags & SP_SYM_UNRESOLVED),
			.start_line = s->v[i].start_line,
		};
		ls->n++;
	}
	return 0;
}

static int64_t
mapping_of(struct fold_pprof *p, const struct fold_profile *prof,
	   uint32_t module)
{
	const struct fold_module *m = fold_model_module(prof->m, module);
	struct fold_pprof_mapping pm;

	if (!m)
		return 0; /* retired: no caller views one */
	pm = (struct fold_pprof_mapping){ m->start, m->end, m->file_offset,
					  m->path, m->buildid };
	return fold_pprof_mapping(p, &module, sizeof(module), &pm);
}

/* Whether a module path looks like no main binary: a shared library, the
 * vdso, the kernel or anonymous memory. */
static bool
not_main(const struct fold_module *m)
{
	const char *base = strrchr(m->path, '/');

	base = base ? base + 1 : m->path;
	return m->is_kernel || !*base || base[0] == '[' || strstr(base, ".so");
}

/* The process with the most samples (the first one on a tie). */
static int32_t
busiest_pid(const struct fold_profile *prof)
{
	struct sp_htab *per = sp_htab_new();
	uint64_t best = 0, *slot;
	int32_t pid = -1;
	size_t i;

	for (i = 0; per && i < prof->nents; i++) {
		slot = sp_htab_slot(per, &prof->ents[i].pid, sizeof(int32_t), 0,
				    NULL);
		if (!slot)
			break;
		*slot += prof->ents[i].count;
		if (*slot > best) {
			best = *slot;
			pid = prof->ents[i].pid;
		}
	}
	sp_htab_free(per);
	return pid;
}

/*
 * The module pprof should list first, since it takes mapping 1 for the
 * main binary: the lowest one of the busiest process that is no library.
 */
static uint32_t
main_module(const struct fold_profile *prof)
{
	int32_t pid = busiest_pid(prof);
	const struct fold_module *m, *b = NULL;
	uint32_t best = SP_NONE, i;

	for (i = 0; i < fold_model_nmodules(prof->m); i++) {
		m = fold_model_module(prof->m, i);
		if (!m || m->pid != pid || not_main(m))
			continue;
		if (!b || m->start < b->start)
			best = i, b = m;
	}
	return best;
}

/*
 * The location of a frame for a process, with its symbols below `upto`
 * (--max-depth cut the rest); 0 when all its lines are hidden.
 */
static int64_t
location_of(struct fold_pprof *p, const struct fold_profile *prof,
	    const struct fold_name_opts *o, uint32_t frame, int32_t pid,
	    size_t upto, struct lines *ls)
{
	struct {
		uint32_t frame;
		int32_t pid;
		uint64_t upto;
	} key = { frame, pid, upto };
	struct fold_view v;
	int64_t map = 0;
	uint64_t id;

	if (sp_htab_get(p->locs, &key, sizeof(key), &id))
		return (int64_t)id;
	fold_model_view(prof->m, frame, pid, &v);
	if (view_lines(prof, o, &v, upto, ls))
		return -ENOMEM;
	if (!ls->n) {
		if (sp_htab_put(p->locs, &key, sizeof(key), 0))
			return -ENOMEM;
		return 0;
	}
	if (v.module != SP_NONE && (map = mapping_of(p, prof, v.module)) < 0)
		return -ENOMEM;
	return fold_pprof_location(p, &key, sizeof(key), (uint64_t)map,
				   v.abs_ip, ls->v, ls->n);
}

/*
 * Adds the sample of one entry, its frames leaf first; its first value is
 * a count of samples, of periods when `by_time` (--weight time).
 */
static int
entry_sample(struct fold_pprof *p, const struct fold_profile *prof,
	     const struct fold_name_opts *o, bool by_time,
	     const struct fold_entry *e, struct lines *ls, struct sp_buf *ids,
	     struct sp_buf *locs)
{
	uint64_t period = fold_model_period_ns(prof->m), id;
	const uint32_t *f;
	int64_t v[2], loc;
	size_t n, i, upto;

	sp_buf_reset(ids);
	sp_buf_reset(locs);
	if (e->stack != SP_NONE && fold_model_walk(prof->m, e->stack, ids))
		return -ENOMEM;
	f = (const uint32_t *)ids->data;
	n = ids->len / sizeof(*f);
	/* --max-depth keeps the frames nearest the root. */
	n = fold_depth_keep(prof->m, o, f, n, e->pid, &upto);
	for (i = n + !!upto; i-- > 0;) {
		loc = location_of(p, prof, o, f[i], e->pid,
				  i == n ? upto : SIZE_MAX, ls);
		if (loc < 0)
			return -ENOMEM;
		id = (uint64_t)loc;
		if (loc && sp_buf_add(locs, &id, sizeof(id)))
			return -ENOMEM;
	}
	v[0] = sp_sat_i64(by_time ? e->count / period : e->count);
	v[1] =
	    sp_sat_i64(by_time ? e->count : sp_sat_mul_u64(e->count, period));
	return fold_pprof_sample(
	    p, (const uint64_t *)locs->data, locs->len / sizeof(uint64_t), v, 2,
	    e->name == UINT32_MAX ? NULL : prof->m->strs[e->name], e->pid,
	    o->tid ? (int64_t)e->tid : -1);
}

static void
lines_release(struct lines *ls)
{
	size_t i;

	for (i = 0; i < ls->alloc; i++)
		sp_buf_release(&ls->files[i]);
	free(ls->files);
	free(ls->v);
	sp_buf_release(&ls->name);
}

int
fold_write_pprof_records(FILE *out, const struct fold_profile *prof,
			 const struct fold_name_opts *name,
			 const struct fold_count_opts *count)
{
	struct sp_buf ids = SP_BUF_INIT, locs = SP_BUF_INIT, tmp = SP_BUF_INIT;
	struct lines ls = { .name = SP_BUF_INIT };
	const struct fold_entry *e;
	struct fold_pprof p;
	uint32_t main;
	size_t i;
	bool keep;
	int rc;

	rc = fold_pprof_init(&p, fold_events_kind(count),
			     fold_model_period_ns(prof->m), prof->meta.start_ns,
			     prof->meta.duration_ns);
	main = rc ? SP_NONE : main_module(prof);
	if (main != SP_NONE && mapping_of(&p, prof, main) < 0)
		rc = -ENOMEM;
	for (i = 0; !rc && i < prof->nents; i++) {
		e = &prof->ents[i];
		rc = fold_model_folded(
		    prof->m, name,
		    e->name == UINT32_MAX ? NULL : prof->m->strs[e->name],
		    e->pid, e->tid, e->stack, &tmp, &keep);
		if (!rc && keep)
			rc = entry_sample(&p, prof, name, count->weight_time, e,
					  &ls, &ids, &locs);
	}
	if (!rc)
		rc = fold_pprof_emit(&p, out);
	fold_pprof_release(&p);
	lines_release(&ls);
	sp_buf_release(&ids);
	sp_buf_release(&locs);
	sp_buf_release(&tmp);
	return rc;
}
