/*
 * pystack.c: a CPython thread's frame chain read from its memory (see
 * pystack.h): the thread's state found from _PyRuntime, then the frames
 * walked from the innermost out; and the frames the BPF program read at
 * a sample (bpf/pyframes.c) turned into the same frames.
 *
 * At about 800 lines it is longer than most files: both readers decode
 * a frame's fields with one layout (struct rawframe, is_root) and share
 * the code cache, which a split would have to export.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/htab.h"
#include "sp-record/python/pycode.h"
#include "sp-record/python/pyfind.h"
#include "sp-record/python/pylayout.h"
#include "sp-record/python/pymem.h"
#include "sp-record/python/pystack.h"
#include "common/banned.h"

/* Interpreters and thread states walked at most, against loops. */
#define MAX_INTERPS 64
#define MAX_THREADS 4096
/* Walks of a stack that changes under them, before giving it up. */
#define WALK_TRIES 3
/* glibc's struct pthread keeps the kernel id here on x86-64 (2.x). */
#define PTHREAD_TID_GUESS 0x2d0
/* A frame owner (3.11+, Include/internal/pycore_frame.h). */
#define OWNED_BY_THREAD 0
/* Threads whose pages are remembered, by tid modulo this. */
#define HINTS 64

/*
 * The pages a thread's last walk read (its thread state, the frames):
 * its next sample reads them again in one call (rec_pymem_prefetch).
 */
struct hint {
	int32_t tid; /* 0: none */
	uint32_t npages;
	uint64_t pages[REC_PYMEM_PAGES];
};

struct rec_pystack {
	struct rec_pyfind_target t;
	struct rec_pylayout l;
	struct rec_pymem mem;
	struct rec_pycode_cache *codes;
	struct sp_htab *tstates; /* tid -> its thread state, last found */
	int pthread_tid;         /* offset of the tid in struct pthread, -1 */
	uint64_t unstable;       /* stacks given up as changing */
	bool now;                /* reads bypass the pages kept (pymem.h) */
	/*
	 * Page stamps (pymem.h): the pointers to the leaf are read in
	 * order (chain), and frames no earlier than the last of them (leaf).
	 */
	uint64_t chain, leaf;
	uint8_t *hdrs; /* code object headers, REC_PYSTACK_MAX_DEPTH of them */
	struct hint hints[HINTS];
	struct sp_buf why;
};

/*
 * Where our own glibc keeps a thread's kernel id in struct pthread
 * (pthread_self() points to it), taken to be where the target's does.
 */
static int
pthread_tid_offset(void)
{
	const uint8_t *self = (const uint8_t *)pthread_self();
	pid_t tid = gettid(), v;
	int off, found = -1;

	memcpy(&v, self + PTHREAD_TID_GUESS, sizeof(v));
	if (v == tid)
		return PTHREAD_TID_GUESS;
	for (off = 0; off < 2048; off += 4) {
		memcpy(&v, self + off, sizeof(v));
		if (v == tid) {
			if (found >= 0)
				return -1; /* ambiguous */
			found = off;
		}
	}
	return found;
}

/*
 * Reads from the pages kept (or now, py->now), no earlier than *since,
 * which becomes the stamp of the page read.
 */
static int
py_read_after(struct rec_pystack *py, uint64_t addr, void *buf, size_t len,
	      uint64_t *since)
{
	if (py->now)
		return rec_pymem_read_now(&py->mem, addr, buf, len);
	return rec_pymem_read_after(&py->mem, addr, buf, len, since);
}

static int
py_read(struct rec_pystack *py, uint64_t addr, void *buf, size_t len)
{
	return py_read_after(py, addr, buf, len, &py->chain);
}

static int
read_u64(struct rec_pystack *py, uint64_t addr, uint64_t *v)
{
	return py_read(py, addr, v, 8);
}

/* 3.13 says where its fields are; older versions have tables. */
static int
get_layout(struct rec_pystack *py, struct sp_buf *why)
{
	uint8_t raw[REC_PYLAYOUT_DEBUG_SIZE];
	int rc;

	if (py->t.minor < 13)
		return rec_pylayout_table(py->t.minor, &py->l);
	rec_pymem_begin(&py->mem, sizeof(raw));
	rc = rec_pymem_read_now(&py->mem, py->t.runtime, raw, sizeof(raw));
	if (rc < 0) {
		sp_buf_addf(why, "python3.13: _PyRuntime unreadable: %s",
			    strerror(-rc));
		return rc;
	}
	return rec_pylayout_debug(raw, sizeof(raw), &py->l, why);
}

/*
 * The reader is allocated once the process is found to be CPython: most
 * processes of a build are not, and zeroing the reader's page hints for
 * each of them cost more than the look itself.
 */
struct rec_pystack *
rec_pystack_attach(struct rec_pyfind_files *files, int32_t pid,
		   struct sp_buf *why)
{
	struct rec_pyfind_target t;
	struct rec_pystack *py;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = rec_pyfind(files, pid, &t, why);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	if (!(py = calloc(1, sizeof(*py))))
		return NULL;
	py->t = t;
	rc = rec_pymem_init(&py->mem, pid);
	if (rc < 0)
		sp_buf_addf(why, "pid %d: %s", (int)pid, strerror(-rc));
	if (rc == 0)
		rc = get_layout(py, why);
	if (rc == 0) {
		py->codes = rec_pycode_new(&py->l, py->t.code_type);
		py->tstates = sp_htab_new();
		py->hdrs = calloc(REC_PYSTACK_MAX_DEPTH, py->l.co_span);
		if (!py->codes || !py->tstates || !py->hdrs)
			rc = -ENOMEM;
	}
	if (rc < 0) {
		rec_pystack_free(py);
		errno = -rc;
		return NULL;
	}
	py->pthread_tid = pthread_tid_offset();
	return py;
}

void
rec_pystack_free(struct rec_pystack *py)
{
	if (!py)
		return;
	rec_pycode_free(py->codes);
	sp_htab_free(py->tstates);
	free(py->hdrs);
	rec_pymem_release(&py->mem);
	sp_buf_release(&py->why);
	free(py);
}

const char *
rec_pystack_why(const struct rec_pystack *py)
{
	return py->why.len ? (const char *)py->why.data : "";
}

unsigned
rec_pystack_minor(const struct rec_pystack *py)
{
	return py->t.minor;
}

const struct rec_pyfind_target *
rec_pystack_target(const struct rec_pystack *py)
{
	return &py->t;
}

uint64_t
rec_pystack_bytes_read(const struct rec_pystack *py)
{
	return py->mem.bytes_read;
}

struct rec_pymem *
rec_pystack_mem(struct rec_pystack *py)
{
	return &py->mem;
}

/* Whether the thread state at `ts` (its first bytes in `b`) is tid's. */
static int
tstate_is(struct rec_pystack *py, const uint8_t *b, int32_t tid)
{
	uint64_t v;
	int32_t t;

	if (py->l.ts_native_tid != REC_PYLAYOUT_NONE) {
		memcpy(&v, b + py->l.ts_native_tid, 8);
		return v == (uint64_t)(uint32_t)tid;
	}
	if (py->pthread_tid < 0)
		return -ENOTSUP;
	memcpy(&v, b + py->l.ts_thread_id, 8);
	if (rec_pymem_read(&py->mem, v + (uint64_t)py->pthread_tid, &t, 4))
		return 0; /* a thread going away */
	return t == tid;
}

/* Walks the thread states of interpreter `is` for tid's. */
static int
walk_tstates(struct rec_pystack *py, uint64_t is, int32_t tid, uint8_t *b,
	     uint64_t *ts, size_t *budget)
{
	uint64_t at;
	int rc;

	rc = read_u64(py, is + py->l.is_threads_head, &at);
	for (; rc == 0 && at && *budget > 0; (*budget)--) {
		rc = rec_pymem_read(&py->mem, at, b, py->l.ts_span);
		if (rc < 0)
			break;
		rc = tstate_is(py, b, tid);
		if (rc != 0) {
			*ts = at;
			return rc;
		}
		memcpy(&at, b + py->l.ts_next, 8);
	}
	return rc < 0 ? rc : 0;
}

/*
 * A thread's states in every interpreter (a thread that ran a
 * subinterpreter has one in each): which of them runs now.
 */
struct tsfind {
	int32_t tid;
	uint64_t cur;   /* the state holding the GIL (3.8-3.11), or 0 */
	uint64_t first; /* the first of tid's states met */
	uint64_t found; /* the one running, of the last met */
	uint64_t main;  /* the one running in the main interpreter */
	unsigned n, running;
	bool in_main; /* the interpreter scanned is the main one (the last) */
	bool busy;    /* one not running holds frames */
};

/* Whether the state at `at` (its first bytes in `b`) runs now. */
static bool
tstate_runs(const struct rec_pystack *py, const uint8_t *b, uint64_t at,
	    uint64_t cur)
{
	uint32_t status;

	if (py->l.ts_status == REC_PYLAYOUT_NONE)
		return at == cur;
	memcpy(&status, b + py->l.ts_status, 4);
	return (status & REC_PYLAYOUT_TS_ACTIVE) != 0;
}

/* Whether the state at `at` has a frame (false if it cannot be read). */
static bool
tstate_busy(struct rec_pystack *py, uint64_t at)
{
	uint64_t v;

	if (read_u64(py, at + py->l.ts_frame, &v) < 0)
		return false;
	if (v && py->l.cf_current_frame != REC_PYLAYOUT_NONE &&
	    read_u64(py, v + py->l.cf_current_frame, &v) < 0)
		return false;
	return v != 0;
}

/* Notes every state of f->tid in interpreter `is`. */
static int
scan_tstates(struct rec_pystack *py, uint64_t is, struct tsfind *f, uint8_t *b,
	     size_t *budget)
{
	uint64_t at;
	int rc;

	rc = read_u64(py, is + py->l.is_threads_head, &at);
	for (; rc == 0 && at && *budget > 0; (*budget)--) {
		rc = rec_pymem_read(&py->mem, at, b, py->l.ts_span);
		if (rc == 0)
			rc = tstate_is(py, b, f->tid);
		if (rc < 0)
			break;
		if (rc == 1 && !f->n++)
			f->first = at;
		if (rc == 1 && tstate_runs(py, b, at, f->cur)) {
			f->found = at;
			f->running++;
			if (f->in_main)
				f->main = at;
		} else if (rc == 1) {
			f->busy |= tstate_busy(py, at);
		}
		memcpy(&at, b + py->l.ts_next, 8);
		rc = 0;
	}
	return rc;
}

/*
 * Finds tid's state among several interpreters' into *ts.  One state is
 * tid's; of several, the one running now, and *nested tells whether the
 * thread entered it from a call in another interpreter (another of its
 * states holds frames), whose frames its chain lacks.  A subinterpreter
 * created by one thread and run by another (3.8-3.12) runs in the state
 * its creator made, with the creator's thread id: two may then run, and
 * the one of the main interpreter, whose states no other thread runs,
 * is tid's.  -EBUSY when which runs cannot be told: none of several is
 * known to run (3.12+: not one), or several outside the main interpreter.
 */
static int
find_among(struct rec_pystack *py, uint64_t is, int32_t tid, uint8_t *b,
	   uint64_t *ts, bool *nested)
{
	struct tsfind f = { .tid = tid };
	size_t threads = MAX_THREADS, n;
	uint64_t next = 0;
	int rc = 0;

	if (py->l.rt_tstate_current != REC_PYLAYOUT_NONE)
		rc = read_u64(py, py->t.runtime + py->l.rt_tstate_current,
			      &f.cur);
	for (n = 0; rc == 0 && is && n < MAX_INTERPS; n++) {
		rc = read_u64(py, is + py->l.is_next, &next);
		f.in_main = next == 0;
		if (rc == 0)
			rc = scan_tstates(py, is, &f, b, &threads);
		is = next;
	}
	if (rc < 0)
		return rc;
	if (f.n == 0)
		return -ENOENT;
	if (f.n > 1 && f.running != 1 && !(f.running > 1 && f.main))
		return -EBUSY;
	/* 3.12+ mark the state a thread runs: one not marked runs elsewhere */
	if (!f.running && py->l.ts_status != REC_PYLAYOUT_NONE)
		return -EBUSY;
	*ts = f.running == 1 ? f.found : f.running ? f.main : f.first;
	*nested = f.n > 1 && f.busy;
	return 0;
}

/*
 * Finds tid's thread state into *ts (*nested: see find_among), its
 * first bytes into `b`.  A process with one interpreter has one state a
 * thread, kept by tid.
 */
static int
find_tstate(struct rec_pystack *py, int32_t tid, uint8_t *b, uint64_t *ts,
	    bool *nested)
{
	size_t threads = MAX_THREADS;
	uint64_t is, next = 0;
	int rc;

	*nested = false;
	rc = read_u64(py, py->t.runtime + py->l.rt_interp_head, &is);
	if (rc == 0 && is)
		rc = read_u64(py, is + py->l.is_next, &next);
	if (rc == 0 && next)
		return find_among(py, is, tid, b, ts, nested);
	if (sp_htab_get(py->tstates, &tid, sizeof(tid), ts) &&
	    rec_pymem_read(&py->mem, *ts, b, py->l.ts_span) == 0 &&
	    tstate_is(py, b, tid) == 1)
		return 0;
	if (rc == 0 && is)
		rc = walk_tstates(py, is, tid, b, ts, &threads);
	if (rc == 1)
		return sp_htab_put(py->tstates, &tid, sizeof(tid), *ts);
	sp_htab_del(py->tstates, &tid, sizeof(tid));
	return rc < 0 ? rc : -ENOENT;
}

/* What one frame's bytes say. */
struct rawframe {
	uint64_t back, code;
	int64_t offset; /* of the instruction in the code; <0 not started */
	uint8_t owner;
	bool entry;
};

/*
 * Sets r->offset and r->entry (r->code set) from a frame's instruction
 * field `instr` (a pointer into its code's bytes, or 3.8-3.10's 32-bit
 * last instruction) and its is_entry byte, where the layout has one.
 */
static void
frame_position(const struct rec_pystack *py, uint64_t instr, uint8_t is_entry,
	       struct rawframe *r)
{
	const struct rec_pylayout *l = &py->l;
	int32_t lasti = (int32_t)instr;

	r->entry = l->fr_is_entry != REC_PYLAYOUT_NONE
		       ? is_entry
		       : l->frames == REC_PY_FRAMEOBJ;
	if (l->frames == REC_PY_FRAMEOBJ)
		/* 3.10 counts code units, 3.8 and 3.9 bytes */
		r->offset = l->minor == 10 ? 2 * (int64_t)lasti : lasti;
	else
		r->offset = (int64_t)(instr - (r->code + l->co_code));
}

/* Decodes the l.fr_span bytes of a frame, `b`. */
static int
parse_frame(const struct rec_pystack *py, const uint8_t *b, struct rawframe *r)
{
	const struct rec_pylayout *l = &py->l;
	uint64_t v, instr = 0;
	uint32_t lasti;

	memcpy(&r->back, b + l->fr_back, 8);
	memcpy(&r->code, b + l->fr_code, 8);
	r->owner = l->fr_owner != REC_PYLAYOUT_NONE ? b[l->fr_owner] : 0;
	if (l->frames == REC_PY_FRAMEOBJ) {
		memcpy(&v, b + 8, 8); /* ob_type */
		if (py->t.frame_type && v != py->t.frame_type)
			return -EBADMSG;
		memcpy(&lasti, b + l->fr_instr, 4);
		instr = lasti;
	} else {
		memcpy(&instr, b + l->fr_instr, 8);
	}
	frame_position(
	    py, instr,
	    l->fr_is_entry != REC_PYLAYOUT_NONE ? b[l->fr_is_entry] : 0, r);
	return 0;
}

/* The frame of code `code` at r's instruction. */
static void
make_frame(const struct rec_pystack *py, const struct rec_pycode *code,
	   const struct rawframe *r, struct rec_pystack_frame *out)
{
	out->code = code;
	out->line = rec_pycode_line(py->codes, code, r->offset);
	out->offset =
	    r->offset > 0 && r->offset <= UINT32_MAX ? (uint32_t)r->offset : 0;
	out->entry = r->entry;
}

static int
decode_frame(struct rec_pystack *py, uint64_t f, struct rawframe *r)
{
	uint8_t b[REC_PYLAYOUT_SPAN_MAX];
	uint64_t since;
	int rc;

	if (py->l.fr_span > sizeof(b))
		return -EBADMSG;
	/*
	 * A frame the leaf read then led to lived when it was read: its
	 * callee, or the leaf itself, was the leaf then, and a frame
	 * outlives its callees (the leaf read again after tells whether
	 * they did).  An older copy could predate it.
	 */
	since = py->leaf;
	rc = py_read_after(py, f, b, py->l.fr_span, &since);
	return rc < 0 ? rc : parse_frame(py, b, r);
}

static bool
seen(const uint64_t *v, size_t n, uint64_t a)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == a)
			return true;
	return false;
}

/*
 * Whether the last frame read, `r` (`code` its last function's), can
 * end a thread's chain.  A generator's frame is unlinked from its caller
 * when it yields, so a chain read across a yield ends at a generator;
 * 3.12+ chains end at the shim of the outermost evaluator call.
 */
static bool
is_root(const struct rec_pystack *py, const struct rawframe *r,
	const struct rec_pycode *code)
{
	if (py->l.frames == REC_PY_FRAMEOBJ)
		return !code->resumable;
	if (py->l.minor == 11)
		return r->owner == OWNED_BY_THREAD;
	return r->owner == REC_PYLAYOUT_OWNED_BY_CSTACK;
}

/* The thread's innermost frame, as much as tells it from another. */
struct leaf {
	uint64_t f, code, back;
	uint64_t top; /* what the thread state's ts_frame held */
};

/* Reads the leaf of thread state `ts`; false if it cannot. */
static bool
leaf_now(struct rec_pystack *py, uint64_t ts, struct leaf *lf)
{
	struct rawframe r;
	uint64_t v;

	memset(lf, 0, sizeof(*lf));
	py->chain = 0; /* each pointer no earlier than the one before */
	if (read_u64(py, ts + py->l.ts_frame, &v) < 0)
		return false;
	lf->top = v;
	if (v && py->l.cf_current_frame != REC_PYLAYOUT_NONE &&
	    read_u64(py, v + py->l.cf_current_frame, &v) < 0)
		return false;
	lf->f = v;
	py->leaf = py->chain;
	if (v && decode_frame(py, v, &r) < 0)
		return false;
	lf->code = v ? r.code : 0;
	lf->back = v ? r.back : 0;
	return true;
}

/*
 * Walks the chain from `f` into raw[], each frame read depending on the
 * one before, and returns how many: at most `max`, C-stack shims left
 * out.  *last is the last frame read, *truncated whether the chain goes
 * on; -ESRCH when the process is gone.
 */
static int
walk_frames(struct rec_pystack *py, uint64_t f, struct rawframe *raw,
	    size_t max, struct rawframe *last, bool *truncated)
{
	uint64_t visited[2 * REC_PYSTACK_MAX_DEPTH];
	struct rawframe r = { 0 };
	size_t n = 0, nv = 0;
	int rc = 0;

	while (f && rc == 0) {
		if (n == max || nv == sizeof(visited) / sizeof(visited[0]) ||
		    seen(visited, nv, f))
			break;
		visited[nv++] = f;
		rc = decode_frame(py, f, &r);
		if (rc < 0)
			break;
		f = r.back;
		if (py->l.minor >= 12 &&
		    r.owner == REC_PYLAYOUT_OWNED_BY_CSTACK) {
			if (n > 0) /* the shim an evaluator call starts with */
				raw[n - 1].entry = true;
			continue;
		}
		raw[n++] = r;
	}
	if (rc == -ESRCH)
		return rc;
	*last = r;
	*truncated = rc != 0 || f != 0;
	return (int)n;
}

/* Adds the page(s) of [addr, addr+len) to pages[0..*n); false: stop. */
static bool
add_pages(uint64_t *pages, size_t *n, uint64_t addr, size_t len)
{
	uint64_t p = addr & ~(uint64_t)(REC_PYMEM_PAGE - 1);
	size_t i;

	for (; p < addr + len; p += REC_PYMEM_PAGE) {
		if (*n > 0 && pages[*n - 1] == p)
			continue; /* the same copy, one moment */
		for (i = 0; i < *n; i++)
			if (pages[i] == p)
				return false; /* read before its pointer */
		pages[(*n)++] = p;
	}
	return true;
}

/*
 * The pages that leaf_now reads for a leaf where `before` was, in its
 * order: the thread state's field, the _PyCFrame (3.11, 3.12), the
 * frame; then the other pages of the walk (h).  Read again in one call
 * after a walk, they serve leaf_now while the leaf has not moved out of
 * them.  Returns how many.
 */
static size_t
leaf_pages(const struct rec_pystack *py, uint64_t ts, const struct leaf *before,
	   const struct hint *h, uint64_t *pages)
{
	const struct rec_pylayout *l = &py->l;
	size_t n = 0, i, j;

	if (!add_pages(pages, &n, ts + l->ts_frame, 8))
		return n;
	if (l->cf_current_frame != REC_PYLAYOUT_NONE && before->top &&
	    !add_pages(pages, &n, before->top + l->cf_current_frame, 8))
		return n;
	if (before->f && !add_pages(pages, &n, before->f, l->fr_span))
		return n;
	/* Where a leaf that moved went: its caller, or a frame near. */
	for (i = 0; i < h->npages; i++) {
		for (j = 0; j < n && pages[j] != h->pages[i]; j++)
			;
		if (j == n)
			pages[n++] = h->pages[i];
	}
	return n;
}

/* Pages leaf_pages gives at most: three spans, each on two pages, and
 * the walk's. */
#define LEAF_PAGES (6 + REC_PYMEM_PAGES)

/*
 * The headers of the distinct code objects of raw[0..n) as blocks
 * b[0..), into py->hdrs; returns how many.
 */
static size_t
code_blocks(struct rec_pystack *py, const struct rawframe *raw, size_t n,
	    struct rec_pymem_block *b)
{
	uint32_t span = py->l.co_span;
	size_t na = 0, i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < na && b[j].addr != raw[i].code; j++)
			;
		if (j < na)
			continue;
		b[na] =
		    (struct rec_pymem_block){ raw[i].code, py->hdrs + na * span,
					      span, false };
		na++;
	}
	return na;
}

/*
 * Fills out[0..n) with the functions of frames raw[0..n) from their code
 * headers, read into b[]; *good is how many frames got theirs before one
 * that could not, *made whether a code was made (its strings read).
 * Returns 0 or -ENOMEM.
 */
static int
resolve_codes(struct rec_pystack *py, const struct rawframe *raw, size_t n,
	      const struct rec_pymem_block *b, struct rec_pystack_frame *out,
	      size_t *good, bool *made)
{
	size_t i, j, old = rec_pycode_count(py->codes);
	const struct rec_pycode *code;
	int rc;

	*good = 0;
	*made = false;
	for (i = 0; i < n; i++) {
		for (j = 0; b[j].addr != raw[i].code; j++)
			;
		if (!b[j].ok)
			break;
		code = rec_pycode_from_header(py->codes, &py->mem, b[j].addr,
					      b[j].buf, &rc);
		if (!code)
			return rc == -ENOMEM ? rc : 0;
		*made |= code->id >= old;
		make_frame(py, code, &raw[i], &out[i]);
		*good = i + 1;
	}
	return 0;
}

/*
 * Walks the chain from leaf `before` of thread state `ts`: the frames
 * first, then in one call the headers of their code objects and, after
 * them, the pages of the leaf again, which the leaf is read from into
 * *after (*ok false when it cannot be).  The pages the walk took go to
 * `h`.  Returns the frames read, or -errno.
 */
static int
walk(struct rec_pystack *py, uint64_t ts, const struct leaf *before,
     struct hint *h, struct rec_pystack_frame *out, size_t max, bool *truncated,
     struct leaf *after, bool *ok)
{
	struct rawframe raw[REC_PYSTACK_MAX_DEPTH], last;
	struct rec_pymem_block b[REC_PYSTACK_MAX_DEPTH];
	uint64_t pages[LEAF_PAGES];
	size_t na, np, good;
	bool made;
	int n, rc;

	n = walk_frames(py, before->f, raw, max, &last, truncated);
	if (n < 0)
		return n;
	h->npages =
	    (uint32_t)rec_pymem_used(&py->mem, h->pages, REC_PYMEM_PAGES);
	na = code_blocks(py, raw, (size_t)n, b);
	np = leaf_pages(py, ts, before, h, pages);
	rc = rec_pymem_prefetch(&py->mem, b, na, pages, np);
	if (rc == -ESRCH || rc == -ENOMEM)
		return rc;
	if (rc == -E2BIG) /* nothing read: the leaf is read afresh */
		rec_pymem_forget(&py->mem);
	made = false;
	if (rc != -E2BIG &&
	    resolve_codes(py, raw, (size_t)n, b, out, &good, &made) < 0)
		return -ENOMEM;
	if (rc == -E2BIG)
		good = 0;
	if ((size_t)n > good ||
	    (good > 0 && !is_root(py, &last, out[good - 1].code)))
		*truncated = true;
	/* New codes' strings were read since: the leaf is read after. */
	py->now = made;
	*ok = leaf_now(py, ts, after);
	py->now = false;
	return (int)good;
}

/*
 * Whether a walk from leaf `b` (n frames read into out) stands, given
 * the leaf `a` read after it: the same leaf, or a leaf whose caller
 * frame was live at both reads (the leaf called deeper, returned, or
 * its caller called another).  A frame's chain towards the root cannot
 * change while the frame lives, so the walk is the stack as it was at
 * the first read.
 */
static bool
walk_stands(const struct leaf *b, const struct leaf *a,
	    const struct rec_pystack_frame *out, int n)
{
	if (b->f == a->f && b->code == a->code && b->back == a->back)
		return true;
	if (!b->f || !a->f)
		return false;
	if (a->back == b->f)
		return true;
	if (!b->back)
		return false;
	if (a->back == b->back)
		return true;
	return a->f == b->back && n > 1 && out[1].code->addr == a->code;
}

/*
 * Walks tid's chain between two reads of its leaf, and again while the
 * walk does not stand (walk_stands): a frame that returned during the
 * walk may have linked it into another stack's frames.
 */
static int
walk_stable(struct rec_pystack *py, uint64_t ts, struct hint *h,
	    struct rec_pystack_frame *out, size_t max, bool *truncated)
{
	struct leaf before, after;
	int rc, try;
	bool ok;

	/*
	 * A walk again starts from the pages the last read after its walk;
	 * a leaf that could not be read is read again afresh.
	 */
	for (try = 0; try < WALK_TRIES; try++) {
		if (!leaf_now(py, ts, &before)) {
			rec_pymem_forget(&py->mem);
			continue;
		}
		rc = walk(py, ts, &before, h, out, max, truncated, &after, &ok);
		if (rc < 0)
			return rc;
		if (ok && walk_stands(&before, &after, out, rc))
			return rc;
		if (!ok)
			rec_pymem_forget(&py->mem);
	}
	py->unstable++;
	*truncated = true;
	return 0;
}

int
rec_pystack_read(struct rec_pystack *py, int32_t tid,
		 struct rec_pystack_frame *out, size_t max, bool *truncated)
{
	struct hint *h = &py->hints[(uint32_t)tid % HINTS];
	uint8_t ts[REC_PYLAYOUT_SPAN_MAX];
	bool nested = false;
	uint64_t at;
	int rc;

	*truncated = false;
	sp_buf_reset(&py->why);
	rec_pymem_begin(&py->mem, REC_PYSTACK_SAMPLE_BYTES);
	if (py->l.ts_span > sizeof(ts)) {
		sp_buf_adds(&py->why, "thread state layout too large");
		return -ENOTSUP;
	}
	if (max > REC_PYSTACK_MAX_DEPTH)
		max = REC_PYSTACK_MAX_DEPTH;
	if (h->tid != tid) {
		h->tid = tid;
		h->npages = 0;
	}
	/* The pages this thread's last sample used, at one moment. */
	rc = rec_pymem_prefetch(&py->mem, NULL, 0, h->pages, h->npages);
	if (rc >= 0)
		rc = find_tstate(py, tid, ts, &at, &nested);
	if (rc == -EBUSY)
		return 0; /* no frames: tied, inconsistent if it ran Python */
	if (rc == 0)
		rc = walk_stable(py, at, h, out, max, truncated);
	if (rc >= 0 && nested)
		*truncated = true;
	if (rc < 0)
		sp_buf_addf(&py->why, "thread %d: %s", (int)tid,
			    rc == -ENOENT ? "no Python thread state"
					  : strerror(-rc));
	return rc;
}

/* An optional field's offset for the BPF program: 0 when absent. */
static uint32_t
known(uint32_t off)
{
	return off == REC_PYLAYOUT_NONE ? 0 : off;
}

int
rec_pystack_bpf_proc(const struct rec_pystack *py, struct pybpf_proc *p)
{
	const struct rec_pylayout *l = &py->l;

	if (l->ts_native_tid == REC_PYLAYOUT_NONE && py->pthread_tid < 0)
		return -ENOTSUP;
	*p = (struct pybpf_proc){
		.runtime = py->t.runtime,
		.code_type = py->t.code_type,
		.frameobj = l->frames == REC_PY_FRAMEOBJ,
		.pthread_tid = py->pthread_tid,
		.rt_interp_head = l->rt_interp_head,
		.rt_tstate_current = l->rt_tstate_current,
		.ts_status = l->ts_status,
		.ts_active = REC_PYLAYOUT_TS_ACTIVE,
		.is_next = l->is_next,
		.is_threads_head = l->is_threads_head,
		.ts_next = l->ts_next,
		.ts_thread_id = l->ts_thread_id,
		.ts_native_tid = l->ts_native_tid,
		.ts_frame = l->ts_frame,
		.cf_current_frame = l->cf_current_frame,
		.fr_back = l->fr_back,
		.fr_code = l->fr_code,
		.fr_instr = l->fr_instr,
		.fr_owner = known(l->fr_owner),
		.fr_is_entry = known(l->fr_is_entry),
		.co_name = l->co_name,
		.co_qualname = known(l->co_qualname),
		.co_filename = l->co_filename,
		.co_firstlineno = l->co_firstlineno,
		.co_lines = l->co_lines,
		.co_flags = known(l->co_flags),
		.co_shape = l->co_shape,
	};
	return 0;
}

/* What a frame read by the BPF program says, as parse_frame says it. */
static void
bpf_rawframe(const struct rec_pystack *py, const struct pybpf_frame *f,
	     struct rawframe *r)
{
	r->back = 0;
	r->code = f->code;
	r->owner = f->owner;
	frame_position(py, f->instr, f->entry, r);
}

static void
put_u64(uint8_t *hdr, uint32_t off, uint64_t v)
{
	if (off != REC_PYLAYOUT_NONE)
		memcpy(hdr + off, &v, 8);
}

/* The header of frame f's code, from the fields the program read of it. */
static int
bpf_header(const struct rec_pystack *py, const struct pybpf_frame *f,
	   uint8_t *hdr, size_t size)
{
	const struct rec_pylayout *l = &py->l;
	uint32_t flags = f->flags;

	if (l->co_span > size)
		return -EBADMSG;
	memset(hdr, 0, l->co_span);
	put_u64(hdr, 8, f->type);
	put_u64(hdr, l->co_name, f->name);
	put_u64(hdr, l->co_qualname, f->qualname);
	put_u64(hdr, l->co_filename, f->filename);
	put_u64(hdr, l->co_lines, f->lines);
	put_u64(hdr, l->co_shape, f->shape);
	memcpy(hdr + l->co_firstlineno, &f->firstlineno, 4);
	if (l->co_flags != REC_PYLAYOUT_NONE)
		memcpy(hdr + l->co_flags, &flags, 4);
	return 0;
}

/* The code of frame `f`. */
static const struct rec_pycode *
bpf_code(struct rec_pystack *py, const struct pybpf_frame *f, int *err)
{
	uint8_t hdr[REC_PYLAYOUT_SPAN_MAX];

	if ((*err = bpf_header(py, f, hdr, sizeof(hdr))) < 0)
		return NULL;
	return rec_pycode_from_header(py->codes, &py->mem, f->code, hdr, err);
}

int
rec_pystack_bpf_seed(struct rec_pystack *py, const struct pybpf_code *c)
{
	uint8_t hdr[REC_PYLAYOUT_SPAN_MAX];
	struct rec_pycode_seed seed = {
		.name = { c->name, c->name_len < sizeof(c->name)
				       ? c->name_len
				       : sizeof(c->name) },
		.file = { c->file, c->file_len < sizeof(c->file)
				       ? c->file_len
				       : sizeof(c->file) },
		.lines = { c->lines, c->lines_len < sizeof(c->lines)
					 ? c->lines_len
					 : sizeof(c->lines) },
	};
	int rc = bpf_header(py, &c->f, hdr, sizeof(hdr));

	if (rc < 0)
		return rc;
	rec_pymem_begin(&py->mem, REC_PYSTACK_SAMPLE_BYTES);
	rc = rec_pycode_seed(py->codes, &py->mem, c->f.code, hdr, &seed);
	/* A string that cannot be decoded: the code is read as before. */
	return rc == -ENOMEM ? rc : 0;
}

void
rec_pystack_bpf_begin(struct rec_pystack *py)
{
	rec_pymem_begin(&py->mem, REC_PYSTACK_SAMPLE_BYTES);
}

bool
rec_pystack_bpf_shim(const struct rec_pystack *py, const struct pybpf_frame *f)
{
	return py->l.minor >= 12 && f->owner == REC_PYLAYOUT_OWNED_BY_CSTACK;
}

int
rec_pystack_bpf_frame(struct rec_pystack *py, const struct pybpf_frame *f,
		      struct rec_pystack_frame *out)
{
	const struct rec_pycode *code;
	struct rawframe r;
	int err = 0;

	bpf_rawframe(py, f, &r);
	code = bpf_code(py, f, &err);
	if (!code) /* not seen before and freed since: a module's body */
		return err == -ENOMEM ? err : -ESTALE;
	make_frame(py, code, &r, out);
	return 0;
}

bool
rec_pystack_bpf_root(const struct rec_pystack *py, const struct pybpf_frame *f,
		     const struct rec_pycode *code)
{
	struct rawframe r;

	bpf_rawframe(py, f, &r);
	return is_root(py, &r, code);
}

uint64_t
rec_pystack_unstable(const struct rec_pystack *py)
{
	return py->unstable;
}
