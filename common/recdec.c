/*
 * recdec.c: the record stream decoder of records.h.  One table names each
 * kind with its field count and decoder; the decoders check every field
 * and the ids across lines, so no tool needs checks of its own.
 *
 * At about 860 lines it is longer than the other files on purpose: the
 * one text decoder, each kind's checks beside its fields, as
 * spool_reader.c is for the binary form (the Python kinds are apart, in
 * recpy.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/ids.h"
#include "common/inkind.h"
#include "common/records.h"
#include "common/banned.h"

struct sp_recdec {
	FILE *f;
	struct sp_buf lb; /* the line read, split in place */
	char *line;       /* lb's bytes */
	char *raw;        /* the line as read, for pass-through */
	size_t rawcap, rawlen;
	char **fields;
	size_t nfields, afields;
	struct sp_rec_pair *pairs;
	size_t apairs;
	uint64_t lineno;
	bool have_spool;
	struct sp_ids *ids; /* modules, frames, stacks, threads */
	uint32_t nevents;
	struct sp_buf err;
	/* Python records: what they defined, a pystack for its sample. */
	struct sp_py_bounds py;
	struct sp_ext_pystack pystack;
};

/*
 * A kind: its name, fields with the kind's own (0: at least one; `more`:
 * that many optional ones after them), decoder.
 */
struct kind {
	const char *name;
	enum sp_rec_kind kind;
	size_t nfields, more;
	int (*decode)(struct sp_recdec *d, char **f, struct sp_rec *rec);
};

static int bad(struct sp_recdec *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Appends `msg` with its control bytes as \xHH, C1 controls of UTF-8
 * included: a message quotes the input, which may hold terminal escapes,
 * and the tools print it on a terminal.
 */
static void
add_shown(struct sp_buf *b, const char *msg)
{
	const uint8_t *p = (const uint8_t *)msg;

	for (; *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			sp_buf_addf(b, "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0)
			sp_buf_addf(b, "\\xc2\\x%02x", *++p);
		else
			sp_buf_addc(b, *p);
	}
}

static int
bad(struct sp_recdec *d, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	sp_buf_reset(&d->err);
	sp_buf_addf(&d->err, "line %" PRIu64 ": ", d->lineno);
	add_shown(&d->err, msg ? msg : "out of memory");
	free(msg);
	return msg ? -EBADMSG : -ENOMEM;
}

/* A malformed field: names the kind, the field and what it held. */
static int
bad_field(struct sp_recdec *d, const char *what, const char *s)
{
	struct sp_buf shown = SP_BUF_INIT;
	int rc;

	/* The field may hold any byte: show it escaped, and not too much. */
	if (sp_escape(&shown, s, strnlen(s, 64)) || sp_buf_addc(&shown, 0))
		return bad(d, "out of memory");
	rc = bad(d, "malformed %s record: bad %s '%s%s'", d->fields[0], what,
		 (char *)shown.data, strlen(s) > 64 ? "..." : "");
	sp_buf_release(&shown);
	return rc;
}

static int
num(struct sp_recdec *d, const char *what, const char *s, uint64_t *v)
{
	return sp_parse_u64(s, v) ? bad_field(d, what, s) : 0;
}

static int
pid(struct sp_recdec *d, const char *s, int32_t *v)
{
	return sp_parse_i32(s, v) ? bad_field(d, "PID", s) : 0;
}

static int
hex(struct sp_recdec *d, const char *what, const char *s, uint64_t *v)
{
	return sp_parse_hex(s, v) ? bad_field(d, what, s) : 0;
}

static int
one_of(struct sp_recdec *d, const char *what, const char *s, const char *a,
       const char *b, bool *is_a)
{
	*is_a = !strcmp(s, a);
	return *is_a || !strcmp(s, b) ? 0 : bad_field(d, what, s);
}

/* An id that must be the next of `count`; counts it. */
static int
next_id(struct sp_recdec *d, const char *s, uint32_t *count, uint32_t *id)
{
	if (sp_parse_id(s, id) || *id == SP_NONE)
		return bad_field(d, "ID", s);
	if (*id != *count)
		return bad(d,
			   "%s id %" PRIu32 " did not match expected %" PRIu32,
			   d->fields[0], *id, *count);
	(*count)++;
	return 0;
}

/*
 * An id that must be the next of `kind`.  It is only checked: the
 * decoder defines it (define()) once the whole record parsed.
 */
static int
new_id(struct sp_recdec *d, const char *s, enum sp_id_kind kind, uint32_t *id)
{
	uint32_t count = sp_ids_count(d->ids, kind);

	return next_id(d, s, &count, id);
}

/* Takes the result of an sp_ids_*() definition. */
static int
define(struct sp_recdec *d, const void *data)
{
	if (data)
		return 0;
	if (errno == EOVERFLOW)
		return bad(d, "too many %s ids", d->fields[0]);
	return bad(d, "out of memory");
}

/* A reference to one of `count` ids, or "-" when `none_ok`. */
static int
ref_count(struct sp_recdec *d, const char *what, const char *s, uint32_t count,
	  bool none_ok, uint32_t *id)
{
	if (sp_parse_id(s, id) || (*id == SP_NONE && !none_ok))
		return bad_field(d, what, s);
	if (*id != SP_NONE && *id >= count)
		return bad(d, "unknown %s id '%s'", what, s);
	return 0;
}

/* A reference to a live id of `kind`, or "-" when `none_ok`. */
static int
ref_id(struct sp_recdec *d, const char *what, const char *s,
       enum sp_id_kind kind, bool none_ok, uint32_t *id)
{
	if (ref_count(d, what, s, sp_ids_count(d->ids, kind), none_ok, id))
		return -EBADMSG;
	if (*id != SP_NONE && !sp_ids_get(d->ids, kind, *id))
		return bad(d, "%s id '%s' belongs to a forgotten process", what,
			   s);
	return 0;
}

/* Unescapes a text field in place; a NUL byte in it is refused. */
static int
text(struct sp_recdec *d, const char *what, char *s, size_t *len)
{
	long n = sp_unescape(s);

	if (n < 0)
		return bad(d, "malformed %s record: bad escape in %s",
			   d->fields[0], what);
	if (strlen(s) != (size_t)n)
		return bad(d, "malformed %s record: %s holds a NUL byte",
			   d->fields[0], what);
	if (len)
		*len = (size_t)n;
	return 0;
}

static int
lower_hex(struct sp_recdec *d, const char *what, const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return s[n] || n % 2 ? bad_field(d, what, s) : 0;
}

/* pycode, pynode, pystack: recpy.c decodes and checks them. */
static int
dec_py(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	struct sp_buf why = SP_BUF_INIT;
	int rc = sp_recpy_decode(f, rec, &d->py, &d->pystack, &why);

	if (rc && sp_buf_addc(&why, 0) == 0)
		rc = bad(d, "%s", (char *)why.data);
	else if (rc)
		rc = bad(d, "out of memory");
	sp_buf_release(&why);
	return rc;
}

/* A sample takes the pystack before it, if any. */
static int
sample_py(struct sp_recdec *d, struct sp_rec *rec)
{
	const char *why;

	if (!d->py.stack_pending)
		return 0;
	rec->u.sample.py = &d->pystack;
	why = sp_py_check_sample(&d->py, UINT32_MAX);
	return why ? bad(d, "%s", why) : 0;
}

static int
dec_spool(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	uint64_t v;

	if (sp_parse_u64(f[1], &v) || v != SP_RECORDS_VERSION)
		return bad(d, "unsupported stream version '%s'", f[1]);
	rec->u.spool.version = (uint32_t)v;
	return num(d, "START_US", f[2], &rec->u.spool.start_us) ||
		       num(d, "INTERVAL_US", f[3], &rec->u.spool.interval_us)
		   ? -EBADMSG
		   : 0;
}

static int
dec_module(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	struct sp_module *m = &rec->u.module;
	bool kernel;

	if (pid(d, f[2], &m->pid) || hex(d, "START", f[3], &m->start) ||
	    hex(d, "END", f[4], &m->end) ||
	    hex(d, "FILE_OFFSET", f[5], &m->file_offset) ||
	    num(d, "INODE", f[6], &m->inode) ||
	    one_of(d, "mode", f[7], "kernel", "user", &kernel) ||
	    text(d, "PATH", f[8], &m->path_len) ||
	    new_id(d, f[1], SP_ID_MODULE, &m->id))
		return -EBADMSG;
	m->is_kernel = kernel;
	m->path = f[8];
	return define(d, sp_ids_module(d->ids, m->pid, kernel));
}

/* "MODULE REL_IP": both an id and an address, or both "-". */
static int
context(struct sp_recdec *d, char **f, uint32_t *mod, uint64_t *rel)
{
	if (!strcmp(f[0], "-") && !strcmp(f[1], "-")) {
		*mod = SP_NONE;
		*rel = 0;
		return 0;
	}
	if (!strcmp(f[0], "-") || !strcmp(f[1], "-"))
		return bad(d, "malformed %s record: module context '%s' '%s'",
			   d->fields[0], f[0], f[1]);
	return ref_id(d, "module", f[0], SP_ID_MODULE, false, mod) ||
		       hex(d, "REL_IP", f[1], rel)
		   ? -EBADMSG
		   : 0;
}

static int
dec_frame(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	struct sp_frame *fr = &rec->u.frame.f;

	if (sp_parse_frame_mode(f[2], &fr->mode))
		return bad_field(d, "mode", f[2]);
	if (hex(d, "ABS_IP", f[3], &fr->abs_ip) ||
	    context(d, f + 4, &fr->module_id, &fr->rel_ip) ||
	    new_id(d, f[1], SP_ID_FRAME, &rec->u.frame.id))
		return -EBADMSG;
	if (fr->module_id == SP_NONE)
		fr->rel_ip = fr->abs_ip;
	return define(d, sp_ids_frame(d->ids, fr->module_id));
}

static int
dec_pframe(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	if (ref_id(d, "frame", f[1], SP_ID_FRAME, false,
		   &rec->u.pframe.frame) ||
	    pid(d, f[2], &rec->u.pframe.pid))
		return -EBADMSG;
	if (rec->u.pframe.pid < 0)
		return bad_field(d, "PID", f[2]);
	return context(d, f + 3, &rec->u.pframe.module, &rec->u.pframe.rel_ip);
}

static int
dec_stack(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	if (ref_id(d, "stack", f[2], SP_ID_STACK, true, &rec->u.stack.prefix) ||
	    ref_id(d, "frame", f[3], SP_ID_FRAME, false, &rec->u.stack.frame) ||
	    new_id(d, f[1], SP_ID_STACK, &rec->u.stack.id))
		return -EBADMSG;
	return define(
	    d, sp_ids_stack(d->ids, rec->u.stack.prefix, rec->u.stack.frame));
}

static int
dec_thread(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	if (pid(d, f[2], &rec->u.thread.pid) ||
	    num(d, "TID", f[3], &rec->u.thread.tid) ||
	    new_id(d, f[1], SP_ID_THREAD, &rec->u.thread.id))
		return -EBADMSG;
	return define(d, sp_ids_thread(d->ids, rec->u.thread.pid));
}

/*
 * "PID TID STACK [EVENT WEIGHT [STATE]]", the fields of samples and runs
 * after their times; `n` of them.
 */
static int
sample_body(struct sp_recdec *d, char **f, size_t n, struct sp_rec *rec)
{
	if (pid(d, f[0], &rec->u.sample.pid) ||
	    num(d, "TID", f[1], &rec->u.sample.tid) ||
	    ref_id(d, "stack", f[2], SP_ID_STACK, true, &rec->u.sample.stack))
		return -EBADMSG;
	if (n == 3)
		return 0;
	if (n == 4)
		return bad(d, "%s record with an EVENT and no WEIGHT",
			   d->fields[0]);
	rec->u.sample.has_event = true;
	if (ref_count(d, "event", f[3], d->nevents, false,
		      &rec->u.sample.event) ||
	    num(d, "WEIGHT", f[4], &rec->u.sample.weight))
		return -EBADMSG;
	if (n == 6 && !(rec->u.sample.state = sp_wait_state_parse(f[5])))
		return bad_field(d, "STATE", f[5]);
	return 0;
}

static int
dec_sample(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	if (num(d, "TIMESTAMP_NS", f[1], &rec->u.sample.ts))
		return -EBADMSG;
	rec->u.sample.last_ts = rec->u.sample.ts;
	rec->u.sample.count = 1;
	if (d->nfields == 6)
		return bad(d, "sample record with 6 fields, not 5, 7 or 8");
	return sample_body(d, f + 2, d->nfields - 2, rec);
}

/* A run stands for samples without a Python stack: none may be pending. */
static int
dec_run(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	typeof(rec->u.sample) *u = &rec->u.sample;

	if (num(d, "FIRST_NS", f[1], &u->ts) ||
	    num(d, "LAST_NS", f[2], &u->last_ts) ||
	    num(d, "COUNT", f[3], &u->count))
		return -EBADMSG;
	if (u->last_ts < u->ts)
		return bad_field(d, "LAST_NS", f[2]);
	if (u->count == 0)
		return bad_field(d, "COUNT", f[3]);
	if (d->py.stack_pending)
		return bad(d, "a run after a pystack record, which belongs "
			      "to a sample");
	if (d->nfields == 8)
		return bad(d, "run record with 8 fields, not 7, 9 or 10");
	return sample_body(d, f + 4, d->nfields - 4, rec);
}

static int
dec_event(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	bool period;
	uint64_t v;

	if (next_id(d, f[1], &d->nevents, &rec->u.event.index) ||
	    text(d, "NAME", f[2], &rec->u.event.name_len) ||
	    one_of(d, "mode", f[3], "period", "freq", &period) ||
	    num(d, "VALUE", f[4], &v))
		return -EBADMSG;
	if (!rec->u.event.name_len || v == 0)
		return bad_field(d, v ? "NAME" : "VALUE", v ? f[2] : f[4]);
	rec->u.event.name = f[2];
	rec->u.event.period = period ? v : 0;
	rec->u.event.freq = period ? 0 : v;
	return 0;
}

static int
dec_exec(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	return num(d, "TIMESTAMP_NS", f[1], &rec->u.exec.ts) ||
		       pid(d, f[2], &rec->u.exec.pid) ||
		       one_of(d, "kind", f[3], "python", "native",
			      &rec->u.exec.python)
		   ? -EBADMSG
		   : 0;
}

static int
dec_deactivate(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	return pid(d, f[1], &rec->u.deactivate.pid);
}

/* Retires what the process owned: later lines may not name it. */
static int
dec_forget(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	if (pid(d, f[1], &rec->u.forget.pid))
		return -EBADMSG;
	if (rec->u.forget.pid < 0)
		return bad_field(d, "PID", f[1]);
	sp_ids_forget(d->ids, rec->u.forget.pid);
	return 0;
}

static int
add_pair(struct sp_recdec *d, size_t i, char *s)
{
	struct sp_rec_pair *p;
	char *eq = strchr(s, '=');

	if (!eq)
		return bad(d, "%s field '%s' is not KEY=VALUE", d->fields[0],
			   s);
	if (SP_GROW(d->pairs, d->apairs, i + 1))
		return bad(d, "out of memory");
	p = &d->pairs[i];
	*eq = 0;
	p->key = s;
	p->val = eq + 1;
	return text(d, "KEY", s, &p->key_len) ||
		       text(d, "VALUE", eq + 1, &p->val_len)
		   ? -EBADMSG
		   : 0;
}

static int
dec_pairs(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	bool stats = rec->kind == SP_REC_STATS;
	uint64_t v;
	size_t i;

	for (i = 0; i + 1 < d->nfields; i++) {
		if (add_pair(d, i, f[i + 1]))
			return -EBADMSG;
		if (stats && sp_parse_u64(d->pairs[i].val, &v))
			return bad_field(d, "count", d->pairs[i].val);
	}
	rec->u.pairs.v = d->pairs;
	rec->u.pairs.n = i;
	return 0;
}

static int
dec_comm(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	rec->u.comm.name = f[5];
	return num(d, "TIMESTAMP_NS", f[1], &rec->u.comm.ts) ||
		       pid(d, f[2], &rec->u.comm.pid) ||
		       num(d, "TID", f[3], &rec->u.comm.tid) ||
		       one_of(d, "kind", f[4], "exec", "name",
			      &rec->u.comm.exec) ||
		       text(d, "NAME", f[5], &rec->u.comm.name_len)
		   ? -EBADMSG
		   : 0;
}

static int
dec_lost(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	return num(d, "TIMESTAMP_NS", f[1], &rec->u.lost.ts) ||
		       num(d, "COUNT", f[2], &rec->u.lost.count)
		   ? -EBADMSG
		   : 0;
}

static int
dec_exit(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	return num(d, "TIMESTAMP_NS", f[1], &rec->u.exit.ts) ||
		       pid(d, f[2], &rec->u.exit.pid) ||
		       num(d, "TID", f[3], &rec->u.exit.tid)
		   ? -EBADMSG
		   : 0;
}

static int
dec_buildid(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	rec->u.hex.hex = f[2];
	return ref_id(d, "module", f[1], SP_ID_MODULE, false,
		      &rec->u.hex.tag) ||
		       lower_hex(d, "HEX", f[2])
		   ? -EBADMSG
		   : 0;
}

static int
dec_ext(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	uint64_t tag;

	if (num(d, "TAG", f[1], &tag) || lower_hex(d, "HEX", f[2]))
		return -EBADMSG;
	if (tag > UINT32_MAX)
		return bad_field(d, "TAG", f[1]);
	rec->u.hex.tag = (uint32_t)tag;
	rec->u.hex.hex = f[2];
	return 0;
}

static int
sym_flags(struct sp_recdec *d, const char *s, unsigned *flags)
{
	const char *c;

	*flags = 0;
	if (!strcmp(s, "-"))
		return 0;
	for (c = s; *c; c++) {
		const char *at = strchr(SP_SYM_LETTERS, *c);

		if (!at || (*flags & 1u << (at - SP_SYM_LETTERS)))
			return bad_field(d, "FLAGS", s);
		*flags |= 1u << (at - SP_SYM_LETTERS);
	}
	return *flags ? 0 : bad_field(d, "FLAGS", s);
}

/* "file:line", "file" or "-"; the line is the digits after the last ':'. */
static int
sym_source(struct sp_recdec *d, char *s, struct sp_rec *rec)
{
	char *colon = strrchr(s, ':');
	uint64_t line;

	rec->u.symbol.file = NULL;
	rec->u.symbol.line = 0;
	if (!strcmp(s, "-"))
		return 0;
	if (colon && colon[1] && !sp_parse_u64(colon + 1, &line) && line &&
	    line <= UINT32_MAX) {
		*colon = 0;
		rec->u.symbol.line = (unsigned)line;
	}
	rec->u.symbol.file = s;
	return text(d, "SOURCE", s, NULL);
}

static int
dec_symbol(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	uint64_t index;

	rec->u.symbol.has_pid = strcmp(f[2], "-") != 0;
	rec->u.symbol.has_offset = strcmp(f[5], "-") != 0;
	rec->u.symbol.pid = -1;
	rec->u.symbol.offset = 0;
	rec->u.symbol.name = f[7];
	if (ref_id(d, "frame", f[1], SP_ID_FRAME, false,
		   &rec->u.symbol.frame) ||
	    (rec->u.symbol.has_pid && pid(d, f[2], &rec->u.symbol.pid)) ||
	    num(d, "INDEX", f[3], &index) ||
	    sym_flags(d, f[4], &rec->u.symbol.flags) ||
	    (rec->u.symbol.has_offset &&
	     hex(d, "OFFSET", f[5], &rec->u.symbol.offset)) ||
	    sym_source(d, f[6], rec) || text(d, "NAME", f[7], NULL))
		return -EBADMSG;
	if (index > UINT32_MAX ||
	    (rec->u.symbol.has_pid && rec->u.symbol.pid < 0))
		return bad_field(d, index > UINT32_MAX ? "INDEX" : "PID",
				 index > UINT32_MAX ? f[3] : f[2]);
	rec->u.symbol.index = (uint32_t)index;
	return 0;
}

static int
dec_funcline(struct sp_recdec *d, char **f, struct sp_rec *rec)
{
	uint64_t index, line;

	rec->u.symbol.has_pid = strcmp(f[2], "-") != 0;
	rec->u.symbol.pid = -1;
	if (ref_id(d, "frame", f[1], SP_ID_FRAME, false,
		   &rec->u.symbol.frame) ||
	    (rec->u.symbol.has_pid && pid(d, f[2], &rec->u.symbol.pid)) ||
	    num(d, "INDEX", f[3], &index) || num(d, "LINE", f[4], &line))
		return -EBADMSG;
	if (index > UINT32_MAX ||
	    (rec->u.symbol.has_pid && rec->u.symbol.pid < 0))
		return bad_field(d, index > UINT32_MAX ? "INDEX" : "PID",
				 index > UINT32_MAX ? f[3] : f[2]);
	if (line == 0 || line > UINT32_MAX)
		return bad_field(d, "LINE", f[4]);
	rec->u.symbol.index = (uint32_t)index;
	rec->u.symbol.start_line = (unsigned)line;
	return 0;
}

static const struct kind kinds[] = {
	{ "sample", SP_REC_SAMPLE, 5, 3, dec_sample },
	{ "run", SP_REC_RUN, 7, 3, dec_run },
	{ "stack", SP_REC_STACK, 4, 0, dec_stack },
	{ "frame", SP_REC_FRAME, 6, 0, dec_frame },
	{ "symbol", SP_REC_SYMBOL, 8, 0, dec_symbol },
	{ "funcline", SP_REC_FUNCLINE, 5, 0, dec_funcline },
	{ "pframe", SP_REC_PFRAME, 5, 0, dec_pframe },
	{ "module", SP_REC_MODULE, 9, 0, dec_module },
	{ "thread", SP_REC_THREAD, 4, 0, dec_thread },
	{ "comm", SP_REC_COMM, 6, 0, dec_comm },
	{ "exit", SP_REC_EXIT, 4, 0, dec_exit },
	{ "exec", SP_REC_EXEC, 4, 0, dec_exec },
	{ "pystack", SP_REC_PYSTACK, 4, 0, dec_py },
	{ "pynode", SP_REC_PYNODE, 6, 0, dec_py },
	{ "pycode", SP_REC_PYCODE, 5, 0, dec_py },
	{ "deactivate", SP_REC_DEACTIVATE, 2, 0, dec_deactivate },
	{ "forget", SP_REC_FORGET, 2, 0, dec_forget },
	{ "lost", SP_REC_LOST, 3, 0, dec_lost },
	{ "buildid", SP_REC_BUILDID, 3, 0, dec_buildid },
	{ "host", SP_REC_HOST, 0, 0, dec_pairs },
	{ "stats", SP_REC_STATS, 0, 0, dec_pairs },
	{ "ext", SP_REC_EXT, 3, 0, dec_ext },
	{ "spool", SP_REC_SPOOL, 4, 0, dec_spool },
	{ "event", SP_REC_EVENT, 5, 0, dec_event },
};

/* A first line that is no spool record: says what it is when it can. */
static int
not_records(struct sp_recdec *d)
{
	switch (sp_input_kind(d->raw, d->rawlen)) {
	case SP_IN_FOLDED:
		return bad(d, "folded stacks, not a record stream: sp-fold "
			      "reads them (sp-fold --from folded FILE)");
	case SP_IN_PERF_SCRIPT:
		return bad(d, "perf script output, not a record stream: "
			      "sp-fold reads it (sp-fold --from perf-script "
			      "FILE)");
	default:
		return bad(d, "not a record stream (no spool record first)");
	}
}

static int
decode(struct sp_recdec *d, struct sp_rec *rec)
{
	const struct kind *k = NULL;
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !k; i++)
		if (!strcmp(d->fields[0], kinds[i].name))
			k = &kinds[i];
	if (!d->have_spool && (!k || k->kind != SP_REC_SPOOL))
		return not_records(d);
	memset(rec, 0, sizeof(*rec));
	if (!k)
		return 1; /* SP_REC_UNKNOWN */
	if (k->nfields &&
	    (d->nfields < k->nfields || d->nfields > k->nfields + k->more))
		return k->more
			   ? bad(d, "%s record with %zu fields, not %zu to %zu",
				 k->name, d->nfields, k->nfields,
				 k->nfields + k->more)
			   : bad(d, "%s record with %zu fields, not %zu",
				 k->name, d->nfields, k->nfields);
	if (k->kind == SP_REC_SPOOL && d->have_spool)
		return bad(d, "a second spool record");
	rec->kind = k->kind;
	if (k->decode(d, d->fields, rec))
		return -EBADMSG;
	if (rec->kind == SP_REC_SAMPLE && sample_py(d, rec))
		return -EBADMSG;
	d->have_spool = true;
	return 1;
}

struct sp_recdec *
sp_recdec_new(FILE *f)
{
	static const size_t extra[SP_ID_NKINDS];
	struct sp_recdec *d = calloc(1, sizeof(*d));

	if (!d || !(d->ids = sp_ids_new(extra, NULL, NULL))) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	d->f = f;
	return d;
}

void
sp_recdec_free(struct sp_recdec *d)
{
	if (!d)
		return;
	sp_buf_release(&d->lb);
	free(d->raw);
	free(d->fields);
	free(d->pairs);
	sp_ids_free(d->ids);
	sp_buf_release(&d->err);
	sp_py_bounds_release(&d->py);
	free(d);
}

/* Splits the line at its tabs, in one pass (fields are short). */
static int
split(struct sp_recdec *d)
{
	char *s = d->line;

	d->nfields = 0;
	for (;;) {
		if (SP_GROW(d->fields, d->afields, d->nfields + 1))
			return bad(d, "out of memory");
		d->fields[d->nfields++] = s;
		while (*s && *s != '\t')
			s++;
		if (!*s)
			return 0;
		*s++ = 0;
	}
}

/*
 * Reads the next non-empty line: 1, 0 at the end, or an error for the
 * line it was reading.  Lines are capped (SP_RECORDS_MAX_LINE), and a
 * read that fails is an error, never the end (glibc's getline takes
 * ENOMEM for the end).
 */
static int
read_line(struct sp_recdec *d)
{
	ssize_t n;
	int rc;

	do {
		rc = sp_buf_getline(&d->lb, d->f, SP_RECORDS_MAX_LINE);
		if (rc < 0)
			d->lineno++;
		if (rc == -ENOMEM)
			return bad(d, "out of memory");
		if (rc == -EIO) {
			bad(d, "read error: %s", strerror(errno ? errno : EIO));
			return rc;
		}
		if (rc == -E2BIG)
			return bad(d, "longer than %u MiB, not a record",
				   SP_RECORDS_MAX_LINE >> 20);
		if (rc == 0)
			return 0;
		d->line = (char *)d->lb.data;
		n = (ssize_t)d->lb.len;
		d->lineno++;
		if (d->lineno == 1 && sp_spool_magic(d->line, (size_t)n))
			return bad(d, "this is a spool, not a record stream: "
				      "read it with sp-dump first "
				      "(sp-dump FILE | ...)");
		if (d->line[n - 1] != '\n' || memchr(d->line, 0, (size_t)n))
			return bad(d, "cut or binary line (no newline at the "
				      "end, or a NUL byte)");
		d->line[--n] = 0;
		if (n && d->line[n - 1] == '\r')
			return bad(d, "line ends in a carriage return (CRLF "
				      "text?); records end in a newline only");
	} while (n == 0);
	if (SP_GROW(d->raw, d->rawcap, (size_t)n + 1))
		return bad(d, "out of memory");
	memcpy(d->raw, d->line, (size_t)n + 1);
	d->rawlen = (size_t)n;
	return split(d) ? -ENOMEM : 1;
}

int
sp_recdec_next(struct sp_recdec *d, struct sp_rec *rec)
{
	int rc = read_line(d);

	return rc <= 0 ? rc : decode(d, rec);
}

const char *
sp_recdec_errmsg(const struct sp_recdec *d)
{
	return d->err.len ? (const char *)d->err.data : "no error";
}

size_t
sp_recdec_live(const struct sp_recdec *d)
{
	size_t n = 0;
	int k;

	for (k = 0; k < SP_ID_NKINDS; k++)
		n += sp_ids_live(d->ids, (enum sp_id_kind)k);
	return n;
}

uint64_t
sp_recdec_lineno(const struct sp_recdec *d)
{
	return d->lineno;
}

const char *
sp_recdec_line(const struct sp_recdec *d, size_t *len)
{
	*len = d->rawlen;
	return d->raw ? d->raw : "";
}

bool
sp_recdec_drained(const struct sp_recdec *d)
{
#ifdef __GLIBC__
	return d->f->_IO_read_ptr >= d->f->_IO_read_end;
#else
	return true; /* unknown: flush as if the next read may wait */
#endif
}
