/*
 * spool_reader.c: the streaming SPULSE1 reader.  It reads with read(2) as
 * records are needed, so pipes and growing files work, validates every
 * record as the reference reader does (and the project's extension
 * records as the text readers would, through sp_ext_check()), and keeps
 * only the interning tables (modules, frames, stack nodes, threads),
 * never the samples.  They live in ids.h's tables, so what a forget
 * record retires is freed and refused from then on.
 *
 * A record is decoded into locals first and committed only when complete:
 * when the input ends inside it, more is read and decoding restarts at
 * the record's first byte.
 *
 * It is longer than the other files (about 920 lines) on purpose: one
 * decoder whose validation rules, the reference's, are read side by side
 * with the record layouts they check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/ext.h"
#include "common/grow.h"
#include "common/htab.h"
#include "common/ids.h"
#include "common/spool.h"
#include "common/varint.h"
#include "common/banned.h"

#define READ_CHUNK (64 * 1024)
#define MAX_PATH_LEN (1u << 20)
#define MAX_EXT_LEN (16u << 20)
#define MARKER_TAG 5
#define NO_DEACT UINT64_MAX

struct rmodule {
	struct sp_module m; /* its path owned */
	uint64_t deact_at;  /* frame count at deactivation, or NO_DEACT */
};

struct rframe {
	struct sp_frame f;
	uint32_t module_limit; /* modules written before this frame */
};

struct rstack {
	uint32_t prefix;
	uint32_t frame_id;
	uint32_t depth;
};

struct rthread {
	int32_t pid;
	uint64_t tid;
};

/* Ids of one owner's modules, ascending; the first `ndeact` are retired. */
struct idlist {
	uint32_t *ids;
	size_t n, alloc, ndeact;
	int32_t pid;
};

struct sp_spool_reader {
	int fd;
	bool eof;
	bool follow; /* at end of input, wait for more */
	struct sp_buf in;
	size_t pos;    /* next unparsed byte of `in` */
	uint64_t base; /* file offset of in.data[0] */
	char errmsg[192];
	void (*on_wait)(void *);
	void *wait_ctx;

	struct sp_ids *ids; /* modules, frames, stacks, threads: r* structs */
	const struct sp_idtab *tab[SP_ID_NKINDS]; /* its tables, for lookups */
	struct sp_htab *owner_index;              /* pid -> index into owners */
	struct idlist *owners;
	size_t nowners, aowners;
	struct idlist kernel;
	uint64_t last_ts;
	struct sp_ext_bounds ext; /* events defined, for the extensions */
	bool closed; /* the last record read was sp-record's stats record */
};

/* A bounded decoding cursor over the unparsed input. */
struct cur {
	const uint8_t *p;
	const uint8_t *end;
	uint64_t start; /* file offset of the record */
	struct sp_spool_reader *r;
};

static int bad(struct cur *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
bad(struct cur *c, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->r->errmsg, sizeof(c->r->errmsg), "%s at byte %" PRIu64, msg,
		 c->start);
	return -EBADMSG;
}

static int
get_u(struct cur *c, uint64_t *v)
{
	int rc = sp_varint_get_u64(&c->p, c->end, v);

	if (rc == -EBADMSG)
		return bad(c, "malformed varint");
	return rc;
}

static int
get_s(struct cur *c, int64_t *v)
{
	int rc = sp_varint_get_i64(&c->p, c->end, v);

	if (rc == -EBADMSG)
		return bad(c, "malformed varint");
	return rc;
}

static int
get_byte(struct cur *c, uint8_t *b)
{
	if (c->p >= c->end)
		return -EAGAIN;
	*b = *c->p++;
	return 0;
}

static int
get_pid(struct cur *c, int32_t *pid)
{
	int64_t v;
	int rc = get_s(c, &v);

	if (rc)
		return rc;
	if (v < INT32_MIN || v > INT32_MAX)
		return bad(c, "process id %" PRId64 " out of range", v);
	*pid = (int32_t)v;
	return 0;
}

/* Reads an id that must equal `expected` (ids are sequential). */
static int
get_seq_id(struct cur *c, size_t expected, const char *kind)
{
	uint64_t id;
	int rc = get_u(c, &id);

	if (rc)
		return rc;
	if (id != expected)
		return bad(c, "%s id %" PRIu64 " did not match expected %zu",
			   kind, id, expected);
	return 0;
}

static uint32_t
count(const struct sp_spool_reader *r, enum sp_id_kind kind)
{
	return sp_idtab_count(r->tab[kind]);
}

static struct rmodule *
rmodule(const struct sp_spool_reader *r, uint32_t id)
{
	return sp_idtab_get(r->tab[SP_ID_MODULE], id);
}

static struct rframe *
rframe(const struct sp_spool_reader *r, uint32_t id)
{
	return sp_idtab_get(r->tab[SP_ID_FRAME], id);
}

static struct rstack *
rstack(const struct sp_spool_reader *r, uint32_t id)
{
	return sp_idtab_get(r->tab[SP_ID_STACK], id);
}

/* A reference must name a defined id that was not forgotten since. */
static int
check_ref(struct cur *c, enum sp_id_kind kind, const char *what, uint64_t id)
{
	if (id <= UINT32_MAX && sp_idtab_get(c->r->tab[kind], (uint32_t)id))
		return 0;
	if (id >= count(c->r, kind))
		return bad(c, "%s references missing id %" PRIu64, what, id);
	return bad(c, "%s references forgotten id %" PRIu64, what, id);
}

/* Reads a reference to an existing id of `kind`. */
static int
get_ref(struct cur *c, enum sp_id_kind kind, const char *what, uint32_t *out)
{
	uint64_t id;
	int rc = get_u(c, &id);

	if (rc)
		return rc;
	if (id > UINT32_MAX)
		return bad(c, "%s id too large", what);
	/* A live id, the common case, costs the lookup alone. */
	if (!sp_idtab_get(c->r->tab[kind], (uint32_t)id) &&
	    (rc = check_ref(c, kind, what, id)))
		return rc;
	*out = (uint32_t)id;
	return 0;
}

/* An id that could not be defined: out of memory, or of ids. */
static int
define_failed(struct cur *c, const char *kind)
{
	if (errno == EOVERFLOW)
		return bad(c, "too many %s ids", kind);
	return -ENOMEM;
}

static bool
valid_utf8(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t c = s[i];
		size_t len, k;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			len = 2, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			len = 3, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			len = 4, cp = c & 0x07;
		else
			return false;
		if (i + len > n)
			return false;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
		    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

static struct idlist *
owner_list(struct sp_spool_reader *r, int32_t pid, bool create)
{
	uint64_t *slot, key = (uint64_t)(int64_t)pid;
	bool fresh;

	if (!create) {
		uint64_t idx;

		if (!sp_htab_get(r->owner_index, &key, sizeof(key), &idx))
			return NULL;
		return &r->owners[idx];
	}
	if (SP_GROW(r->owners, r->aowners, r->nowners + 1))
		return NULL;
	slot =
	    sp_htab_slot(r->owner_index, &key, sizeof(key), r->nowners, &fresh);
	if (!slot)
		return NULL;
	if (fresh) {
		memset(&r->owners[r->nowners], 0, sizeof(*r->owners));
		r->owners[r->nowners++].pid = pid;
	}
	return &r->owners[*slot];
}

/* Drops the process's module list; the last list moves into its place. */
static void
drop_owner(struct sp_spool_reader *r, int32_t pid)
{
	uint64_t key = (uint64_t)(int64_t)pid, idx;

	if (!sp_htab_get(r->owner_index, &key, sizeof(key), &idx))
		return;
	sp_htab_del(r->owner_index, &key, sizeof(key));
	free(r->owners[idx].ids);
	if (idx != --r->nowners) {
		r->owners[idx] = r->owners[r->nowners];
		key = (uint64_t)(int64_t)r->owners[r->nowners].pid;
		sp_htab_put(r->owner_index, &key, sizeof(key), idx);
	}
}

static int
commit_module(struct cur *c, struct sp_module *m)
{
	struct sp_spool_reader *r = c->r;
	struct idlist *l = m->is_kernel ? &r->kernel : owner_list(r, m->pid, 1);
	struct rmodule *rm;
	char *path;

	if (!l || SP_GROW(l->ids, l->alloc, l->n + 1))
		return -ENOMEM;
	path = strndup(m->path, m->path_len);
	if (!path)
		return -ENOMEM;
	rm = sp_ids_module(r->ids, m->pid, m->is_kernel);
	if (!rm) {
		free(path);
		return define_failed(c, "module");
	}
	m->path = path;
	l->ids[l->n++] = m->id;
	rm->deact_at = NO_DEACT;
	rm->m = *m;
	return 0;
}

static int
read_module(struct cur *c, struct sp_spool_record *rec)
{
	struct sp_module *m = &rec->u.module;
	uint64_t len;
	uint8_t flag;
	int rc;

	memset(m, 0, sizeof(*m));
	if ((rc = get_seq_id(c, count(c->r, SP_ID_MODULE), "module")) ||
	    (rc = get_pid(c, &m->pid)) || (rc = get_u(c, &m->start)) ||
	    (rc = get_u(c, &m->end)) || (rc = get_u(c, &m->file_offset)) ||
	    (rc = get_u(c, &m->inode)) || (rc = get_byte(c, &flag)) ||
	    (rc = get_u(c, &len)))
		return rc;
	if (len > MAX_PATH_LEN)
		return bad(c, "module path length %" PRIu64 " too large", len);
	if (len > (uint64_t)(c->end - c->p))
		return -EAGAIN;
	if (!valid_utf8(c->p, len))
		return bad(c, "module path is not valid UTF-8");
	/* No file path holds a NUL, and the path is kept NUL-terminated. */
	if (memchr(c->p, 0, len))
		return bad(c, "module path holds a NUL byte");
	m->id = count(c->r, SP_ID_MODULE);
	m->is_kernel = flag != 0;
	m->path = (const char *)c->p;
	m->path_len = len;
	c->p += len;
	return commit_module(c, m);
}

/* The frame of a module: its address must fall inside the module. */
static int
module_frame(struct cur *c, uint32_t mid, uint64_t addr, struct sp_frame *f)
{
	const struct sp_module *m = &rmodule(c->r, mid)->m;
	uint64_t off;

	if (addr < m->file_offset)
		return bad(c, "frame address precedes module %u file offset",
			   mid);
	off = addr - m->file_offset;
	if (m->end < m->start)
		return bad(c, "module %u end precedes module start", mid);
	if (off >= m->end - m->start)
		return bad(c, "frame address outside referenced module %u",
			   mid);
	f->module_id = mid;
	f->rel_ip = addr;
	f->abs_ip = m->start + off;
	f->mode = m->is_kernel ? SP_FRAME_KERNEL : SP_FRAME_USER;
	return 0;
}

static int
read_frame(struct cur *c, struct sp_spool_record *rec)
{
	struct sp_spool_reader *r = c->r;
	struct sp_frame *f = &rec->u.frame.frame;
	struct rframe *rf;
	uint64_t tag, addr;
	int rc;

	if ((rc = get_seq_id(c, count(r, SP_ID_FRAME), "frame")) ||
	    (rc = get_u(c, &tag)) || (rc = get_u(c, &addr)))
		return rc;
	if (tag == MARKER_TAG) {
		if (addr != 0)
			return bad(c, "truncated stack marker has nonzero "
				      "payload");
		*f = sp_frame_truncated_marker();
	} else if (!(tag & 1)) {
		if ((tag >> 1) > UINT32_MAX)
			return bad(c, "frame module id too large");
		if ((rc = check_ref(c, SP_ID_MODULE, "frame module",
				    tag >> 1)) ||
		    (rc = module_frame(c, (uint32_t)(tag >> 1), addr, f)))
			return rc;
	} else {
		f->module_id = SP_NONE;
		f->rel_ip = f->abs_ip = addr;
		f->mode = tag & 2 ? SP_FRAME_KERNEL : SP_FRAME_USER;
	}
	rf = sp_ids_frame(r->ids, f->module_id);
	if (!rf)
		return define_failed(c, "frame");
	rec->u.frame.id = count(r, SP_ID_FRAME) - 1;
	rf->f = *f;
	rf->module_limit = count(r, SP_ID_MODULE);
	return 0;
}

static int
read_stack(struct cur *c, struct sp_spool_record *rec)
{
	struct sp_spool_reader *r = c->r;
	uint64_t raw;
	uint32_t prefix = SP_NONE, frame_id, depth = 1;
	struct rstack *rs;
	int rc;

	if ((rc = get_seq_id(c, count(r, SP_ID_STACK), "stack")) ||
	    (rc = get_u(c, &raw)))
		return rc;
	if (raw != SP_NONE) {
		if (raw > UINT32_MAX)
			return bad(c, "stack prefix id too large");
		if ((rc = check_ref(c, SP_ID_STACK, "stack prefix", raw)))
			return rc;
		prefix = (uint32_t)raw;
		depth = rstack(r, prefix)->depth;
		depth += depth < UINT32_MAX;
	}
	rc = get_ref(c, SP_ID_FRAME, "stack frame", &frame_id);
	if (rc)
		return rc;
	rs = sp_ids_stack(r->ids, prefix, frame_id);
	if (!rs)
		return define_failed(c, "stack");
	rec->u.stack.id = count(r, SP_ID_STACK) - 1;
	rec->u.stack.prefix = rs->prefix = prefix;
	rec->u.stack.frame_id = rs->frame_id = frame_id;
	rec->u.stack.depth = rs->depth = depth;
	return 0;
}

static int
read_thread(struct cur *c, struct sp_spool_record *rec)
{
	struct sp_spool_reader *r = c->r;
	struct rthread *rt;
	int rc;

	if ((rc = get_seq_id(c, count(r, SP_ID_THREAD), "thread")) ||
	    (rc = get_pid(c, &rec->u.thread.pid)) ||
	    (rc = get_u(c, &rec->u.thread.tid)))
		return rc;
	/* Its samples' module-less frames name it in pframe records, which
	 * the text readers refuse with a negative process id. */
	if (rec->u.thread.pid < 0)
		return bad(c, "thread process id %" PRId32 " is negative",
			   rec->u.thread.pid);
	rt = sp_ids_thread(r->ids, rec->u.thread.pid);
	if (!rt)
		return define_failed(c, "thread");
	rec->u.thread.id = count(r, SP_ID_THREAD) - 1;
	rt->pid = rec->u.thread.pid;
	rt->tid = rec->u.thread.tid;
	return 0;
}

static int
read_sample(struct cur *c, struct sp_spool_record *rec)
{
	struct sp_spool_reader *r = c->r;
	int64_t delta;
	uint64_t ts;
	uint32_t tid_ref, stack;
	const struct rthread *rt;
	int rc;

	if ((rc = get_s(c, &delta)))
		return rc;
	if (delta < 0 ? (uint64_t)0 - (uint64_t)delta > r->last_ts
		      : (uint64_t)delta > UINT64_MAX - r->last_ts)
		return bad(c, "sample timestamp delta %" PRId64 " out of range",
			   delta);
	ts = r->last_ts + (uint64_t)delta;
	if ((rc = get_ref(c, SP_ID_THREAD, "sample thread", &tid_ref)) ||
	    (rc = get_ref(c, SP_ID_STACK, "sample stack", &stack)))
		return rc;
	rt = sp_idtab_get(r->tab[SP_ID_THREAD], tid_ref);
	r->last_ts = ts;
	rec->u.sample.timestamp_ns = ts;
	rec->u.sample.thread_id = tid_ref;
	rec->u.sample.pid = rt->pid;
	rec->u.sample.tid = rt->tid;
	rec->u.sample.stack_id = stack;
	return 0;
}

static int
read_exec(struct cur *c, struct sp_spool_record *rec)
{
	uint8_t flag;
	int rc;

	if ((rc = get_u(c, &rec->u.exec.timestamp_ns)) ||
	    (rc = get_pid(c, &rec->u.exec.pid)) || (rc = get_byte(c, &flag)))
		return rc;
	rec->u.exec.is_python = flag != 0;
	return 0;
}

/* Retires every live user module of the process, as of this frame count. */
static int
read_deactivate(struct cur *c, struct sp_spool_record *rec)
{
	struct sp_spool_reader *r = c->r;
	struct idlist *l;
	int rc = get_pid(c, &rec->u.deactivate.pid);

	if (rc)
		return rc;
	l = owner_list(r, rec->u.deactivate.pid, 0);
	for (; l && l->ndeact < l->n; l->ndeact++)
		rmodule(r, l->ids[l->ndeact])->deact_at = count(r, SP_ID_FRAME);
	return 0;
}

/* Retires what the process owned, its modules' contexts included. */
static void
forget(struct sp_spool_reader *r, const uint8_t *p, size_t n)
{
	int32_t pid;

	if (sp_ext_forget_decode(p, n, &pid))
		return; /* sp_ext_check() refused it already */
	sp_ids_forget(r->ids, pid);
	drop_owner(r, pid);
}

static int
read_ext(struct cur *c, struct sp_spool_record *rec)
{
	const char *why;
	uint64_t len;
	int rc = get_u(c, &len);

	if (rc)
		return rc;
	if (len > MAX_EXT_LEN)
		return bad(c, "extension record length %" PRIu64 " too large",
			   len);
	if (len > (uint64_t)(c->end - c->p))
		return -EAGAIN;
	/* Refused here as every text reader would refuse its line. */
	c->r->ext.nmodules = count(c->r, SP_ID_MODULE);
	rc = sp_ext_check(rec->tag, c->p, len, &c->r->ext, &why);
	if (rc == -EBADMSG)
		return bad(c, "malformed extension record %u", rec->tag);
	if (rc)
		return bad(c, "extension record %u: %s", rec->tag, why);
	if (rec->tag == SP_EXT_FORGET)
		forget(c->r, c->p, len);
	rec->u.ext.data = c->p;
	rec->u.ext.len = len;
	c->p += len;
	return 0;
}

static int
parse_record(struct cur *c, uint8_t tag, struct sp_spool_record *rec)
{
	switch (tag) {
	case SP_TAG_MODULE:
		return read_module(c, rec);
	case SP_TAG_FRAME:
		return read_frame(c, rec);
	case SP_TAG_STACK:
		return read_stack(c, rec);
	case SP_TAG_THREAD:
		return read_thread(c, rec);
	case SP_TAG_SAMPLE:
		/* A pystack before it is its own. */
		sp_py_check_sample(&c->r->ext.py, UINT32_MAX);
		return read_sample(c, rec);
	case SP_TAG_EXEC:
		return read_exec(c, rec);
	case SP_TAG_DEACTIVATE:
		return read_deactivate(c, rec);
	default:
		if (tag >= SP_TAG_EXT_FIRST)
			return read_ext(c, rec);
		return bad(c, "unknown spool record tag %u", tag);
	}
}

/* Reads more input; returns 1 for new bytes, 0 at end, or -errno. */
static int
fill(struct sp_spool_reader *r)
{
	ssize_t n;

	if (r->eof)
		return 0;
	if (r->pos > READ_CHUNK) {
		sp_buf_consume(&r->in, r->pos);
		r->base += r->pos;
		r->pos = 0;
	}
	if (sp_buf_grow(&r->in, READ_CHUNK))
		return -ENOMEM;
	if (r->on_wait)
		r->on_wait(r->wait_ctx);
	do
		n = read(r->fd, r->in.data + r->in.len, READ_CHUNK);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		snprintf(r->errmsg, sizeof(r->errmsg), "read: %s",
			 strerror(errno));
		return -errno;
	}
	if (n == 0) {
		if (r->follow) {
			struct timespec ts = { 0, 100 * 1000 * 1000 };

			nanosleep(&ts, NULL);
			return 1;
		}
		r->eof = true;
		return 0;
	}
	r->in.len += (size_t)n;
	return 1;
}

static void
init_cur(struct sp_spool_reader *r, struct cur *c)
{
	c->p = r->in.data + r->pos;
	c->end = r->in.data + r->in.len;
	c->start = r->base + r->pos;
	c->r = r;
}

int
sp_spool_reader_header(struct sp_spool_reader *r, uint64_t *start_us,
		       uint64_t *interval_us)
{
	struct cur c;
	int rc;

	for (;;) {
		init_cur(r, &c);
		if ((size_t)(c.end - c.p) >= 8) {
			if (memcmp(c.p, SP_SPOOL_MAGIC, 8))
				return bad(&c,
					   "invalid stackpulse spool magic");
			c.p += 8;
			rc = get_u(&c, start_us);
			rc = rc ? rc : get_u(&c, interval_us);
			if (rc != -EAGAIN) {
				if (!rc)
					r->pos = (size_t)(c.p - r->in.data);
				return rc;
			}
		}
		rc = fill(r);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			init_cur(r, &c);
			return bad(&c, r->in.len ? "truncated spool header"
						 : "empty input, not a spool");
		}
	}
}

int
sp_spool_reader_next(struct sp_spool_reader *r, struct sp_spool_record *rec)
{
	struct cur c;
	int rc;

	for (;;) {
		init_cur(r, &c);
		if (c.p < c.end) {
			rec->tag = *c.p++;
			rec->offset = c.start;
			rc = parse_record(&c, rec->tag, rec);
			if (rc == 0) {
				r->pos = (size_t)(c.p - r->in.data);
				r->closed = rec->tag == SP_EXT_STATS;
				return 1;
			}
			if (rc != -EAGAIN)
				return rc;
		}
		rc = fill(r);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			if (r->pos == r->in.len)
				return 0;
			return bad(&c, "truncated spool record");
		}
	}
}

/* A retired module's path goes with it. */
static void
release_id(void *ctx, enum sp_id_kind kind, uint32_t id, void *data)
{
	(void)ctx;
	(void)id;
	if (kind == SP_ID_MODULE)
		free((char *)((struct rmodule *)data)->m.path);
}

struct sp_spool_reader *
sp_spool_reader_new(int fd)
{
	static const size_t extra[SP_ID_NKINDS] = {
		[SP_ID_MODULE] = sizeof(struct rmodule),
		[SP_ID_FRAME] = sizeof(struct rframe),
		[SP_ID_STACK] = sizeof(struct rstack),
		[SP_ID_THREAD] = sizeof(struct rthread),
	};
	struct sp_spool_reader *r = calloc(1, sizeof(*r));
	int k;

	if (!r || !(r->owner_index = sp_htab_new()) ||
	    !(r->ids = sp_ids_new(extra, release_id, NULL))) {
		if (r)
			sp_htab_free(r->owner_index);
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	for (k = 0; k < SP_ID_NKINDS; k++)
		r->tab[k] = sp_ids_table(r->ids, (enum sp_id_kind)k);
	r->ext.ids = r->ids;
	r->fd = fd;
	return r;
}

void
sp_spool_reader_free(struct sp_spool_reader *r)
{
	struct rmodule *rm;
	uint32_t id;
	size_t i;

	if (!r)
		return;
	for (id = 0; id < count(r, SP_ID_MODULE); id++)
		if ((rm = rmodule(r, id)))
			free((char *)rm->m.path);
	for (i = 0; i < r->nowners; i++)
		free(r->owners[i].ids);
	free(r->kernel.ids);
	free(r->owners);
	sp_htab_free(r->owner_index);
	sp_ids_free(r->ids);
	sp_buf_release(&r->in);
	sp_py_bounds_release(&r->ext.py);
	free(r);
}

void
sp_spool_reader_follow(struct sp_spool_reader *r, bool follow)
{
	r->follow = follow;
}

void
sp_spool_reader_on_wait(struct sp_spool_reader *r, void (*fn)(void *),
			void *ctx)
{
	r->on_wait = fn;
	r->wait_ctx = ctx;
}

bool
sp_spool_reader_closed(const struct sp_spool_reader *r)
{
	return r->closed;
}

uint64_t
sp_spool_reader_offset(const struct sp_spool_reader *r)
{
	return r->base + r->pos;
}

const char *
sp_spool_reader_errmsg(const struct sp_spool_reader *r)
{
	return r->errmsg;
}

const struct sp_module *
sp_spool_reader_module(const struct sp_spool_reader *r, uint32_t id)
{
	const struct rmodule *rm = rmodule(r, id);

	return rm ? &rm->m : NULL;
}

const struct sp_frame *
sp_spool_reader_frame(const struct sp_spool_reader *r, uint32_t id)
{
	const struct rframe *rf = rframe(r, id);

	return rf ? &rf->f : NULL;
}

bool
sp_spool_reader_stack(const struct sp_spool_reader *r, uint32_t id,
		      uint32_t *prefix, uint32_t *frame_id)
{
	const struct rstack *rs = rstack(r, id);

	if (!rs)
		return false;
	*prefix = rs->prefix;
	*frame_id = rs->frame_id;
	return true;
}

uint32_t
sp_spool_reader_nmodules(const struct sp_spool_reader *r)
{
	return count(r, SP_ID_MODULE);
}

size_t
sp_spool_reader_live(const struct sp_spool_reader *r)
{
	size_t n = 0;
	int k;

	for (k = 0; k < SP_ID_NKINDS; k++)
		n += sp_ids_live(r->ids, (enum sp_id_kind)k);
	return n + r->nowners;
}

bool
sp_spool_reader_frame_needs_pid(const struct sp_spool_reader *r,
				uint32_t frame_id)
{
	const struct sp_frame *f = sp_spool_reader_frame(r, frame_id);

	return f && f->module_id == SP_NONE && f->mode == SP_FRAME_USER;
}

/* Newest module of `l` visible to the frame that covers its address. */
static uint32_t
search_owner(const struct sp_spool_reader *r, const struct idlist *l,
	     uint32_t frame_id)
{
	const struct rframe *fr = rframe(r, frame_id);
	size_t i;

	for (i = l->n; i-- > 0;) {
		uint32_t id = l->ids[i];
		const struct rmodule *rm = rmodule(r, id);
		const struct sp_module *m = &rm->m;

		if (id >= fr->module_limit)
			continue;
		if (rm->deact_at != NO_DEACT && frame_id >= rm->deact_at)
			continue;
		if (m->start <= fr->f.abs_ip && fr->f.abs_ip < m->end)
			return id;
	}
	return SP_NONE;
}

uint32_t
sp_spool_reader_frame_context(const struct sp_spool_reader *r,
			      uint32_t frame_id, int32_t pid, uint64_t *rel_ip)
{
	const struct sp_frame *f = sp_spool_reader_frame(r, frame_id);
	const struct idlist *l;
	const struct sp_module *m;
	uint32_t id;

	if (!f || f->mode == SP_FRAME_TRUNCATED)
		return SP_NONE;
	if (f->module_id != SP_NONE) {
		*rel_ip = f->rel_ip;
		return f->module_id;
	}
	if (f->mode == SP_FRAME_KERNEL)
		l = &r->kernel;
	else
		l = owner_list((struct sp_spool_reader *)r, pid, 0);
	id = l ? search_owner(r, l, frame_id) : SP_NONE;
	if (id == SP_NONE)
		return SP_NONE;
	m = &rmodule(r, id)->m;
	*rel_ip = f->abs_ip - m->start + m->file_offset;
	return id;
}

bool
sp_spool_magic(const void *p, size_t n)
{
	return n >= sizeof(SP_SPOOL_MAGIC) &&
	       !memcmp(p, SP_SPOOL_MAGIC, sizeof(SP_SPOOL_MAGIC));
}
