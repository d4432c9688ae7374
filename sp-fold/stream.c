/*
 * stream.c: reads the record stream (docs/sp-records.5) into the model
 * and aggregates samples per (thread name, pid, tid, stack id), so work
 * and memory grow with distinct stacks; names are expanded once per
 * entry at the end.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/records.h"
#include "sp-fold/expand.h"
#include "sp-fold/group.h"
#include "sp-fold/model.h"
#include "sp-fold/stream.h"
#include "common/banned.h"

struct agg_key {
	uint32_t name;
	int32_t pid;
	uint64_t tid;
	uint32_t stack;
	uint32_t pad;
};

/* A record kind: its name, field count (with the kind) and handler. */
struct kind {
	const char *name;
	size_t nfields;
	int (*fn)(struct fold_reader *r, char **f);
};

static int bad(struct fold_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A diagnostic naming the input and line; the stream is bad. */
static int
bad(struct fold_reader *r, const char *fmt, ...)
{
	char *msg;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	warnx("%sline %" PRIu64 ": %s", r->name, r->lineno,
	      n < 0 ? "bad record" : msg);
	if (n >= 0)
		free(msg);
	return -EBADMSG;
}

static int
oom(struct fold_reader *r)
{
	warnx("%sline %" PRIu64 ": out of memory", r->name, r->lineno);
	return -ENOMEM;
}

/* An id that defines the next element of an array of `n`. */
static int
new_id(struct fold_reader *r, const char *kind, const char *s, size_t n,
       uint32_t *id)
{
	if (sp_parse_id(s, id) || *id == SP_NONE)
		return bad(r, "bad %s id '%s'", kind, s);
	if (*id > n)
		return bad(r, "%s id %" PRIu32 " out of order", kind, *id);
	return 0;
}

/* A reference to an id already defined, or "-" when `none_ok`. */
static int
ref_id(struct fold_reader *r, const char *kind, const char *s, size_t n,
       bool none_ok, uint32_t *id)
{
	if (sp_parse_id(s, id))
		return bad(r, "bad %s id '%s'", kind, s);
	if (*id == SP_NONE && none_ok)
		return 0;
	if (*id >= n)
		return bad(r, "unknown %s id '%s'", kind, s);
	return 0;
}

static int
grow(void **v, size_t *n, uint32_t id, size_t size)
{
	void *p;

	if (id < *n)
		return 0;
	p = realloc(*v, ((size_t)id + 1) * size);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *n * size, 0, ((size_t)id + 1 - *n) * size);
	*v = p;
	*n = (size_t)id + 1;
	return 0;
}

static int
hex_or_none(const char *s, uint64_t *v)
{
	if (!strcmp(s, "-")) {
		*v = 0;
		return 0;
	}
	return sp_parse_hex(s, v);
}

static char *
text_field(struct fold_reader *r, char *s)
{
	char *copy;

	if (sp_unescape(s) < 0) {
		bad(r, "bad escape in '%s'", s);
		return NULL;
	}
	copy = strdup(s);
	if (!copy)
		oom(r);
	return copy;
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
on_spool(struct fold_reader *r, char **f)
{
	uint64_t version;

	if (sp_parse_u64(f[1], &version) || version != SP_RECORDS_VERSION)
		return bad(r, "unsupported stream version '%s'", f[1]);
	if (sp_parse_u64(f[2], &r->m.start_us) ||
	    sp_parse_u64(f[3], &r->m.interval_us))
		return bad(r, "bad spool record");
	r->meta->start_ns = r->m.start_us * 1000;
	r->meta->period_ns = fold_period_ns(r);
	return 0;
}

static int
on_module(struct fold_reader *r, char **f)
{
	struct fold_module *mod;
	uint32_t id;
	int32_t pid;
	uint64_t inode;

	if (new_id(r, "module", f[1], r->m.nmods, &id))
		return -EBADMSG;
	if (grow((void **)&r->m.mods, &r->m.nmods, id, sizeof(*mod)))
		return oom(r);
	mod = &r->m.mods[id];
	free(mod->buildid);
	mod->buildid = NULL;
	if (sp_parse_i32(f[2], &pid) || sp_parse_hex(f[3], &mod->start) ||
	    sp_parse_hex(f[4], &mod->end) ||
	    sp_parse_hex(f[5], &mod->file_offset) ||
	    sp_parse_u64(f[6], &inode) ||
	    (strcmp(f[7], "user") && strcmp(f[7], "kernel")))
		return bad(r, "bad module record");
	mod->is_kernel = !strcmp(f[7], "kernel");
	free(mod->path);
	mod->path = text_field(r, f[8]);
	return mod->path ? 0 : -EBADMSG;
}

static int
on_frame(struct fold_reader *r, char **f)
{
	struct fold_frame *fr;
	uint32_t id;

	if (new_id(r, "frame", f[1], r->m.nframes, &id))
		return -EBADMSG;
	if (grow((void **)&r->m.frames, &r->m.nframes, id, sizeof(*fr)))
		return oom(r);
	fr = &r->m.frames[id];
	syms_clear(&fr->syms); /* a frame defined again starts bare */
	if (sp_parse_frame_mode(f[2], &fr->mode) ||
	    sp_parse_hex(f[3], &fr->abs_ip) || hex_or_none(f[5], &fr->rel_ip))
		return bad(r, "bad frame record");
	if (ref_id(r, "module", f[4], r->m.nmods, true, &fr->module))
		return -EBADMSG;
	if (fr->module == SP_NONE)
		fr->rel_ip = fr->abs_ip;
	return 0;
}

static int
pframe_slot(struct fold_reader *r, uint32_t frame, int32_t pid,
	    struct fold_pframe **pf)
{
	struct {
		uint32_t frame;
		int32_t pid;
	} k = { frame, pid };
	uint64_t *slot;
	bool inserted = false;

	slot = sp_htab_slot(r->m.pframe_idx, &k, sizeof(k), r->m.npframes,
			    &inserted);
	if (!slot)
		return oom(r);
	if (inserted && grow((void **)&r->m.pframes, &r->m.npframes,
			     (uint32_t)r->m.npframes, sizeof(**pf)))
		return oom(r);
	*pf = &r->m.pframes[*slot];
	if (inserted) {
		(*pf)->module = r->m.frames[frame].module;
		(*pf)->rel_ip = r->m.frames[frame].rel_ip;
	}
	return 0;
}

static int
on_pframe(struct fold_reader *r, char **f)
{
	struct fold_pframe *pf;
	uint32_t frame, module;
	int32_t pid;
	uint64_t rel;

	if (ref_id(r, "frame", f[1], r->m.nframes, false, &frame) ||
	    ref_id(r, "module", f[3], r->m.nmods, true, &module))
		return -EBADMSG;
	if (sp_parse_i32(f[2], &pid) || hex_or_none(f[4], &rel))
		return bad(r, "bad pframe record");
	if (pframe_slot(r, frame, pid, &pf))
		return -ENOMEM;
	pf->module = module;
	pf->rel_ip = module == SP_NONE ? r->m.frames[frame].abs_ip : rel;
	return 0;
}

static int
on_stack(struct fold_reader *r, char **f)
{
	uint32_t id, prefix, frame;
	size_t n = r->m.nstacks;

	if (new_id(r, "stack", f[1], r->m.nstacks, &id) ||
	    ref_id(r, "stack", f[2], r->m.nstacks, true, &prefix) ||
	    ref_id(r, "frame", f[3], r->m.nframes, false, &frame))
		return -EBADMSG;
	if (prefix != SP_NONE && prefix >= id)
		return bad(r, "stack %" PRIu32 " has a later prefix", id);
	if (grow((void **)&r->m.prefix, &n, id, sizeof(uint32_t)) ||
	    grow((void **)&r->m.sframe, &r->m.nstacks, id, sizeof(uint32_t)))
		return oom(r);
	r->m.prefix[id] = prefix;
	r->m.sframe[id] = frame;
	return 0;
}

static unsigned
parse_flags(const char *s)
{
	static const char letters[] = "kjipht";
	unsigned flags = 0;
	const char *c;

	for (; *s; s++) {
		c = strchr(letters, *s);
		if (*s == 'u')
			flags |= SYM_UNRESOLVED;
		else if (c)
			flags |= 1u << (c - letters);
	}
	return flags;
}

static int
symbol_list(struct fold_reader *r, char **f, struct fold_syms **syms)
{
	struct fold_pframe *pf;
	uint32_t frame;
	int32_t pid;

	if (ref_id(r, "frame", f[1], r->m.nframes, false, &frame))
		return -EBADMSG;
	if (!strcmp(f[2], "-")) {
		*syms = &r->m.frames[frame].syms;
		return 0;
	}
	if (sp_parse_i32(f[2], &pid))
		return bad(r, "bad symbol pid '%s'", f[2]);
	if (pframe_slot(r, frame, pid, &pf))
		return -ENOMEM;
	*syms = &pf->syms;
	return 0;
}

static int
on_symbol(struct fold_reader *r, char **f)
{
	struct fold_syms *syms = NULL;
	struct fold_sym *s, *v;
	uint64_t index;

	if (symbol_list(r, f, &syms))
		return -EBADMSG;
	if (sp_parse_u64(f[3], &index))
		return bad(r, "bad symbol index '%s'", f[3]);
	if (index == 0)
		syms_clear(syms);
	if (index != syms->n)
		return bad(r, "symbol index %" PRIu64 " out of order", index);
	v = realloc(syms->v, (syms->n + 1) * sizeof(*v));
	if (!v)
		return oom(r);
	syms->v = v;
	s = &v[syms->n];
	memset(s, 0, sizeof(*s));
	s->flags = parse_flags(f[4]);
	if (hex_or_none(f[5], &s->offset))
		return bad(r, "bad symbol offset '%s'", f[5]);
	if (strcmp(f[6], "-") && !(s->source = text_field(r, f[6])))
		return -EBADMSG;
	if (!(s->name = text_field(r, f[7]))) {
		free(s->source);
		return -EBADMSG;
	}
	syms->n++;
	return fold_sym_group(s) ? oom(r) : 0;
}

static int
on_comm(struct fold_reader *r, char **f)
{
	struct {
		int32_t pid;
		uint32_t pad;
		uint64_t tid;
	} k;
	uint64_t ts;
	int64_t id;

	memset(&k, 0, sizeof(k));
	if (sp_parse_u64(f[1], &ts) || sp_parse_i32(f[2], &k.pid) ||
	    sp_parse_u64(f[3], &k.tid) ||
	    (strcmp(f[4], "exec") && strcmp(f[4], "name")))
		return bad(r, "bad comm record");
	if (sp_unescape(f[5]) < 0)
		return bad(r, "bad escape in comm name");
	id = fold_model_intern(&r->m, f[5], strlen(f[5]));
	if (id < 0 || sp_htab_put(r->m.tname, &k, sizeof(k), (uint64_t)id))
		return oom(r);
	if (!strcmp(f[4], "exec") &&
	    sp_htab_put(r->m.pname, &k.pid, sizeof(k.pid), (uint64_t)id))
		return oom(r);
	return 0;
}

static int
on_lost(struct fold_reader *r, char **f)
{
	uint64_t ts, n;

	if (sp_parse_u64(f[1], &ts) || sp_parse_u64(f[2], &n))
		return bad(r, "bad lost record");
	r->lost += n;
	return 0;
}

static int
on_buildid(struct fold_reader *r, char **f)
{
	uint32_t id;

	if (ref_id(r, "module", f[1], r->m.nmods, false, &id))
		return -EBADMSG;
	free(r->m.mods[id].buildid);
	r->m.mods[id].buildid = strdup(f[2]);
	return r->m.mods[id].buildid ? 0 : oom(r);
}

uint64_t
fold_period_ns(const struct fold_reader *r)
{
	return r->m.interval_us ? r->m.interval_us * 1000 : 1000000;
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
	  uint32_t stack, uint32_t *entry)
{
	struct agg_key k;
	struct fold_entry *e;
	uint64_t *slot;
	bool inserted = false;

	memset(&k, 0, sizeof(k));
	k.name = name;
	k.pid = pid;
	k.tid = tid;
	k.stack = stack;
	slot = sp_htab_slot(r->agg, &k, sizeof(k), r->nents, &inserted);
	if (!slot)
		return oom(r);
	if (inserted) {
		if (r->nents == r->aents) {
			r->aents = r->aents ? r->aents * 2 : 256;
			e = realloc(r->ents, r->aents * sizeof(*e));
			if (!e)
				return oom(r);
			r->ents = e;
		}
		r->ents[r->nents++] =
		    (struct fold_entry){ name, pid, tid, stack, 0 };
	}
	*entry = (uint32_t)*slot;
	r->ents[*entry].count += r->o->weight_time ? fold_period_ns(r) : 1;
	return 0;
}

static int
add_tick(struct fold_reader *r, uint32_t entry, uint64_t ts)
{
	struct fold_tick *t;

	if (r->nticks == r->aticks) {
		r->aticks = r->aticks ? r->aticks * 2 : 1024;
		t = realloc(r->ticks, r->aticks * sizeof(*t));
		if (!t)
			return oom(r);
		r->ticks = t;
	}
	r->ticks[r->nticks++] = (struct fold_tick){ entry, ts };
	return 0;
}

/* A sample as perf script text, if it passes the frame filters. */
static int
pscript_sample(struct fold_reader *r, const char *comm, int32_t pid,
	       uint64_t tid, uint64_t ts, uint32_t stack)
{
	bool keep = true;

	if (r->o->has_include || r->o->has_exclude) {
		if (fold_model_folded(&r->m, r->o, comm, pid, tid, stack,
				      &r->tmp, &keep))
			return oom(r);
	}
	return keep ? fold_pscript_sample(r, comm, pid, tid, ts, stack) : 0;
}

static int
on_sample(struct fold_reader *r, char **f)
{
	const char *comm;
	uint64_t ts, tid;
	uint32_t stack, entry;
	int32_t pid;
	int64_t name;

	if (sp_parse_u64(f[1], &ts) || sp_parse_i32(f[2], &pid) ||
	    sp_parse_u64(f[3], &tid))
		return bad(r, "bad sample record");
	if (ref_id(r, "stack", f[4], r->m.nstacks, true, &stack))
		return -EBADMSG;
	if (!r->have_first)
		r->first_ts = ts;
	r->have_first = true;
	r->last_ts = ts > r->last_ts ? ts : r->last_ts;
	r->samples++;
	if (!sample_wanted(r, pid, tid, ts))
		return 0;
	comm = fold_model_comm(&r->m, pid, tid, r->o->process_name);
	if (r->o->format == FOLD_PERF_SCRIPT)
		return pscript_sample(r, comm, pid, tid, ts, stack);
	name = comm ? fold_model_intern(&r->m, comm, strlen(comm)) : -1;
	if (comm && name < 0)
		return oom(r);
	if (!r->o->tid && r->o->format != FOLD_SPEEDSCOPE && comm)
		tid = 0;
	if (aggregate(r, (uint32_t)name, pid, tid, stack, &entry))
		return -ENOMEM;
	return r->o->format == FOLD_SPEEDSCOPE ? add_tick(r, entry, ts) : 0;
}

static const struct kind kinds[] = {
	{ "buildid", 3, on_buildid }, { "comm", 6, on_comm },
	{ "frame", 6, on_frame },     { "lost", 3, on_lost },
	{ "module", 9, on_module },   { "pframe", 5, on_pframe },
	{ "sample", 5, on_sample },   { "spool", 4, on_spool },
	{ "stack", 4, on_stack },     { "symbol", 8, on_symbol },
};

static int
one_record(struct fold_reader *r, struct sp_fields *fl)
{
	size_t i;

	r->lineno = fl->lineno;
	if (fl->lineno == 1 && strcmp(fl->f[0], "spool"))
		return bad(r, "not a record stream (no spool record first)");
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(fl->f[0], kinds[i].name))
			continue;
		if (fl->n != kinds[i].nfields)
			return bad(r, "%s record with %zu fields, not %zu",
				   kinds[i].name, fl->n, kinds[i].nfields);
		return kinds[i].fn(r, fl->f);
	}
	return 0;
}

static int
read_all(struct fold_reader *r, FILE *in)
{
	struct sp_recin *rin = sp_recin_new(in);
	struct sp_fields fl;
	int rc;

	if (!rin)
		return oom(r);
	for (;;) {
		rc = sp_recin_next(rin, &fl);
		if (rc == -EIO)
			warnx("%sread error", r->name);
		else if (rc == -EBADMSG)
			warnx("%sline %" PRIu64 ": cut or binary line", r->name,
			      r->lineno + 1);
		else if (rc < 0)
			oom(r);
		if (rc <= 0)
			break;
		rc = one_record(r, &fl);
		if (rc < 0)
			break;
	}
	sp_recin_free(rin);
	return rc;
}

/* Expands each entry once into the folded set. */
static int
expand(struct fold_reader *r, struct fold_set *set)
{
	const struct fold_entry *e;
	const char *comm;
	size_t i;

	for (i = 0; i < r->nents; i++) {
		e = &r->ents[i];
		comm = e->name == UINT32_MAX ? NULL : r->m.strs[e->name];
		if (fold_model_add(&r->m, r->o, set, comm, e->pid, e->tid,
				   e->stack, e->count))
			return oom(r);
	}
	return 0;
}

static void
reader_release(struct fold_reader *r)
{
	fold_model_release(&r->m);
	sp_htab_free(r->agg);
	free(r->ents);
	free(r->ticks);
	sp_buf_release(&r->tmp);
}

int
fold_records(FILE *in, const char *name, const struct fold_opts *o,
	     struct fold_set *set, struct fold_meta *meta)
{
	struct fold_reader r = {
		.name = name, .o = o, .meta = meta, .out = stdout
	};
	int rc;

	if (fold_model_init(&r.m) || !(r.agg = sp_htab_new())) {
		oom(&r);
		reader_release(&r);
		return 1;
	}
	meta->period_ns = fold_period_ns(&r);
	rc = read_all(&r, in);
	if (r.lost)
		warnx("%s%" PRIu64 " samples lost by the kernel or the "
		      "recorder; %" PRIu64 " samples read",
		      name, r.lost, r.samples);
	meta->duration_ns = r.last_ts - r.first_ts;
	if (rc >= 0 && o->format == FOLD_SPEEDSCOPE)
		rc = fold_speedscope_write(&r);
	else if (rc >= 0 && o->format == FOLD_PPROF)
		rc = fold_pprof_records(&r);
	else if (rc >= 0 && o->format != FOLD_PERF_SCRIPT)
		rc = expand(&r, set);
	reader_release(&r);
	return rc < 0 ? 1 : 0;
}
