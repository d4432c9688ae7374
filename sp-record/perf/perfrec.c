/*
 * perfrec.c: bounded decoders for perf ring records (see perfrec.h).
 */
#include <errno.h>
#include <string.h>

#include "sp-record/perf/perfrec.h"
#include "common/banned.h"

#define HDR sizeof(struct perf_event_header)

/* The sample_type bits the decoders know how to walk. */
#define KNOWN_BITS                                                             \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |           \
	 PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |           \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |        \
	 PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

/* A cursor over [p, end) that fails once anything reads past the end. */
struct cur {
	const uint8_t *p;
	const uint8_t *end;
	bool bad;
};

static uint64_t
get64(struct cur *c)
{
	uint64_t v;

	if (c->bad || c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static void
get32x2(struct cur *c, uint32_t *a, uint32_t *b)
{
	uint32_t v[2];

	if (c->bad || c->end - c->p < 8) {
		c->bad = true;
		*a = *b = 0;
		return;
	}
	memcpy(v, c->p, 8);
	c->p += 8;
	*a = v[0];
	*b = v[1];
}

/* Skips n bytes; returns the start of them or NULL. */
static const uint8_t *
skip(struct cur *c, uint64_t n)
{
	const uint8_t *p = c->p;

	if (c->bad || (uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

int
rec_perfrec_layout_init(struct rec_perfrec_layout *l, uint64_t sample_type,
			uint64_t regs_mask)
{
	uint64_t st = sample_type;
	size_t off = 0;

	memset(l, 0, sizeof(*l));
	if (st & ~KNOWN_BITS)
		return -EINVAL;
	l->sample_type = st;
	l->regs_mask = regs_mask;
	l->nregs = (unsigned)__builtin_popcountll(regs_mask);
	l->trailer_tid = (size_t)-1;
	l->trailer_time = (size_t)-1;
	/* sample_id: pid, tid; time; id; stream_id; cpu; identifier */
	if (st & PERF_SAMPLE_TID) {
		l->trailer_tid = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		l->trailer_time = off;
		off += 8;
	}
	if (st & PERF_SAMPLE_ID)
		off += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		off += 8;
	if (st & PERF_SAMPLE_CPU)
		off += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		off += 8;
	l->trailer = off;
	return 0;
}

static void
parse_chain(struct cur *c, struct rec_perfrec_sample *s)
{
	const uint8_t *p;
	uint64_t nr = get64(c);

	if (c->bad || nr > (uint64_t)(c->end - c->p) / 8) {
		c->bad = true;
		return;
	}
	p = skip(c, nr * 8);
	s->chain = (const uint64_t *)(const void *)p;
	s->nchain = nr;
}

/* A tracepoint's record: u32 size, then size bytes (u64-aligned in all). */
static void
parse_raw(struct cur *c, struct rec_perfrec_sample *s)
{
	uint32_t size;

	if (c->bad || c->end - c->p < 4) {
		c->bad = true;
		return;
	}
	memcpy(&size, c->p, 4);
	c->p += 4;
	s->raw = skip(c, size);
	s->raw_len = s->raw ? size : 0;
}

static void
parse_regs(struct cur *c, const struct rec_perfrec_layout *l,
	   struct rec_perfrec_sample *s)
{
	s->abi = get64(c);
	if (s->abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;
	s->regs = (const uint64_t *)(const void *)skip(c, 8ULL * l->nregs);
}

static void
parse_stack(struct cur *c, const void *rec, struct rec_perfrec_sample *s)
{
	const uint8_t *data;
	uint64_t size, dyn;

	s->stack_field = (size_t)(c->p - (const uint8_t *)rec);
	size = get64(c);

	if (c->bad || size == 0)
		return;
	data = skip(c, size);
	dyn = get64(c);
	if (c->bad)
		return;
	if (dyn > size) {
		c->bad = true;
		return;
	}
	if (dyn > 0) {
		s->stack = data;
		s->stack_len = dyn;
	}
}

int
rec_perfrec_sample_parse(const struct rec_perfrec_layout *l, const void *rec,
			 size_t len, struct rec_perfrec_sample *s)
{
	const struct perf_event_header *h = rec;
	struct cur c = { (const uint8_t *)rec + HDR, (const uint8_t *)rec + len,
			 len < HDR };
	uint64_t st = l->sample_type;
	uint32_t res;

	memset(s, 0, sizeof(*s));
	if (len < HDR)
		return -EBADMSG;
	s->misc = h->misc;
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->id = get64(&c);
	if (st & PERF_SAMPLE_IP)
		s->ip = get64(&c);
	if (st & PERF_SAMPLE_TID)
		get32x2(&c, &s->pid, &s->tid);
	if (st & PERF_SAMPLE_TIME)
		s->time = get64(&c);
	if (st & PERF_SAMPLE_ID)
		get64(&c);
	if (st & PERF_SAMPLE_STREAM_ID)
		get64(&c);
	if (st & PERF_SAMPLE_CPU)
		get32x2(&c, &s->cpu, &res);
	if (st & PERF_SAMPLE_PERIOD)
		s->period = get64(&c);
	if (st & PERF_SAMPLE_CALLCHAIN)
		parse_chain(&c, s);
	if (st & PERF_SAMPLE_RAW)
		parse_raw(&c, s);
	if (st & PERF_SAMPLE_REGS_USER)
		parse_regs(&c, l, s);
	if (st & PERF_SAMPLE_STACK_USER)
		parse_stack(&c, rec, s);
	return c.bad ? -EBADMSG : 0;
}

size_t
rec_perfrec_sample_compact_size(const struct rec_perfrec_layout *l,
				const void *rec, size_t len,
				struct rec_perfrec_sample *s)
{
	uint64_t size, keep;

	if (!(l->sample_type & PERF_SAMPLE_STACK_USER) ||
	    rec_perfrec_sample_parse(l, rec, len, s) < 0 || !s->stack_field)
		return 0;
	memcpy(&size, (const uint8_t *)rec + s->stack_field, 8);
	keep = (s->stack_len + 7) & ~(uint64_t)7;
	if (size == 0 || keep >= size)
		return 0;
	/* The stack is the last field: prefix, new size, data, dyn_size. */
	return s->stack_field + 8 + (keep ? keep + 8 : 0);
}

/* The sample with its stack copy, then `more` bytes after it, as one. */
static void
write_stack(const void *rec, const struct rec_perfrec_sample *s,
	    const void *more, size_t more_len, size_t n, void *out)
{
	struct perf_event_header h;
	uint64_t len = s->stack_len + more_len;
	uint64_t keep = (len + 7) & ~(uint64_t)7;
	uint8_t *o = out;
	size_t at = s->stack_field;

	memcpy(o, rec, at);
	memcpy(o + at, &keep, 8);
	at += 8;
	if (keep) {
		memcpy(o + at, s->stack, s->stack_len);
		if (more_len)
			memcpy(o + at + s->stack_len, more, more_len);
		memset(o + at + len, 0, keep - len);
		at += keep;
		memcpy(o + at, &len, 8);
	}
	memcpy(&h, o, sizeof(h));
	/* a longer record (a deep copy) is known by its event's length */
	h.size = n <= UINT16_MAX ? (uint16_t)n : 0;
	memcpy(o, &h, sizeof(h));
}

void
rec_perfrec_sample_compact_write(const void *rec,
				 const struct rec_perfrec_sample *s, size_t n,
				 void *out)
{
	write_stack(rec, s, NULL, 0, n, out);
}

size_t
rec_perfrec_sample_extended_size(const struct rec_perfrec_sample *s,
				 size_t more_len)
{
	return s->stack_field + 8 +
	       ((s->stack_len + more_len + 7) & ~(size_t)7) + 8;
}

void
rec_perfrec_sample_extend_write(const void *rec,
				const struct rec_perfrec_sample *s,
				const void *more, size_t more_len, void *out)
{
	write_stack(rec, s, more, more_len,
		    rec_perfrec_sample_extended_size(s, more_len), out);
}

bool
rec_perfrec_regs_value(const uint64_t *regs, uint64_t mask, int reg,
		       uint64_t *v)
{
	uint64_t bit;

	if (!regs || reg < 0 || reg >= 64 || !(mask & ((uint64_t)1 << reg)))
		return false;
	bit = (uint64_t)1 << reg;
	*v = regs[__builtin_popcountll(mask & (bit - 1))];
	return true;
}

size_t
rec_perfrec_sample_compact(const struct rec_perfrec_layout *l, const void *rec,
			   size_t len, void *out)
{
	struct rec_perfrec_sample s;
	size_t n = rec_perfrec_sample_compact_size(l, rec, len, &s);

	if (n)
		rec_perfrec_sample_compact_write(rec, &s, n, out);
	return n;
}

int
rec_perfrec_id_of(const struct rec_perfrec_layout *l, const void *rec,
		  size_t len, struct rec_perfrec_id *id)
{
	const uint8_t *t;

	memset(id, 0, sizeof(*id));
	if (len < HDR + l->trailer)
		return -EBADMSG;
	t = (const uint8_t *)rec + len - l->trailer;
	if (l->trailer_tid != (size_t)-1) {
		memcpy(&id->pid, t + l->trailer_tid, 4);
		memcpy(&id->tid, t + l->trailer_tid + 4, 4);
		id->has_tid = true;
	}
	if (l->trailer_time != (size_t)-1) {
		memcpy(&id->time, t + l->trailer_time, 8);
		id->has_time = true;
	}
	return 0;
}

int
rec_perfrec_time_of(const struct rec_perfrec_layout *l, const void *rec,
		    size_t len, uint64_t *ts)
{
	const struct perf_event_header *h = rec;
	struct cur c = { (const uint8_t *)rec + HDR, (const uint8_t *)rec + len,
			 len < HDR };
	struct rec_perfrec_id id;
	uint32_t a, b;

	*ts = 0;
	if (len < HDR || !(l->sample_type & PERF_SAMPLE_TIME))
		return -EBADMSG;
	if (h->type != PERF_RECORD_SAMPLE) {
		if (rec_perfrec_id_of(l, rec, len, &id) < 0)
			return -EBADMSG;
		*ts = id.time;
		return 0;
	}
	if (l->sample_type & PERF_SAMPLE_IDENTIFIER)
		get64(&c);
	if (l->sample_type & PERF_SAMPLE_IP)
		get64(&c);
	if (l->sample_type & PERF_SAMPLE_TID)
		get32x2(&c, &a, &b);
	*ts = get64(&c);
	return c.bad ? -EBADMSG : 0;
}

/* Finds the NUL-terminated string at [p, end); returns its length or -1. */
static long
bounded_str(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *nul;

	if (p > end)
		return -1;
	nul = memchr(p, '\0', (size_t)(end - p));
	return nul ? (long)(nul - p) : -1;
}

int
rec_perfrec_mmap2_parse(const struct rec_perfrec_layout *l, const void *rec,
			size_t len, struct rec_perfrec_mmap2 *m)
{
	const struct perf_event_header *h = rec;
	const uint8_t *end = (const uint8_t *)rec + len;
	struct cur c = { (const uint8_t *)rec + HDR, end, len < HDR };
	const uint8_t *u;
	long n;

	memset(m, 0, sizeof(*m));
	if (len < HDR + l->trailer)
		return -EBADMSG;
	c.end = end - l->trailer;
	get32x2(&c, &m->pid, &m->tid);
	m->addr = get64(&c);
	m->len = get64(&c);
	m->pgoff = get64(&c);
	u = skip(&c, 24);
	get32x2(&c, &m->prot, &m->flags);
	if (c.bad)
		return -EBADMSG;
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		m->has_build_id = true;
		m->build_id_len = u[0] <= 20 ? u[0] : 20;
		m->build_id = u + 4;
	} else {
		memcpy(&m->maj, u, 4);
		memcpy(&m->min, u + 4, 4);
		memcpy(&m->ino, u + 8, 8);
	}
	n = bounded_str(c.p, c.end);
	if (n < 0)
		return -EBADMSG;
	m->path = (const char *)c.p;
	m->path_len = (size_t)n;
	return 0;
}

int
rec_perfrec_comm_parse(const struct rec_perfrec_layout *l, const void *rec,
		       size_t len, struct rec_perfrec_comm *cm)
{
	const struct perf_event_header *h = rec;
	const uint8_t *end = (const uint8_t *)rec + len;
	struct cur c = { (const uint8_t *)rec + HDR, end, len < HDR };
	long n;

	memset(cm, 0, sizeof(*cm));
	if (len < HDR + l->trailer)
		return -EBADMSG;
	c.end = end - l->trailer;
	get32x2(&c, &cm->pid, &cm->tid);
	if (c.bad)
		return -EBADMSG;
	n = bounded_str(c.p, c.end);
	if (n < 0)
		return -EBADMSG;
	cm->is_exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
	cm->name = (const char *)c.p;
	cm->name_len = (size_t)n;
	return 0;
}

int
rec_perfrec_task_parse(const void *rec, size_t len, struct rec_perfrec_task *t)
{
	struct cur c = { (const uint8_t *)rec + HDR, (const uint8_t *)rec + len,
			 len < HDR };

	memset(t, 0, sizeof(*t));
	get32x2(&c, &t->pid, &t->ppid);
	get32x2(&c, &t->tid, &t->ptid);
	t->time = get64(&c);
	return c.bad ? -EBADMSG : 0;
}

int
rec_perfrec_lost_parse(const void *rec, size_t len, uint64_t *lost)
{
	const struct perf_event_header *h = rec;
	struct cur c = { (const uint8_t *)rec + HDR, (const uint8_t *)rec + len,
			 len < HDR };

	*lost = 0;
	if (len < HDR)
		return -EBADMSG;
	if (h->type == PERF_RECORD_LOST)
		get64(&c); /* the event id */
	*lost = get64(&c);
	return c.bad ? -EBADMSG : 0;
}

#ifndef PERF_RECORD_MISC_SWITCH_OUT_PREEMPT
#define PERF_RECORD_MISC_SWITCH_OUT_PREEMPT (1 << 14)
#endif

int
rec_perfrec_switch_parse(const struct rec_perfrec_layout *l, const void *rec,
			 size_t len, struct rec_perfrec_switch *s)
{
	const struct perf_event_header *h = rec;
	struct rec_perfrec_id id;

	memset(s, 0, sizeof(*s));
	if (rec_perfrec_id_of(l, rec, len, &id) < 0 || !id.has_tid ||
	    !id.has_time)
		return -EBADMSG;
	s->pid = id.pid;
	s->tid = id.tid;
	s->time = id.time;
	s->out = (h->misc & PERF_RECORD_MISC_SWITCH_OUT) != 0;
	s->preempt = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
	return 0;
}
