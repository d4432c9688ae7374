/*
 * filter.c: the record stream filter (see filter.h).  It keeps just
 * enough of the stream to resolve frames: the modules (in the
 * resolver), each frame's mode and address for later pframe records,
 * and the host facts.  Who owns each module and frame is kept in
 * common/ids.h's tables, so that a forget record frees the frames and
 * modules of its process here and in the resolver.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/ids.h"
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
	struct sp_ids *ids; /* modules and frames, by owner */
	struct sym_filter_stats st;
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
	struct fframe *ff = sp_ids_frame(f->ids, rec->u.frame.f.module_id);
	size_t live = sp_ids_live(f->ids, SP_ID_FRAME);

	if (!ff)
		return -ENOMEM;
	ff->abs_ip = rec->u.frame.f.abs_ip;
	ff->mode = rec->u.frame.f.mode;
	if (live > f->st.frames_peak)
		f->st.frames_peak = live;
	return resolve_and_write(f, &rec->u.frame.f, rec->u.frame.id, -1);
}

static int
on_module(struct filt *f, const struct sp_rec *rec)
{
	const struct sp_module *m = &rec->u.module;

	if (!sp_ids_module(f->ids, m->pid, m->is_kernel))
		return -ENOMEM;
	return sym_resolver_module(f->r, m);
}

/* The resolver's module of a retired module id goes with it. */
static void
on_retire(void *ctx, enum sp_id_kind kind, uint32_t id, void *data)
{
	struct filt *f = ctx;

	(void)data;
	if (kind == SP_ID_MODULE)
		sym_resolver_retire_module(f->r, id);
}

static void
on_forget(struct filt *f, int32_t pid)
{
	sp_ids_forget(f->ids, pid);
	sym_resolver_gone(f->r, pid);
	f->st.forgotten++;
}

static int
on_pframe(struct filt *f, const struct sp_rec *rec)
{
	const struct fframe *of =
	    sp_ids_get(f->ids, SP_ID_FRAME, rec->u.pframe.frame);
	struct sp_frame fr = {
		.module_id = rec->u.pframe.module,
		.rel_ip = rec->u.pframe.rel_ip,
	};

	/* The decoder let no retired or undefined frame through. */
	if (!of)
		return 0;
	fr.abs_ip = of->abs_ip;
	fr.mode = of->mode;
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
		return on_module(f, rec);
	case SP_REC_HOST:
		return on_host(f, rec);
	case SP_REC_SPOOL:
		return sym_resolver_spool(f->r, rec->u.spool.start_us);
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
	case SP_REC_FORGET:
		on_forget(f, rec->u.forget.pid);
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
	       struct sp_buf *err, struct sym_filter_stats *st)
{
	/* Frames carry their address and mode; modules, a release call. */
	static const size_t extra[SP_ID_NKINDS] = {
		[SP_ID_MODULE] = 1,
		[SP_ID_FRAME] = sizeof(struct fframe),
	};
	struct filt f = { .r = r, .out = out };
	struct sp_rec rec;
	int rc;

	f.dec = sp_recdec_new(in);
	f.ids = sp_ids_new(extra, on_retire, &f);
	if (!f.dec || !f.ids) {
		sp_recdec_free(f.dec);
		sp_ids_free(f.ids);
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
	f.st.frames_live = sp_ids_live(f.ids, SP_ID_FRAME);
	if (st)
		*st = f.st;
	sp_recdec_free(f.dec);
	sp_ids_free(f.ids);
	sym_res_release(&f.res);
	return rc < 0 ? rc : 0;
}
