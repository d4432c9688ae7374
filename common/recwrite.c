/*
 * recwrite.c: the record stream writer of records.h, the one place that
 * knows how each kind is spelled.
 */
#include <inttypes.h>
#include <string.h>

#include "common/records.h"
#include "common/banned.h"

static void
put_id(FILE *f, uint32_t id)
{
	if (id == SP_NONE)
		fputs("\t-", f);
	else
		fprintf(f, "\t%" PRIu32, id);
}

static void
put_text(FILE *f, const char *s, size_t n)
{
	fputc('\t', f);
	sp_escape_file(f, s, n);
}

/* "MODULE REL_IP", or "- -" without a module. */
static void
put_context(FILE *f, uint32_t mod, uint64_t rel)
{
	if (mod == SP_NONE)
		fputs("\t-\t-", f);
	else
		fprintf(f, "\t%" PRIu32 "\t0x%" PRIx64, mod, rel);
}

static void
put_module(FILE *f, const struct sp_module *m)
{
	fprintf(f,
		"module\t%" PRIu32 "\t%" PRId32 "\t0x%" PRIx64 "\t0x%" PRIx64
		"\t0x%" PRIx64 "\t%" PRIu64 "\t%s",
		m->id, m->pid, m->start, m->end, m->file_offset, m->inode,
		m->is_kernel ? "kernel" : "user");
	put_text(f, m->path, m->path_len);
}

static void
put_pairs(FILE *f, const char *kind, const struct sp_rec *rec)
{
	size_t i;

	fputs(kind, f);
	for (i = 0; i < rec->u.pairs.n; i++) {
		const struct sp_rec_pair *p = &rec->u.pairs.v[i];

		put_text(f, p->key, p->key_len);
		fputc('=', f);
		sp_escape_file(f, p->val, p->val_len);
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

static void
put_symbol(FILE *f, const struct sp_rec *rec)
{
	char flags[8];

	fprintf(f, "symbol\t%" PRIu32, rec->u.symbol.frame);
	if (rec->u.symbol.has_pid)
		fprintf(f, "\t%" PRId32, rec->u.symbol.pid);
	else
		fputs("\t-", f);
	sp_sym_flags_str(rec->u.symbol.flags, flags);
	fprintf(f, "\t%" PRIu32 "\t%s", rec->u.symbol.index, flags);
	if (rec->u.symbol.has_offset)
		fprintf(f, "\t0x%" PRIx64, rec->u.symbol.offset);
	else
		fputs("\t-", f);
	if (!rec->u.symbol.file)
		fputs("\t-", f);
	else
		put_text(f, rec->u.symbol.file, strlen(rec->u.symbol.file));
	if (rec->u.symbol.file && rec->u.symbol.line)
		fprintf(f, ":%u", rec->u.symbol.line);
	put_text(f, rec->u.symbol.name, strlen(rec->u.symbol.name));
}

static void
put_funcline(FILE *f, const struct sp_rec *rec)
{
	fprintf(f, "funcline\t%" PRIu32, rec->u.symbol.frame);
	if (rec->u.symbol.has_pid)
		fprintf(f, "\t%" PRId32, rec->u.symbol.pid);
	else
		fputs("\t-", f);
	fprintf(f, "\t%" PRIu32 "\t%u", rec->u.symbol.index,
		rec->u.symbol.start_line);
}

/* The kinds whose fields are all numbers and ids. */
static void
put_numeric(FILE *f, const struct sp_rec *rec)
{
	const typeof(rec->u) *u = &rec->u;

	switch (rec->kind) {
	case SP_REC_SPOOL:
		fprintf(f, "spool\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64,
			u->spool.version, u->spool.start_us,
			u->spool.interval_us);
		break;
	case SP_REC_FRAME:
		fprintf(f, "frame\t%" PRIu32 "\t%s\t0x%" PRIx64, u->frame.id,
			sp_frame_mode_name(u->frame.f.mode), u->frame.f.abs_ip);
		put_context(f, u->frame.f.module_id, u->frame.f.rel_ip);
		break;
	case SP_REC_PFRAME:
		fprintf(f, "pframe\t%" PRIu32 "\t%" PRId32, u->pframe.frame,
			u->pframe.pid);
		put_context(f, u->pframe.module, u->pframe.rel_ip);
		break;
	case SP_REC_STACK:
		fprintf(f, "stack\t%" PRIu32, u->stack.id);
		put_id(f, u->stack.prefix);
		put_id(f, u->stack.frame);
		break;
	case SP_REC_THREAD:
		fprintf(f, "thread\t%" PRIu32 "\t%" PRId32 "\t%" PRIu64,
			u->thread.id, u->thread.pid, u->thread.tid);
		break;
	case SP_REC_SAMPLE:
		fprintf(f, "sample\t%" PRIu64 "\t%" PRId32 "\t%" PRIu64,
			u->sample.ts, u->sample.pid, u->sample.tid);
		put_id(f, u->sample.stack);
		if (u->sample.has_event)
			fprintf(f, "\t%" PRIu32 "\t%" PRIu64, u->sample.event,
				u->sample.weight);
		if (u->sample.has_event && u->sample.state)
			fprintf(f, "\t%s", sp_wait_state_name(u->sample.state));
		break;
	default:
		break;
	}
}

static void
put_process(FILE *f, const struct sp_rec *rec)
{
	const typeof(rec->u) *u = &rec->u;

	switch (rec->kind) {
	case SP_REC_EXEC:
		fprintf(f, "exec\t%" PRIu64 "\t%" PRId32 "\t%s", u->exec.ts,
			u->exec.pid, u->exec.python ? "python" : "native");
		break;
	case SP_REC_DEACTIVATE:
		fprintf(f, "deactivate\t%" PRId32, u->deactivate.pid);
		break;
	case SP_REC_COMM:
		fprintf(f, "comm\t%" PRIu64 "\t%" PRId32 "\t%" PRIu64 "\t%s",
			u->comm.ts, u->comm.pid, u->comm.tid,
			u->comm.exec ? "exec" : "name");
		put_text(f, u->comm.name, u->comm.name_len);
		break;
	case SP_REC_LOST:
		fprintf(f, "lost\t%" PRIu64 "\t%" PRIu64, u->lost.ts,
			u->lost.count);
		break;
	case SP_REC_EXIT:
		fprintf(f, "exit\t%" PRIu64 "\t%" PRId32 "\t%" PRIu64,
			u->exit.ts, u->exit.pid, u->exit.tid);
		break;
	default:
		break;
	}
}

void
sp_rec_write(FILE *f, const struct sp_rec *rec)
{
	switch (rec->kind) {
	case SP_REC_UNKNOWN:
		return;
	case SP_REC_MODULE:
		put_module(f, &rec->u.module);
		break;
	case SP_REC_HOST:
		put_pairs(f, "host", rec);
		break;
	case SP_REC_STATS:
		put_pairs(f, "stats", rec);
		break;
	case SP_REC_BUILDID:
	case SP_REC_EXT:
		fprintf(f, "%s\t%" PRIu32 "\t%s",
			rec->kind == SP_REC_EXT ? "ext" : "buildid",
			rec->u.hex.tag, rec->u.hex.hex);
		break;
	case SP_REC_SYMBOL:
		put_symbol(f, rec);
		break;
	case SP_REC_FUNCLINE:
		put_funcline(f, rec);
		break;
	case SP_REC_EVENT:
		fprintf(f, "event\t%" PRIu32, rec->u.event.index);
		put_text(f, rec->u.event.name, rec->u.event.name_len);
		fprintf(f, "\t%s\t%" PRIu64,
			rec->u.event.period ? "period" : "freq",
			rec->u.event.period ? rec->u.event.period
					    : rec->u.event.freq);
		break;
	case SP_REC_EXEC:
	case SP_REC_DEACTIVATE:
	case SP_REC_COMM:
	case SP_REC_LOST:
	case SP_REC_EXIT:
		put_process(f, rec);
		break;
	default:
		put_numeric(f, rec);
		break;
	}
	fputc('\n', f);
}
