/*
 * recwrite.c: the record stream writer of records.h, the one place that
 * knows how each kind is spelled.  Numbers are formatted here into a
 * line buffer that goes out in one unlocked write: printf's parsing of
 * its formats was a fifth of sp-dump's time.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/ext.h"
#include "common/records.h"
#include "common/banned.h"

/* One record's text on its way to `f`. */
struct line {
	FILE *f;
	size_t n;
	char b[256];
};

static void
flush_line(struct line *l)
{
	fwrite_unlocked(l->b, 1, l->n, l->f);
	l->n = 0;
}

static void
add(struct line *l, const char *s, size_t n)
{
	if (l->n + n > sizeof(l->b)) {
		flush_line(l);
		if (n > sizeof(l->b)) {
			fwrite_unlocked(s, 1, n, l->f);
			return;
		}
	}
	memcpy(l->b + l->n, s, n);
	l->n += n;
}

static void
adds(struct line *l, const char *s)
{
	add(l, s, strlen(s));
}

/* `pre` (at most 3 bytes), then the digits of v in base 10 or 16. */
static void
add_num(struct line *l, const char *pre, uint64_t v, unsigned base)
{
	static const char digits[] = "0123456789abcdef";
	char t[24];
	size_t i = sizeof(t), np = strlen(pre);

	/* Constant divisors: a division by a variable base was most of
	 * sp-dump's time on long timestamps. */
	if (base == 16) {
		do
			t[--i] = digits[v & 15];
		while (v >>= 4);
	} else {
		do
			t[--i] = (char)('0' + v % 10);
		while (v /= 10);
	}
	i -= np;
	memcpy(t + i, pre, np);
	add(l, t + i, sizeof(t) - i);
}

static void
add_u64(struct line *l, uint64_t v)
{
	add_num(l, "\t", v, 10);
}

static void
add_i64(struct line *l, int64_t v)
{
	if (v < 0)
		add_num(l, "\t-", -(uint64_t)v, 10);
	else
		add_num(l, "\t", (uint64_t)v, 10);
}

static void
add_hex(struct line *l, uint64_t v)
{
	add_num(l, "\t0x", v, 16);
}

static void
add_id(struct line *l, uint32_t id)
{
	if (id == SP_NONE)
		add(l, "\t-", 2);
	else
		add_u64(l, id);
}

/* `pre`, then `s` escaped (records.h). */
static void
add_escaped(struct line *l, const char *pre, const char *s, size_t n)
{
	adds(l, pre);
	flush_line(l);
	sp_escape_file(l->f, s, n);
}

static void
add_text(struct line *l, const char *s, size_t n)
{
	add_escaped(l, "\t", s, n);
}

/* "MODULE REL_IP", or "- -" without a module. */
static void
add_context(struct line *l, uint32_t mod, uint64_t rel)
{
	if (mod == SP_NONE) {
		add(l, "\t-\t-", 4);
		return;
	}
	add_u64(l, mod);
	add_hex(l, rel);
}

static void
put_module(struct line *l, const struct sp_module *m)
{
	adds(l, "module");
	add_u64(l, m->id);
	add_i64(l, m->pid);
	add_hex(l, m->start);
	add_hex(l, m->end);
	add_hex(l, m->file_offset);
	add_u64(l, m->inode);
	adds(l, m->is_kernel ? "\tkernel" : "\tuser");
	add_text(l, m->path, m->path_len);
}

static void
put_pairs(struct line *l, const char *kind, const struct sp_rec *rec)
{
	size_t i;

	adds(l, kind);
	for (i = 0; i < rec->u.pairs.n; i++) {
		const struct sp_rec_pair *p = &rec->u.pairs.v[i];

		add_text(l, p->key, p->key_len);
		add_escaped(l, "=", p->val, p->val_len);
	}
}

void
sp_sym_flags_str(unsigned flags, char buf[8])
{
	size_t i, n = 0;

	for (i = 0; i < sizeof(SP_SYM_LETTERS) - 1; i++)
		if (flags & 1u << i)
			buf[n++] = SP_SYM_LETTERS[i];
	if (!n)
		buf[n++] = '-';
	buf[n] = 0;
}

/* "FRAME PID INDEX", the start of symbol and funcline records. */
static void
add_symbol_key(struct line *l, const struct sp_rec *rec)
{
	add_u64(l, rec->u.symbol.frame);
	if (rec->u.symbol.has_pid)
		add_i64(l, rec->u.symbol.pid);
	else
		add(l, "\t-", 2);
	add_u64(l, rec->u.symbol.index);
}

static void
put_symbol(struct line *l, const struct sp_rec *rec)
{
	char flags[8];

	adds(l, "symbol");
	add_symbol_key(l, rec);
	sp_sym_flags_str(rec->u.symbol.flags, flags);
	add(l, "\t", 1);
	adds(l, flags);
	if (rec->u.symbol.has_offset)
		add_hex(l, rec->u.symbol.offset);
	else
		add(l, "\t-", 2);
	if (!rec->u.symbol.file)
		add(l, "\t-", 2);
	else
		add_text(l, rec->u.symbol.file, strlen(rec->u.symbol.file));
	if (rec->u.symbol.file && rec->u.symbol.line)
		add_num(l, ":", rec->u.symbol.line, 10);
	add_text(l, rec->u.symbol.name, strlen(rec->u.symbol.name));
}

static void
put_funcline(struct line *l, const struct sp_rec *rec)
{
	adds(l, "funcline");
	add_symbol_key(l, rec);
	add_u64(l, rec->u.symbol.start_line);
}

/* A sample, or a run of them. */
static void
put_sample(struct line *l, const struct sp_rec *rec)
{
	const typeof(rec->u.sample) *u = &rec->u.sample;

	if (rec->kind == SP_REC_RUN) {
		adds(l, "run");
		add_u64(l, u->ts);
		add_u64(l, u->last_ts);
		add_u64(l, u->count);
	} else {
		adds(l, "sample");
		add_u64(l, u->ts);
	}
	add_i64(l, u->pid);
	add_u64(l, u->tid);
	add_id(l, u->stack);
	if (!u->has_event)
		return;
	add_u64(l, u->event);
	add_u64(l, u->weight);
	if (u->state) {
		add(l, "\t", 1);
		adds(l, sp_wait_state_name(u->state));
	}
}

/* The kinds whose fields are all numbers and ids. */
static void
put_numeric(struct line *l, const struct sp_rec *rec)
{
	const typeof(rec->u) *u = &rec->u;

	switch (rec->kind) {
	case SP_REC_SPOOL:
		adds(l, "spool");
		add_u64(l, u->spool.version);
		add_u64(l, u->spool.start_us);
		add_u64(l, u->spool.interval_us);
		break;
	case SP_REC_FRAME:
		adds(l, "frame");
		add_u64(l, u->frame.id);
		add(l, "\t", 1);
		adds(l, sp_frame_mode_name(u->frame.f.mode));
		add_hex(l, u->frame.f.abs_ip);
		add_context(l, u->frame.f.module_id, u->frame.f.rel_ip);
		break;
	case SP_REC_PFRAME:
		adds(l, "pframe");
		add_u64(l, u->pframe.frame);
		add_i64(l, u->pframe.pid);
		add_context(l, u->pframe.module, u->pframe.rel_ip);
		break;
	case SP_REC_STACK:
		adds(l, "stack");
		add_u64(l, u->stack.id);
		add_id(l, u->stack.prefix);
		add_id(l, u->stack.frame);
		break;
	case SP_REC_THREAD:
		adds(l, "thread");
		add_u64(l, u->thread.id);
		add_i64(l, u->thread.pid);
		add_u64(l, u->thread.tid);
		break;
	case SP_REC_SAMPLE:
	case SP_REC_RUN:
		put_sample(l, rec);
		break;
	default:
		break;
	}
}

/* "KIND TS PID TID", the start of comm and exit records. */
static void
add_task(struct line *l, const char *kind, uint64_t ts, int32_t pid,
	 uint64_t tid)
{
	adds(l, kind);
	add_u64(l, ts);
	add_i64(l, pid);
	add_u64(l, tid);
}

static void
put_process(struct line *l, const struct sp_rec *rec)
{
	const typeof(rec->u) *u = &rec->u;

	switch (rec->kind) {
	case SP_REC_EXEC:
		adds(l, "exec");
		add_u64(l, u->exec.ts);
		add_i64(l, u->exec.pid);
		adds(l, u->exec.python ? "\tpython" : "\tnative");
		break;
	case SP_REC_DEACTIVATE:
		adds(l, "deactivate");
		add_i64(l, u->deactivate.pid);
		break;
	case SP_REC_FORGET:
		adds(l, "forget");
		add_i64(l, u->forget.pid);
		break;
	case SP_REC_COMM:
		add_task(l, "comm", u->comm.ts, u->comm.pid, u->comm.tid);
		adds(l, u->comm.exec ? "\texec" : "\tname");
		add_text(l, u->comm.name, u->comm.name_len);
		break;
	case SP_REC_LOST:
		adds(l, "lost");
		add_u64(l, u->lost.ts);
		add_u64(l, u->lost.count);
		break;
	case SP_REC_EXIT:
		add_task(l, "exit", u->exit.ts, u->exit.pid, u->exit.tid);
		break;
	default:
		break;
	}
}

static void
put_event(struct line *l, const struct sp_rec *rec)
{
	adds(l, "event");
	add_u64(l, rec->u.event.index);
	add_text(l, rec->u.event.name, rec->u.event.name_len);
	adds(l, rec->u.event.period ? "\tperiod" : "\tfreq");
	add_u64(l,
		rec->u.event.period ? rec->u.event.period : rec->u.event.freq);
}

void
sp_rec_write(FILE *f, const struct sp_rec *rec)
{
	struct line l = { .f = f };

	switch (rec->kind) {
	case SP_REC_UNKNOWN:
		return;
	case SP_REC_PYCODE:
	case SP_REC_PYNODE:
	case SP_REC_PYSTACK:
		sp_recpy_write(f, rec);
		return;
	case SP_REC_MODULE:
		put_module(&l, &rec->u.module);
		break;
	case SP_REC_HOST:
		put_pairs(&l, "host", rec);
		break;
	case SP_REC_STATS:
		put_pairs(&l, "stats", rec);
		break;
	case SP_REC_BUILDID:
	case SP_REC_EXT:
		adds(&l, rec->kind == SP_REC_EXT ? "ext" : "buildid");
		add_u64(&l, rec->u.hex.tag);
		add(&l, "\t", 1);
		adds(&l, rec->u.hex.hex);
		break;
	case SP_REC_SYMBOL:
		put_symbol(&l, rec);
		break;
	case SP_REC_FUNCLINE:
		put_funcline(&l, rec);
		break;
	case SP_REC_EVENT:
		put_event(&l, rec);
		break;
	case SP_REC_EXEC:
	case SP_REC_DEACTIVATE:
	case SP_REC_FORGET:
	case SP_REC_COMM:
	case SP_REC_LOST:
	case SP_REC_EXIT:
		put_process(&l, rec);
		break;
	default:
		put_numeric(&l, rec);
		break;
	}
	add(&l, "\n", 1);
	flush_line(&l);
}
