/*
 * filter.c: the record stream filter (see filter.h).  It keeps just
 * enough of the stream to resolve frames: the modules (in the
 * resolver), each frame's mode and address for later pframe records,
 * and the host facts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
	size_t nframes;
	size_t aframes;
	uint32_t nmods;
	struct sym_res res;
	struct sp_buf *err;
	uint64_t lineno;
	const struct sp_fields *in; /* the record being filtered */
	bool passed;                /* it has been written */
};

static int bad(struct filt *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
bad(struct filt *f, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	sp_buf_reset(f->err);
	sp_buf_addf(f->err, "line %" PRIu64 ": %s", f->lineno,
		    msg ? msg : "out of memory");
	free(msg);
	return -EBADMSG;
}

static int
nomem(struct filt *f)
{
	bad(f, "out of memory");
	return -ENOMEM;
}

/* Parses "MODULE|-" and "REL_IP|-": both set or both "-". */
static int
parse_context(struct filt *f, char **fld, struct sp_frame *fr)
{
	fr->module_id = SP_NONE;
	if (!strcmp(fld[0], "-") && !strcmp(fld[1], "-"))
		return 0;
	if (sp_parse_id(fld[0], &fr->module_id) || fr->module_id == SP_NONE ||
	    sp_parse_hex(fld[1], &fr->rel_ip))
		return bad(f, "bad module context '%s' '%s'", fld[0], fld[1]);
	if (fr->module_id >= f->nmods)
		return bad(f, "unknown module %" PRIu32, fr->module_id);
	return 0;
}

static void
write_source(FILE *out, const struct sym_entry *s)
{
	if (!s->file) {
		fputc('-', out);
		return;
	}
	sp_escape_file(out, s->file, strlen(s->file));
	if (s->line)
		fprintf(out, ":%u", s->line);
}

static void
write_symbols(struct filt *f, uint32_t frame, int32_t pid)
{
	char flags[8];
	size_t i;

	for (i = 0; i < f->res.n; i++) {
		const struct sym_entry *s = &f->res.v[i];

		fprintf(f->out, "symbol\t%" PRIu32 "\t", frame);
		if (pid < 0)
			fputc('-', f->out);
		else
			fprintf(f->out, "%" PRId32, pid);
		sym_sym_flags_str(s->flags, flags);
		fprintf(f->out, "\t%zu\t%s\t", i, flags);
		if (s->has_offset)
			fprintf(f->out, "0x%" PRIx64 "\t", s->offset);
		else
			fputs("-\t", f->out);
		write_source(f->out, s);
		fputc('\t', f->out);
		sp_escape_file(f->out, s->name, strlen(s->name));
		fputc('\n', f->out);
	}
}

/* Writes the current record unchanged, once. */
static void
pass(struct filt *f)
{
	if (f->passed)
		return;
	fwrite(f->in->line, 1, f->in->line_len, f->out);
	fputc('\n', f->out);
	f->passed = true;
}

static int
resolve_and_write(struct filt *f, const struct sp_frame *fr, uint32_t frame,
		  int32_t pid)
{
	sym_res_release(&f->res);
	if (sym_resolver_frame(f->r, fr, pid, &f->res))
		return nomem(f);
	pass(f);
	write_symbols(f, frame, pid);
	return 0;
}

static int
on_spool(struct filt *f, struct sp_fields *in)
{
	if (in->n < 2 || strcmp(in->f[1], "1") != 0)
		return bad(f, "unsupported stream version '%s'",
			   in->n < 2 ? "" : in->f[1]);
	return 0;
}

static int
on_module(struct filt *f, struct sp_fields *in)
{
	struct sp_module m;
	long len;
	int rc;

	memset(&m, 0, sizeof(m));
	if (in->n != 9 || sp_parse_id(in->f[1], &m.id) ||
	    sp_parse_i32(in->f[2], &m.pid) ||
	    sp_parse_hex(in->f[3], &m.start) ||
	    sp_parse_hex(in->f[4], &m.end) ||
	    sp_parse_hex(in->f[5], &m.file_offset) ||
	    sp_parse_u64(in->f[6], &m.inode) ||
	    (strcmp(in->f[7], "user") && strcmp(in->f[7], "kernel")))
		return bad(f, "malformed module record");
	if (m.id != f->nmods)
		return bad(f,
			   "module id %" PRIu32 " did not match expected "
			   "%" PRIu32,
			   m.id, f->nmods);
	len = sp_unescape(in->f[8]);
	if (len < 0)
		return bad(f, "bad escape in module path");
	m.is_kernel = in->f[7][0] == 'k';
	m.path = in->f[8];
	m.path_len = (size_t)len;
	rc = sym_resolver_module(f->r, &m);
	if (rc)
		return rc == -ENOMEM ? nomem(f) : bad(f, "duplicate module id");
	f->nmods++;
	return 0;
}

static int
add_frame(struct filt *f, const struct sp_frame *fr)
{
	if (f->nframes == f->aframes) {
		size_t a = f->aframes ? 2 * f->aframes : 1024;
		struct fframe *v = reallocarray(f->frames, a, sizeof(*v));

		if (!v)
			return nomem(f);
		f->frames = v;
		f->aframes = a;
	}
	f->frames[f->nframes].abs_ip = fr->abs_ip;
	f->frames[f->nframes].mode = fr->mode;
	f->nframes++;
	return 0;
}

static int
on_frame(struct filt *f, struct sp_fields *in)
{
	struct sp_frame fr;
	uint32_t id;
	int rc;

	memset(&fr, 0, sizeof(fr));
	if (in->n != 6 || sp_parse_id(in->f[1], &id) ||
	    sp_parse_frame_mode(in->f[2], &fr.mode) ||
	    sp_parse_hex(in->f[3], &fr.abs_ip))
		return bad(f, "malformed frame record");
	if (id != f->nframes)
		return bad(f, "frame id %" PRIu32 " did not match expected %zu",
			   id, f->nframes);
	rc = parse_context(f, in->f + 4, &fr);
	if (rc)
		return rc;
	if (fr.module_id == SP_NONE)
		fr.rel_ip = fr.abs_ip;
	rc = add_frame(f, &fr);
	return rc ? rc : resolve_and_write(f, &fr, id, -1);
}

static int
on_pframe(struct filt *f, struct sp_fields *in)
{
	struct sp_frame fr;
	uint32_t id;
	int32_t pid;
	int rc;

	memset(&fr, 0, sizeof(fr));
	if (in->n != 5 || sp_parse_id(in->f[1], &id) ||
	    sp_parse_i32(in->f[2], &pid) || pid < 0)
		return bad(f, "malformed pframe record");
	if (id >= f->nframes)
		return bad(f, "pframe refers to unknown frame %" PRIu32, id);
	rc = parse_context(f, in->f + 3, &fr);
	if (rc)
		return rc;
	fr.abs_ip = f->frames[id].abs_ip;
	fr.mode = f->frames[id].mode;
	if (fr.module_id == SP_NONE)
		fr.rel_ip = fr.abs_ip;
	return resolve_and_write(f, &fr, id, pid);
}

static int
on_host(struct filt *f, struct sp_fields *in)
{
	size_t i;

	for (i = 1; i < in->n; i++) {
		char *eq = strchr(in->f[i], '=');

		if (!eq)
			return bad(f, "host field '%s' is not KEY=VALUE",
				   in->f[i]);
		*eq = '\0';
		if (sp_unescape(in->f[i]) < 0 || sp_unescape(eq + 1) < 0)
			return bad(f, "bad escape in host record");
		if (sym_resolver_host(f->r, in->f[i], eq + 1))
			return nomem(f);
	}
	return 0;
}

static int
on_buildid(struct filt *f, struct sp_fields *in)
{
	uint32_t id;
	const char *p;

	if (in->n != 3 || sp_parse_id(in->f[1], &id) || id == SP_NONE)
		return bad(f, "malformed buildid record");
	for (p = in->f[2]; *p; p++)
		if (!strchr("0123456789abcdef", *p))
			return bad(f, "build id '%s' is not lowercase hex",
				   in->f[2]);
	if (id >= f->nmods)
		return bad(f, "buildid refers to unknown module %" PRIu32, id);
	return sym_resolver_buildid(f->r, id, in->f[2]) ? nomem(f) : 0;
}

/* deactivate PID, exec TS PID KIND, exit TS PID TID. */
static int
on_process(struct filt *f, struct sp_fields *in)
{
	bool deact = !strcmp(in->f[0], "deactivate");
	size_t want = deact ? 2 : 4;
	int32_t pid;
	uint64_t tid = 0;

	if (in->n != want || sp_parse_i32(in->f[deact ? 1 : 2], &pid) ||
	    (!strcmp(in->f[0], "exit") && sp_parse_u64(in->f[3], &tid)))
		return bad(f, "malformed %s record", in->f[0]);
	if (strcmp(in->f[0], "exit") != 0 || tid == (uint64_t)pid)
		sym_resolver_forget(f->r, pid);
	return 0;
}

static int
dispatch(struct filt *f, struct sp_fields *in)
{
	const char *k = in->f[0];

	if (!strcmp(k, "frame"))
		return on_frame(f, in);
	if (!strcmp(k, "pframe"))
		return on_pframe(f, in);
	if (!strcmp(k, "module"))
		return on_module(f, in);
	if (!strcmp(k, "spool"))
		return on_spool(f, in);
	if (!strcmp(k, "host"))
		return on_host(f, in);
	if (!strcmp(k, "buildid"))
		return on_buildid(f, in);
	if (!strcmp(k, "deactivate") || !strcmp(k, "exec") ||
	    !strcmp(k, "exit"))
		return on_process(f, in);
	/* Symbols of an earlier run are replaced by this run's. */
	if (!strcmp(k, "symbol"))
		f->passed = true;
	return 0;
}

/* Whether stdio holds no more unread input (the next read may block). */
static bool
input_drained(FILE *in)
{
#ifdef __GLIBC__
	return in->_IO_read_ptr >= in->_IO_read_end;
#else
	(void)in;
	return true;
#endif
}

int
sym_filter_run(struct sym_resolver *r, FILE *in, FILE *out, bool flush,
	       struct sp_buf *err)
{
	struct filt f = { .r = r, .out = out, .err = err };
	struct sp_recin *rin = sp_recin_new(in);
	struct sp_fields fl;
	int rc = rin ? 0 : nomem(&f);

	while (rc == 0 && (rc = sp_recin_next(rin, &fl)) == 1) {
		f.lineno = fl.lineno;
		f.in = &fl;
		f.passed = false;
		rc = dispatch(&f, &fl);
		if (rc == 0)
			pass(&f);
		if (flush && input_drained(in))
			fflush(out);
	}
	if (rc < 0 && f.err->len == 0) {
		f.lineno = rin ? f.lineno + 1 : 0;
		bad(&f, "%s",
		    rc == -EIO      ? strerror(EIO)
		    : rc == -ENOMEM ? "out of memory"
				    : "line cut short or holds a NUL byte");
	}
	sp_recin_free(rin);
	sym_res_release(&f.res);
	free(f.frames);
	return rc < 0 ? rc : 0;
}
