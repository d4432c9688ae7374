/*
 * filter.c: the record stream filter (see filter.h).  It keeps just
 * enough of the stream to resolve frames: the modules (in the
 * resolver), each frame's mode and address for later pframe records,
 * and the host facts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/records.h"
#include "sp-symbolize/filter.h"
#include "common/banned.h"

struct fframe {
	uint64_t abs_ip;
	enum sp_frame_mode mode;
};

struct filt {
	struct sym_resolver *r;
	FILE *out;
	struct fframe *frames;
	size_t nframes, aframes;
	struct sym_res res;
	struct sp_recdec *dec;
	bool passed; /* the current record has been written */
};

/* Writes the current record unchanged, once. */
static void
pass(struct filt *f)
{
	size_t len;
	const char *line = sp_recdec_line(f->dec, &len);

	if (f->passed)
		return;
	fwrite(line, 1, len, f->out);
	fputc('\n', f->out);
	f->passed = true;
}

static void
write_symbols(struct filt *f, uint32_t frame, int32_t pid)
{
	struct sp_rec rec = { .kind = SP_REC_SYMBOL };
	size_t i;

	rec.u.symbol.frame = frame;
	rec.u.symbol.has_pid = pid >= 0;
	rec.u.symbol.pid = pid;
	for (i = 0; i < f->res.n; i++) {
		const struct sym_entry *s = &f->res.v[i];

		rec.u.symbol.index = (uint32_t)i;
		rec.u.symbol.flags = s->flags;
		rec.u.symbol.has_offset = s->has_offset;
		rec.u.symbol.offset = s->offset;
		rec.u.symbol.file = s->file;
		rec.u.symbol.line = s->line;
		rec.u.symbol.name = s->name;
		rec.kind = SP_REC_SYMBOL;
		sp_rec_write(f->out, &rec);
		if (!s->start_line)
			continue;
		rec.u.symbol.start_line = s->start_line;
		rec.kind = SP_REC_FUNCLINE;
		sp_rec_write(f->out, &rec);
	}
}

static int
resolve_and_write(struct filt *f, const struct sp_frame *fr, uint32_t frame,
		  int32_t pid)
{
	sym_res_release(&f->res);
	if (sym_resolver_frame(f->r, fr, pid, &f->res))
		return -ENOMEM;
	pass(f);
	write_symbols(f, frame, pid);
	return 0;
}

static int
on_frame(struct filt *f, const struct sp_rec *rec)
{
	if (SP_GROW(f->frames, f->aframes, f->nframes + 1))
		return -ENOMEM;
	f->frames[f->nframes].abs_ip = rec->u.frame.f.abs_ip;
	f->frames[f->nframes].mode = rec->u.frame.f.mode;
	f->nframes++;
	return resolve_and_write(f, &rec->u.frame.f, rec->u.frame.id, -1);
}

static int
on_pframe(struct filt *f, const struct sp_rec *rec)
{
	const struct fframe *of = &f->frames[rec->u.pframe.frame];
	struct sp_frame fr = {
		.module_id = rec->u.pframe.module,
		.rel_ip = rec->u.pframe.rel_ip,
		.abs_ip = of->abs_ip,
		.mode = of->mode,
	};

	if (fr.module_id == SP_NONE)
		fr.rel_ip = fr.abs_ip;
	return resolve_and_write(f, &fr, rec->u.pframe.frame,
				 rec->u.pframe.pid);
}

static int
on_host(struct filt *f, const struct sp_rec *rec)
{
	size_t i;

	for (i = 0; i < rec->u.pairs.n; i++)
		if (sym_resolver_host(f->r, rec->u.pairs.v[i].key,
				      rec->u.pairs.v[i].val))
			return -ENOMEM;
	return 0;
}

static int
dispatch(struct filt *f, const struct sp_rec *rec)
{
	switch (rec->kind) {
	case SP_REC_FRAME:
		return on_frame(f, rec);
	case SP_REC_PFRAME:
		return on_pframe(f, rec);
	case SP_REC_MODULE:
		return sym_resolver_module(f->r, &rec->u.module);
	case SP_REC_HOST:
		return on_host(f, rec);
	case SP_REC_BUILDID:
		return sym_resolver_buildid(f->r, rec->u.hex.tag,
					    rec->u.hex.hex);
	case SP_REC_DEACTIVATE:
		sym_resolver_forget(f->r, rec->u.deactivate.pid);
		return 0;
	case SP_REC_EXEC:
		sym_resolver_forget(f->r, rec->u.exec.pid);
		return 0;
	case SP_REC_EXIT:
		if (rec->u.exit.tid == (uint64_t)rec->u.exit.pid)
			sym_resolver_forget(f->r, rec->u.exit.pid);
		return 0;
	case SP_REC_SYMBOL:
	case SP_REC_FUNCLINE:
		/* Symbols of an earlier run are replaced by this run's. */
		f->passed = true;
		return 0;
	default:
		return 0;
	}
}

int
sym_filter_run(struct sym_resolver *r, FILE *in, FILE *out, bool flush,
	       struct sp_buf *err)
{
	struct filt f = { .r = r, .out = out };
	struct sp_rec rec;
	int rc;

	f.dec = sp_recdec_new(in);
	if (!f.dec) {
		sp_buf_adds(err, "out of memory");
		return -ENOMEM;
	}
	while ((rc = sp_recdec_next(f.dec, &rec)) == 1) {
		f.passed = false;
		rc = dispatch(&f, &rec);
		if (rc < 0)
			break;
		pass(&f);
		if (flush && sp_recdec_drained(f.dec)) {
			fflush(out);
			sym_resolver_idle(r);
		}
	}
	sp_buf_reset(err);
	if (rc < 0 && rc != -ENOMEM)
		sp_buf_adds(err, sp_recdec_errmsg(f.dec));
	else if (rc < 0)
		sp_buf_addf(err, "line %" PRIu64 ": out of memory",
			    sp_recdec_lineno(f.dec));
	sp_recdec_free(f.dec);
	sym_res_release(&f.res);
	free(f.frames);
	return rc < 0 ? rc : 0;
}
