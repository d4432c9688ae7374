/*
 * read_records.c: reads the record stream (docs/sp-records.5) into the model
 * and aggregates samples per (thread name, pid, tid, stack id), so work
 * and memory grow with distinct stacks; names are expanded once per
 * entry at the end.  A run record counts as its samples would, one by
 * one, where no time of each is needed.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/records.h"
#include "sp-fold/model/expand.h"
#include "sp-fold/model/group.h"
#include "sp-fold/model/model.h"
#include "sp-fold/read/read_records.h"
#include "common/banned.h"

struct agg_key {
	uint32_t name;
	int32_t pid;
	uint64_t tid;
	uint32_t stack;
	uint32_t pad;
};

static int
oom(struct fold_reader *r, uint64_t lineno)
{
	warnx("%sline %" PRIu64 ": out of memory", r->name, lineno);
	return -ENOMEM;
}

static char *
copy(const char *s, size_t n)
{
	return strndup(s, n);
}

static void
syms_clear(struct fold_syms *s)
{
	while (s->n) {
		s->n--;
		free(s->v[s->n].name);
		free(s->v[s->n].group);
		free(s->v[s->n].source);
	}
}

static int
on_spool(struct fold_reader *r, const struct sp_rec *rec)
{
	r->m.start_us = rec->u.spool.start_us;
	r->m.interval_us = rec->u.spool.interval_us;
	r->meta.start_ns = r->m.start_us * 1000;
	r->meta.period_ns = fold_model_period_ns(&r->m);
	return 0;
}

static int
on_module(struct fold_reader *r, const struct sp_rec *rec)
{
	const struct sp_module *in = &rec->u.module;
	struct fold_module *mod;

	/* The decoder checked that ids come in order: in->id is the next. */
	if (!(mod = fold_model_add_module(&r->m, in->pid, in->is_kernel)))
		return -ENOMEM;
	mod->pid = in->pid;
	mod->start = in->start;
	mod->end = in->end;
	mod->file_offset = in->file_offset;
	mod->is_kernel = in->is_kernel;
	mod->path = copy(in->path, in->path_len);
	return mod->path ? 0 : -ENOMEM;
}

static int
on_frame(struct fold_reader *r, const struct sp_rec *rec)
{
	struct fold_frame *fr;

	if (!(fr = fold_model_add_frame(&r->m, rec->u.frame.f.module_id)))
		return -ENOMEM;
	fr->mode = rec->u.frame.f.mode;
	r->code_frames += fr->mode != SP_FRAME_TRUNCATED;
	fr->abs_ip = rec->u.frame.f.abs_ip;
	fr->module = rec->u.frame.f.module_id;
	fr->rel_ip = rec->u.frame.f.rel_ip;
	return 0;
}

/*
 * A process defining pframes is alive: a pid forgotten and reused within
 * one interval keeps its pframes (the new process's, written over).
 */
static void
alive(struct fold_reader *r, int32_t pid)
{
	size_t i;

	for (i = 0; i < r->ngone; i++)
		if (r->gone[i] == pid)
			r->gone[i--] = r->gone[--r->ngone];
}

static int
on_pframe(struct fold_reader *r, const struct sp_rec *rec)
{
	struct fold_pframe *pf;
	uint32_t frame = rec->u.pframe.frame;
	int rc;

	alive(r, rec->u.pframe.pid);
	if ((rc = fold_model_pframe(&r->m, frame, rec->u.pframe.pid, &pf)))
		return rc;
	pf->module = rec->u.pframe.module;
	pf->rel_ip = pf->module == SP_NONE
			 ? fold_model_frame(&r->m, frame)->abs_ip
			 : rec->u.pframe.rel_ip;
	return 0;
}

static int
on_stack(struct fold_reader *r, const struct sp_rec *rec)
{
	return fold_model_add_stack(&r->m, rec->u.stack.prefix,
				    rec->u.stack.frame);
}

/* The symbols a symbol record adds to: a frame's, or a process's. */
static int
symbol_list(struct fold_reader *r, const struct sp_rec *rec,
	    struct fold_syms **syms)
{
	struct fold_pframe *pf;
	struct fold_frame *f;
	int rc;

	if (!rec->u.symbol.has_pid) {
		if (!(f = fold_model_frame(&r->m, rec->u.symbol.frame)))
			return -EINVAL; /* the decoder let none through */
		*syms = &f->syms;
		return 0;
	}
	alive(r, rec->u.symbol.pid);
	if ((rc = fold_model_pframe(&r->m, rec->u.symbol.frame,
				    rec->u.symbol.pid, &pf)))
		return rc;
	*syms = &pf->syms;
	return 0;
}

static int
symbol_source(const struct sp_rec *rec, char **source)
{
	*source = NULL;
	if (!rec->u.symbol.file)
		return 0;
	if (!rec->u.symbol.line)
		*source = strdup(rec->u.symbol.file);
	else if (asprintf(source, "%s:%u", rec->u.symbol.file,
			  rec->u.symbol.line) < 0)
		*source = NULL;
	return *source ? 0 : -ENOMEM;
}

static int
on_symbol(struct fold_reader *r, const struct sp_rec *rec, uint64_t lineno)
{
	struct fold_syms *syms = NULL;
	struct fold_sym *s, *v;
	int rc;

	if ((rc = symbol_list(r, rec, &syms)))
		return rc;
	if (rec->u.symbol.index == 0)
		syms_clear(syms);
	if (rec->u.symbol.index != syms->n) {
		warnx("%sline %" PRIu64 ": symbol index %" PRIu32
		      " out of order",
		      r->name, lineno, rec->u.symbol.index);
		return -EBADMSG;
	}
	v = reallocarray(syms->v, syms->n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	syms->v = v;
	s = &v[syms->n];
	memset(s, 0, sizeof(*s));
	s->flags = rec->u.symbol.flags;
	s->offset = rec->u.symbol.offset;
	if (symbol_source(rec, &s->source) ||
	    !(s->name = strdup(rec->u.symbol.name))) {
		free(s->source);
		return -ENOMEM;
	}
	syms->n++;
	fold_pymerge_note_symbol(&r->pm, s->name);
	return fold_sym_group(s) ? -ENOMEM : 0;
}

/* A funcline record: the start line of a symbol read before it. */
static int
on_funcline(struct fold_reader *r, const struct sp_rec *rec)
{
	struct fold_syms *syms = NULL;
	int rc;

	if ((rc = symbol_list(r, rec, &syms)))
		return rc;
	if (rec->u.symbol.index < syms->n)
		syms->v[rec->u.symbol.index].start_line =
		    rec->u.symbol.start_line;
	return 0;
}

static int
on_comm(struct fold_reader *r, const struct sp_rec *rec)
{
	struct {
		int32_t pid;
		uint32_t pad;
		uint64_t tid;
	} k;
	int64_t id;

	memset(&k, 0, sizeof(k));
	k.pid = rec->u.comm.pid;
	k.tid = rec->u.comm.tid;
	id = fold_model_intern(&r->m, rec->u.comm.name, rec->u.comm.name_len);
	if (id < 0 || sp_htab_put(r->m.tname, &k, sizeof(k), (uint64_t)id))
		return -ENOMEM;
	if (rec->u.comm.exec &&
	    sp_htab_put(r->m.pname, &k.pid, sizeof(k.pid), (uint64_t)id))
		return -ENOMEM;
	return 0;
}

static int
on_buildid(struct fold_reader *r, const struct sp_rec *rec)
{
	struct fold_module *mod = fold_model_module(&r->m, rec->u.hex.tag);

	if (!mod)
		return -EINVAL; /* the decoder let no such reference through */
	free(mod->buildid);
	mod->buildid = strdup(rec->u.hex.hex);
	return mod->buildid ? 0 : -ENOMEM;
}

static bool
in_ids(const struct fold_ids *ids, int64_t v)
{
	size_t i;

	for (i = 0; i < ids->n; i++)
		if (ids->v[i] == v)
			return true;
	return false;
}

static bool
comm_wanted(const struct fold_reader *r, int32_t pid, uint64_t tid)
{
	const char *t = fold_model_comm(&r->m, pid, tid, false);
	const char *p = fold_model_comm(&r->m, pid, tid, true);
	size_t i;

	for (i = 0; i < r->o->ncomms; i++)
		if ((t && !strcmp(t, r->o->comms[i])) ||
		    (p && !strcmp(p, r->o->comms[i])))
			return true;
	return false;
}

static bool
sample_wanted(const struct fold_reader *r, int32_t pid, uint64_t tid,
	      uint64_t ts)
{
	const struct fold_opts *o = r->o;
	double t = (double)(ts - r->first_ts) / 1e9;

	if (o->pids.n && !in_ids(&o->pids, pid))
		return false;
	if (o->tids.n && !in_ids(&o->tids, (int64_t)tid))
		return false;
	if (o->has_time && (t < o->time_from || t >= o->time_to))
		return false;
	return !o->ncomms || comm_wanted(r, pid, tid);
}

/* Counts a sample into its entry; sets *entry to the entry's index. */
static int
aggregate(struct fold_reader *r, uint32_t name, int32_t pid, uint64_t tid,
	  uint32_t stack, uint64_t add, uint32_t *entry)
{
	struct agg_key k;
	uint64_t *slot;
	bool inserted = false;

	memset(&k, 0, sizeof(k));
	k.name = name;
	k.pid = pid;
	k.tid = tid;
	k.stack = stack;
	slot = sp_htab_slot(r->agg, &k, sizeof(k), r->nents, &inserted);
	if (!slot)
		return -ENOMEM;
	if (inserted) {
		if (SP_GROW(r->ents, r->aents, r->nents + 1))
			return -ENOMEM;
		r->ents[r->nents++] =
		    (struct fold_entry){ name, pid, tid, stack, 0 };
	}
	*entry = (uint32_t)*slot;
	r->ents[*entry].count += add;
	return 0;
}

static int
add_tick(struct fold_reader *r, uint32_t entry, uint64_t ts, uint64_t weight)
{
	if (SP_GROW(r->ticks, r->aticks, r->nticks + 1))
		return -ENOMEM;
	r->ticks[r->nticks++] = (struct fold_tick){ entry, ts, weight };
	return 0;
}

/* Hands a sample to the streaming writer if it passes the frame filters. */
static int
stream_sample(struct fold_reader *r, const struct fold_sample *smp)
{
	bool keep = true;

	if (r->o->name.filter.has_include || r->o->name.filter.has_exclude) {
		if (fold_model_folded(&r->m, &r->o->name, smp->comm, smp->pid,
				      smp->tid, smp->stack, &r->tmp, &keep))
			return -ENOMEM;
	}
	return keep ? r->on_sample(r->ctx, &r->m, smp) : 0;
}

/* Forgets the samples aggregated so far; the model stays. */
static int
forget_samples(struct fold_reader *r)
{
	sp_htab_free(r->agg);
	r->agg = sp_htab_new();
	r->nents = 0;
	r->nticks = 0;
	return r->agg ? 0 : -ENOMEM;
}

/*
 * A forget record.  The process's names go now: they are looked up as
 * samples are read.  Its pframes, modules, frames and stack nodes go
 * once nothing will view them: at once when samples are streamed
 * (--live, perf script), at the end of the interval with --interval,
 * never when the profile is written at the end, whose entries name the
 * process then.
 */
static int
on_forget(struct fold_reader *r, int32_t pid)
{
	if (fold_model_forget_names(&r->m, pid) ||
	    fold_pymerge_forget(&r->pm, pid))
		return -ENOMEM;
	if (r->on_sample) {
		fold_model_forget(&r->m, pid);
		return fold_model_forget_pframes(&r->m, pid);
	}
	if (!r->on_interval)
		return 0;
	if (fold_model_defer(&r->m, pid))
		return -ENOMEM;
	alive(r, pid);
	if (SP_GROW(r->gone, r->agone, r->ngone + 1))
		return -ENOMEM;
	r->gone[r->ngone++] = pid;
	return 0;
}

/*
 * What processes forgotten in an interval that was written held: their
 * ids, and their pframes (unless their pid came back since).
 */
static int
drop_gone(struct fold_reader *r)
{
	fold_model_forget_deferred(&r->m);
	while (r->ngone)
		if (fold_model_forget_pframes(&r->m, r->gone[--r->ngone]))
			return -ENOMEM;
	return 0;
}

/*
 * --interval: when a sample starts another interval, hands the last one
 * to the writer and starts afresh; keeps meta on the current interval.
 */
static int
next_interval(struct fold_reader *r, uint64_t ts)
{
	uint64_t len = r->o->interval_ns, k = (ts - r->first_ts) / len;

	if (k == r->interval && r->meta.duration_ns)
		return 0;
	if ((r->nents || r->nticks) && r->meta.duration_ns) {
		struct fold_profile p;

		fold_reader_profile(r, &p);
		if (r->on_interval(r->ctx, &p))
			return -EBADMSG; /* reported */
		if (forget_samples(r))
			return -ENOMEM;
	}
	if (drop_gone(r)) /* the entries that named them are gone */
		return -ENOMEM;
	r->interval = k;
	r->meta.start_ns = r->m.start_us * 1000 + k * len;
	r->meta.duration_ns = len;
	return 0;
}

/*
 * Counts the sample, or run of samples, `rec`: the weight of one sample
 * in the view, times their number (1 for a sample).
 */
static int
on_sample(struct fold_reader *r, const struct sp_rec *rec)
{
	struct fold_sample smp = {
		.pid = rec->u.sample.pid,
		.tid = rec->u.sample.tid,
		.ts = rec->u.sample.ts,
		.stack = rec->u.sample.stack,
	};
	uint64_t add, n = rec->u.sample.count;
	uint32_t entry;
	int64_t name;
	bool native_only;

	if (!fold_events_weight(&r->events, &r->o->count, rec,
				fold_model_period_ns(&r->m), &add))
		return 0;
	if (fold_pymerge_stack(&r->pm, &r->m, &r->o->name, smp.pid, smp.stack,
			       rec->u.sample.py, &smp.stack, &native_only))
		return -ENOMEM;
	r->py_native_only += native_only * n;
	/* Every count and sum of the output is at most this one. */
	if ((add && n > UINT64_MAX / add) ||
	    (add *= n) > UINT64_MAX - r->weight_sum)
		return -EOVERFLOW;
	r->weight_sum += add;
	smp.weight = add;
	smp.event = fold_events_name(&r->events, rec);
	/* Off-CPU stacks show why they waited, as a frame on top. */
	if (r->o->count.view != FOLD_VIEW_CPU && rec->u.sample.state &&
	    !r->o->no_wait_state && smp.stack != SP_NONE &&
	    fold_model_wait_stack(&r->m, smp.stack, rec->u.sample.state,
				  &smp.stack))
		return -ENOMEM;
	if (!r->have_first)
		r->first_ts = smp.ts;
	r->have_first = true;
	if (rec->u.sample.last_ts > r->last_ts)
		r->last_ts = rec->u.sample.last_ts;
	r->samples += n;
	if (r->on_interval) {
		int rc = next_interval(r, smp.ts);

		if (rc)
			return rc;
	}
	if (!sample_wanted(r, smp.pid, smp.tid, smp.ts))
		return 0;
	smp.comm = fold_model_comm(&r->m, smp.pid, smp.tid, r->o->process_name);
	if (r->on_sample)
		return stream_sample(r, &smp);
	name = smp.comm ? fold_model_intern(&r->m, smp.comm, strlen(smp.comm))
			: -1;
	if (smp.comm && name < 0)
		return -ENOMEM;
	/* Threads of one name fold together, unless told apart. */
	if (!r->o->name.tid && !r->keep_ticks && smp.comm &&
	    r->o->format != FOLD_THREADS)
		smp.tid = 0;
	if (aggregate(r, (uint32_t)name, smp.pid, smp.tid, smp.stack, add,
		      &entry))
		return -ENOMEM;
	return r->keep_ticks ? add_tick(r, entry, smp.ts, add) : 0;
}

/*
 * What needs each sample's time, and so refuses runs: the option's name,
 * or NULL.
 */
static const char *
needs_times(const struct fold_reader *r)
{
	if (r->on_interval)
		return "--interval";
	if (r->o->has_time)
		return "--time";
	if (r->keep_ticks)
		return r->o->flamechart ? "--flamechart"
					: "--format speedscope";
	if (r->on_sample)
		return r->o->format == FOLD_PERF_SCRIPT ? "--format perf-script"
							: "--live";
	return NULL;
}

static int
on_run(struct fold_reader *r, const struct sp_rec *rec, uint64_t lineno)
{
	const char *what = needs_times(r);

	if (!what)
		return on_sample(r, rec);
	warnx("%sline %" PRIu64 ": a run record holds no time for each of its "
	      "samples, which %s needs: read the spool with sp-dump without "
	      "--runs",
	      r->name, lineno, what);
	return -EBADMSG;
}

static int
on_pycode(struct fold_reader *r, const struct sp_rec *rec)
{
	const struct sp_ext_pycode *c = &rec->u.pycode;

	return fold_pytab_code(&r->m.py, c->name, c->name_len, c->file,
			       c->file_len,
			       c->firstline > 0 ? (uint32_t)c->firstline : 0);
}

static int
one_record(struct fold_reader *r, const struct sp_rec *rec, uint64_t lineno)
{
	switch (rec->kind) {
	case SP_REC_SAMPLE:
		return on_sample(r, rec);
	case SP_REC_RUN:
		return on_run(r, rec, lineno);
	case SP_REC_STACK:
		return on_stack(r, rec);
	case SP_REC_FRAME:
		return on_frame(r, rec);
	case SP_REC_SYMBOL:
		r->symbols++;
		return on_symbol(r, rec, lineno);
	case SP_REC_FUNCLINE:
		return on_funcline(r, rec);
	case SP_REC_PFRAME:
		return on_pframe(r, rec);
	case SP_REC_MODULE:
		return on_module(r, rec);
	case SP_REC_COMM:
		return on_comm(r, rec);
	case SP_REC_BUILDID:
		return on_buildid(r, rec);
	case SP_REC_LOST:
		r->lost += rec->u.lost.count;
		return 0;
	case SP_REC_FORGET:
		return on_forget(r, rec->u.forget.pid);
	case SP_REC_SPOOL:
		return on_spool(r, rec);
	case SP_REC_EVENT:
		return fold_events_add(&r->events, rec);
	case SP_REC_PYCODE:
		return on_pycode(r, rec);
	case SP_REC_PYNODE:
		return fold_pytab_node(&r->m.py, rec->u.pynode.prefix,
				       rec->u.pynode.code, rec->u.pynode.line,
				       rec->u.pynode.flags & SP_PYNODE_ENTRY);
	default:
		return 0;
	}
}

int
fold_reader_init(struct fold_reader *r, const char *name,
		 const struct fold_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->o = o;
	r->meta.period_ns = fold_model_period_ns(&r->m);
	if (fold_model_init(&r->m) || fold_pymerge_init(&r->pm) ||
	    !(r->agg = sp_htab_new())) {
		fold_reader_release(r);
		return -ENOMEM;
	}
	return 0;
}

int
fold_reader_step(struct fold_reader *r, struct sp_recdec *d)
{
	struct sp_rec rec;
	int rc = sp_recdec_next(d, &rec);

	if (rc <= 0) {
		if (rc < 0)
			warnx("%s%s", r->name, sp_recdec_errmsg(d));
		return rc;
	}
	rc = one_record(r, &rec, sp_recdec_lineno(d));
	if (rc == -ENOMEM)
		oom(r, sp_recdec_lineno(d));
	if (rc == -EOVERFLOW)
		warnx("%sline %" PRIu64 ": the sample weights add up past "
		      "2^64-1",
		      r->name, sp_recdec_lineno(d));
	return rc < 0 ? rc : 1;
}

int
fold_reader_read(struct fold_reader *r, FILE *in)
{
	struct sp_recdec *d = sp_recdec_new(in);
	int rc;

	if (!d) {
		oom(r, 0);
		return 1;
	}
	while ((rc = fold_reader_step(r, d)) == 1)
		;
	sp_recdec_free(d);
	/* sp-dump | sp-fold, a step forgotten: say so, once. */
	if (!rc && r->code_frames && !r->symbols &&
	    r->o->format != FOLD_THREADS)
		warnx("%sframes are not symbolized: put sp-symbolize before "
		      "sp-fold (sp-dump FILE | sp-symbolize | sp-fold)",
		      r->name);
	if (r->lost)
		warnx("%s%" PRIu64 " samples lost by the kernel or the "
		      "recorder; %" PRIu64 " samples read",
		      r->name, r->lost, r->samples);
	if (r->py_native_only)
		warnx("%s%" PRIu64 " samples whose Python frames did not fit "
		      "their native stacks are shown native only",
		      r->name, r->py_native_only);
	if (!r->on_interval)
		r->meta.duration_ns = r->last_ts - r->first_ts;
	return rc < 0 ? 1 : 0;
}

void
fold_reader_profile(const struct fold_reader *r, struct fold_profile *p)
{
	*p = (struct fold_profile){
		.m = &r->m,
		.ents = r->ents,
		.nents = r->nents,
		.ticks = r->ticks,
		.nticks = r->nticks,
		.first_ts = r->first_ts,
		.meta = r->meta,
	};
}

void
fold_reader_release(struct fold_reader *r)
{
	fold_model_release(&r->m);
	fold_pymerge_release(&r->pm);
	fold_events_release(&r->events);
	sp_htab_free(r->agg);
	free(r->gone);
	free(r->ents);
	free(r->ticks);
	sp_buf_release(&r->tmp);
}
