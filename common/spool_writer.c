/*
 * spool_writer.c: writes SPULSE1 spools.  Frames, stack prefix nodes and
 * threads are interned: each distinct one is written once, before the
 * first record that needs it, so a sample costs a few bytes.
 *
 * Longer than 700 lines because the interning, the pruning of what
 * forgets and epochs leave dead, and the threads' last paths all work on
 * the writer's private tables and ids, which no other file may see; the
 * record encoders are a screen each.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/ext.h"
#include "common/grow.h"
#include "common/htab.h"
#include "common/spool.h"
#include "common/varint.h"
#include "common/banned.h"

#define FLUSH_AT (64 * 1024)
#define MARKER_TAG 5
/*
 * Table entries below which the intern tables are never pruned: each
 * prune visits every entry, and with a floor of 1,024 a build whose
 * processes each leave a few thousand dead pruned every 130 samples.
 * Higher, the memory a churn of short children settles at is reached
 * later (t1022 reads it after 1,000 of them).
 */
#define PRUNE_MIN 8192

struct sp_spool_writer {
	int fd;
	int error; /* sticky: once set every call returns it */
	char errmsg[128];
	struct sp_buf out;
	uint64_t flushed;
	uint64_t last_ts;
	/*
	 * A user frame without a module resolves against the modules
	 * written before it, so it is interned per epoch (a module record,
	 * a deactivate or a forget starts one), and a kernel frame per
	 * kernel epoch (a kernel module record).  A frame of a module is
	 * its module's for good, and so are the stacks made of it: under
	 * -a, where some process maps a module every few milliseconds,
	 * interning those per epoch too wrote the stacks of every live
	 * process again and again, and readers kept each copy.  What a
	 * forget or an epoch leaves dead is pruned from the tables once
	 * they have doubled (prune()), so memory follows the live ids.
	 */
	uint64_t epoch, kepoch;
	bool dead;              /* a forget or an epoch since the last prune */
	size_t prune_at;        /* entries() that trigger one */
	struct sp_htab *mods;   /* module id -> pid << 32 | its generation */
	struct sp_htab *pidgen; /* pid -> forgets of that pid so far */
	struct sp_htab *frames;
	struct sp_htab *stacks;
	uint32_t nframes, nstacks; /* the next ids */
	struct sp_htab *threads;   /* live threads only: see forget_thread */
	uint32_t nthreads;         /* the next thread id */
	uint64_t prunes;           /* prunes so far: paths older are void */
	struct path *paths;        /* PATHS of them, made at the first use */
};

struct frame_key {
	uint32_t module_id;
	uint32_t mode;
	uint64_t rel_ip;
	uint64_t abs_ip;
	uint64_t epoch;
};

/*
 * The last stack interned for a thread, root first: the next sample of
 * the thread shares most of its root side (main and the calls below the
 * work), whose nodes are then taken from here instead of from the two
 * tables, a lookup of each frame and each node less per shared level.
 * A node found here is the one the tables hold for it as long as no
 * prune ran since (only a prune removes entries).
 */
#define PATHS 32 /* threads kept, by thread id */
/*
 * Levels kept from the root: as deep as sp-record's stacks go (its
 * REC_STACK_MAX), so that a deep stack's many shared levels are not
 * interned again at each sample.  The arrays grow with a thread's
 * stacks, from PATH_FIRST levels: 32 paths of the full depth are 1.5 MB,
 * which calloc may well clear by hand (a tenth of the CPU a 40-file
 * build cost the recorder went to that, its page faults and misses).
 */
#define PATH_DEPTH 1280
#define PATH_FIRST 64

struct path {
	int32_t pid;
	uint32_t n;   /* levels kept */
	uint32_t cap; /* levels the arrays hold */
	uint64_t tid;
	uint64_t prunes; /* w->prunes when kept */
	struct frame_key *keys;
	uint32_t *nodes;
};

struct sp_frame
sp_frame_truncated_marker(void)
{
	struct sp_frame f = { SP_NONE, 0, 0, SP_FRAME_TRUNCATED };

	return f;
}

static int fail(struct sp_spool_writer *w, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct sp_spool_writer *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->errmsg, sizeof(w->errmsg), fmt, ap);
	va_end(ap);
	if (err != -EINVAL)
		w->error = err;
	return err;
}

struct sp_spool_writer *
sp_spool_writer_new(int fd, uint64_t start_us, uint64_t interval_us)
{
	struct sp_spool_writer *w = calloc(1, sizeof(*w));

	if (!w)
		goto nomem;
	w->fd = fd;
	w->frames = sp_htab_new();
	w->stacks = sp_htab_new();
	w->threads = sp_htab_new();
	w->mods = sp_htab_new();
	w->pidgen = sp_htab_new();
	w->prune_at = PRUNE_MIN;
	if (!w->frames || !w->stacks || !w->threads || !w->mods || !w->pidgen ||
	    sp_buf_add(&w->out, SP_SPOOL_MAGIC, sizeof(SP_SPOOL_MAGIC)) ||
	    sp_varint_put_u64(&w->out, start_us) ||
	    sp_varint_put_u64(&w->out, interval_us))
		goto nomem;
	return w;
nomem:
	sp_spool_writer_free(w);
	errno = ENOMEM;
	return NULL;
}

void
sp_spool_writer_free(struct sp_spool_writer *w)
{
	size_t i;

	if (!w)
		return;
	sp_htab_free(w->frames);
	sp_htab_free(w->stacks);
	sp_htab_free(w->threads);
	sp_htab_free(w->mods);
	sp_htab_free(w->pidgen);
	for (i = 0; w->paths && i < PATHS; i++) {
		free(w->paths[i].keys);
		free(w->paths[i].nodes);
	}
	free(w->paths);
	sp_buf_release(&w->out);
	free(w);
}

int
sp_spool_writer_flush(struct sp_spool_writer *w)
{
	size_t done = 0;

	if (w->error)
		return w->error;
	while (done < w->out.len) {
		ssize_t n = write(w->fd, w->out.data + done, w->out.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : -EIO;

			sp_buf_consume(&w->out, done);
			w->flushed += done;
			return fail(w, err, "write: %s", strerror(-err));
		}
		done += (size_t)n;
	}
	w->flushed += done;
	sp_buf_reset(&w->out);
	return 0;
}

/* Called after each record: the buffer never holds much more than 64 KiB. */
static int
maybe_flush(struct sp_spool_writer *w, int rc)
{
	if (rc)
		return fail(w, rc, "out of memory");
	if (w->out.len >= FLUSH_AT)
		return sp_spool_writer_flush(w);
	return 0;
}

static int
put_u(struct sp_spool_writer *w, uint64_t v)
{
	return sp_varint_put_u64(&w->out, v);
}

static int
put_s(struct sp_spool_writer *w, int64_t v)
{
	return sp_varint_put_i64(&w->out, v);
}

/* The forgets of `pid` so far: its modules of an older one are dead. */
static uint32_t
generation(const struct sp_spool_writer *w, int32_t pid)
{
	uint64_t g = 0;

	sp_htab_get(w->pidgen, &pid, sizeof(pid), &g);
	return (uint32_t)g;
}

static int
next_generation(struct sp_spool_writer *w, int32_t pid)
{
	return sp_htab_put(w->pidgen, &pid, sizeof(pid),
			   (uint64_t)generation(w, pid) + 1);
}

/* A module record: a new epoch, and who owns the module's frames. */
static int
note_module(struct sp_spool_writer *w, const struct sp_module *m)
{
	int32_t pid = m->is_kernel ? -1 : m->pid;
	uint64_t v = (uint64_t)(uint32_t)pid << 32 | generation(w, pid);

	w->epoch++;
	w->kepoch += m->is_kernel;
	w->dead = true;
	return sp_htab_put(w->mods, &m->id, sizeof(m->id), v);
}

/* Whether frames of module `id` may still be written. */
static bool
module_live(const struct sp_spool_writer *w, uint32_t id)
{
	uint64_t v;
	int32_t pid;

	if (!sp_htab_get(w->mods, &id, sizeof(id), &v))
		return false;
	pid = (int32_t)(uint32_t)(v >> 32);
	return pid < 0 || (uint32_t)v == generation(w, pid);
}

/* The epoch a frame is interned in (struct sp_spool_writer says why). */
static uint64_t
frame_epoch(const struct sp_spool_writer *w, uint32_t module_id,
	    enum sp_frame_mode mode)
{
	if (module_id != SP_NONE || mode == SP_FRAME_TRUNCATED)
		return 0;
	return mode == SP_FRAME_KERNEL ? w->kepoch : w->epoch;
}

int
sp_spool_writer_module(struct sp_spool_writer *w, const struct sp_module *m)
{
	int rc;

	if (w->error)
		return w->error;
	rc = sp_buf_addc(&w->out, SP_TAG_MODULE);
	rc = rc ? rc : put_u(w, m->id);
	rc = rc ? rc : put_s(w, m->pid);
	rc = rc ? rc : put_u(w, m->start);
	rc = rc ? rc : put_u(w, m->end);
	rc = rc ? rc : put_u(w, m->file_offset);
	rc = rc ? rc : put_u(w, m->inode);
	rc = rc ? rc : sp_buf_addc(&w->out, m->is_kernel ? 1 : 0);
	rc = rc ? rc : put_u(w, m->path_len);
	rc = rc ? rc : sp_buf_add(&w->out, m->path, m->path_len);
	rc = rc ? rc : note_module(w, m);
	return maybe_flush(w, rc);
}

/* The key `f` is interned under now. */
static void
frame_key_of(const struct sp_spool_writer *w, const struct sp_frame *f,
	     struct frame_key *k)
{
	memset(k, 0, sizeof(*k));
	k->module_id = f->module_id;
	k->mode = (uint32_t)f->mode;
	k->rel_ip = f->rel_ip;
	k->abs_ip = f->abs_ip;
	k->epoch = frame_epoch(w, f->module_id, f->mode);
}

static int
intern_frame(struct sp_spool_writer *w, const struct sp_frame *f,
	     const struct frame_key *key, uint32_t *id)
{
	uint64_t *slot, tag, addr;
	bool fresh;
	int rc;

	slot = sp_htab_slot(w->frames, key, sizeof(*key), w->nframes, &fresh);
	if (!slot)
		return -ENOMEM;
	*id = (uint32_t)*slot;
	if (!fresh)
		return 0;
	w->nframes++;
	if (f->mode == SP_FRAME_TRUNCATED) {
		tag = MARKER_TAG;
		addr = 0;
	} else if (f->module_id != SP_NONE) {
		tag = (uint64_t)f->module_id << 1;
		addr = f->rel_ip;
	} else {
		tag = 1 | (f->mode == SP_FRAME_KERNEL ? 2 : 0);
		addr = f->abs_ip;
	}
	rc = sp_buf_addc(&w->out, SP_TAG_FRAME);
	rc = rc ? rc : put_u(w, *id);
	rc = rc ? rc : put_u(w, tag);
	return rc ? rc : put_u(w, addr);
}

/* Run after module_dead pruned w->mods: a module still there is live. */
static bool
frame_dead(const void *key, size_t len, uint64_t val, void *ctx)
{
	const struct sp_spool_writer *w = ctx;
	struct frame_key k;

	(void)val;
	memcpy(&k, key, sizeof(k) < len ? sizeof(k) : len);
	if (k.module_id != SP_NONE)
		return !sp_htab_get(w->mods, &k.module_id, sizeof(k.module_id),
				    NULL);
	return k.epoch != frame_epoch(w, SP_NONE, (enum sp_frame_mode)k.mode);
}

static bool
module_dead(const void *key, size_t len, uint64_t val, void *ctx)
{
	uint32_t id;

	(void)val;
	memcpy(&id, key, sizeof(id) < len ? sizeof(id) : len);
	return !module_live(ctx, id);
}

/* A stack node (or a frame: id only) as prune_stacks() sorts them. */
struct node {
	uint32_t id, prefix, frame, keep;
};

/*
 * Sorts v[0..n) by id, a byte at a time (tmp holds n nodes): ids are
 * dense and the tables hold thousands of nodes at each prune, where a
 * comparison sort cost more than the rest of the prune.
 */
static void
sort_by_id(struct node *v, struct node *tmp, size_t n)
{
	struct node *src = v, *dst = tmp, *t;
	size_t count[256], at[256], i, sum;
	unsigned shift;

	for (shift = 0; shift < 32; shift += 8) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(src[i].id >> shift) & 0xff]++;
		if (n == 0 || count[(src[0].id >> shift) & 0xff] == n)
			continue; /* one digit: the order stands */
		for (i = 0, sum = 0; i < 256; i++) {
			at[i] = sum;
			sum += count[i];
		}
		for (i = 0; i < n; i++)
			dst[at[(src[i].id >> shift) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

/* The node with `id` in v[0..n), sorted by id, or NULL. */
static const struct node *
find_node(const struct node *v, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].id == id ? &v[lo] : NULL;
}

/* The entries of `h` as nodes (values are ids), sorted by id. */
static struct node *
sorted_nodes(const struct sp_htab *h, bool stacks, size_t *n)
{
	size_t pos = 0, len, i = 0, cnt = sp_htab_count(h);
	struct node *v = calloc(cnt ? 2 * cnt : 1, sizeof(*v));
	const void *key;
	uint64_t id;

	if (!v)
		return NULL;
	while (i < cnt && sp_htab_next(h, &pos, &key, &len, &id)) {
		v[i].id = (uint32_t)id;
		if (stacks && len >= 2 * sizeof(uint32_t)) {
			memcpy(&v[i].prefix, key, sizeof(uint32_t));
			memcpy(&v[i].frame, (const uint8_t *)key + 4,
			       sizeof(uint32_t));
		}
		i++;
	}
	sort_by_id(v, v + cnt, i);
	*n = i;
	return v;
}

struct stack_set {
	const struct node *v;
	size_t n;
};

static bool
stack_dead(const void *key, size_t len, uint64_t val, void *ctx)
{
	const struct stack_set *s = ctx;
	const struct node *x = find_node(s->v, s->n, (uint32_t)val);

	(void)key;
	(void)len;
	return !x || !x->keep;
}

/*
 * Drops the nodes whose frame was pruned or whose prefix was dropped:
 * in id order, since ids grow from prefix to node.
 */
static int
prune_stacks(struct sp_spool_writer *w)
{
	struct node *v, *f = NULL;
	struct stack_set set;
	size_t n = 0, nf = 0, i;
	int rc;

	v = sorted_nodes(w->stacks, true, &n);
	if (v)
		f = sorted_nodes(w->frames, false, &nf);
	if (!v || !f) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct node *p = v[i].prefix == SP_NONE
					   ? NULL
					   : find_node(v, i, v[i].prefix);

		v[i].keep = find_node(f, nf, v[i].frame) &&
			    (v[i].prefix == SP_NONE || (p && p->keep));
	}
	set = (struct stack_set){ v, n };
	rc = sp_htab_del_if(w->stacks, stack_dead, &set);
	free(f);
	free(v);
	return rc;
}

/*
 * The entries of the tables a prune empties: modules count too, or a
 * run of children that each map eight and are sampled rarely grows
 * w->mods without ever reaching a prune.
 */
static size_t
entries(const struct sp_spool_writer *w)
{
	return sp_htab_count(w->mods) + sp_htab_count(w->frames) +
	       sp_htab_count(w->stacks);
}

/*
 * Drops from the intern tables what can no longer be written: frames of
 * a forgotten process's modules or of an ended epoch, and the stack
 * nodes holding them.  Run once the tables have doubled since the last
 * time, so each entry costs a constant number of prunes.
 */
static int
prune(struct sp_spool_writer *w)
{
	size_t live;
	int rc;

	if (!w->dead || entries(w) < w->prune_at)
		return 0;
	rc = sp_htab_del_if(w->mods, module_dead, w);
	rc = rc ? rc : sp_htab_del_if(w->frames, frame_dead, w);
	rc = rc ? rc : prune_stacks(w);
	if (rc)
		return rc;
	live = entries(w);
	w->prune_at = live * 2 > PRUNE_MIN ? live * 2 : PRUNE_MIN;
	w->dead = false;
	w->prunes++;
	return 0;
}

/*
 * The path kept for thread (pid, tid), emptied when it was another
 * thread's or is older than the last prune; NULL when there is no room
 * for paths (interning goes on without them).
 */
static struct path *
path_of(struct sp_spool_writer *w, int32_t pid, uint64_t tid)
{
	struct path *pa;

	if (!w->paths && !(w->paths = calloc(PATHS, sizeof(*w->paths))))
		return NULL;
	pa = &w->paths[tid % PATHS];
	if (pa->pid != pid || pa->tid != tid || pa->prunes != w->prunes) {
		pa->pid = pid;
		pa->tid = tid;
		pa->prunes = w->prunes;
		pa->n = 0;
	}
	return pa;
}

/* Makes room in `pa` for level `d`; false when there is none. */
static bool
path_room(struct path *pa, size_t d)
{
	struct frame_key *keys;
	uint32_t *nodes, cap;

	if (d < pa->cap)
		return true;
	if (d >= PATH_DEPTH)
		return false;
	cap = pa->cap ? pa->cap * 2 : PATH_FIRST;
	cap = cap < PATH_DEPTH ? cap : PATH_DEPTH;
	keys = realloc(pa->keys, cap * sizeof(*keys));
	if (keys)
		pa->keys = keys;
	nodes = keys ? realloc(pa->nodes, cap * sizeof(*nodes)) : NULL;
	if (!nodes)
		return false;
	pa->nodes = nodes;
	pa->cap = cap;
	return true;
}

/* Interns one node; fresh ones are written. */
static int
intern_node(struct sp_spool_writer *w, uint32_t prefix, uint32_t frame_id,
	    uint32_t *id)
{
	uint32_t key[2] = { prefix, frame_id };
	uint64_t *slot;
	bool fresh;
	int rc = 0;

	slot = sp_htab_slot(w->stacks, key, sizeof(key), w->nstacks, &fresh);
	if (!slot)
		return -ENOMEM;
	*id = (uint32_t)*slot;
	if (fresh) {
		w->nstacks++;
		rc = sp_buf_addc(&w->out, SP_TAG_STACK);
		rc = rc ? rc : put_u(w, *id);
		rc = rc ? rc : put_u(w, prefix);
		rc = rc ? rc : put_u(w, frame_id);
	}
	return rc;
}

/*
 * Interns the stack root first, taking the levels it shares with the
 * thread's last stack from its path; returns the leaf node's id in *id.
 */
static int
intern_stack(struct sp_spool_writer *w, int32_t pid, uint64_t tid,
	     const struct sp_frame *frames, size_t n, uint32_t *id)
{
	uint32_t prefix = SP_NONE, frame_id;
	struct frame_key k;
	struct path *pa;
	size_t d = 0;
	int rc = prune(w);

	if (rc)
		return rc;
	pa = path_of(w, pid, tid);
	for (; d < n; d++) {
		frame_key_of(w, &frames[n - 1 - d], &k);
		if (!pa || d >= pa->n || memcmp(&pa->keys[d], &k, sizeof(k)))
			break;
		prefix = pa->nodes[d];
	}
	if (pa && pa->n > d)
		pa->n = (uint32_t)d;
	for (; d < n; d++) {
		frame_key_of(w, &frames[n - 1 - d], &k);
		rc = intern_frame(w, &frames[n - 1 - d], &k, &frame_id);
		rc = rc ? rc : intern_node(w, prefix, frame_id, &prefix);
		if (rc)
			return rc;
		if (pa && pa->n == d && path_room(pa, d)) {
			pa->keys[d] = k;
			pa->nodes[d] = prefix;
			pa->n++;
		}
	}
	*id = prefix;
	return 0;
}

static int
intern_thread(struct sp_spool_writer *w, int32_t pid, uint64_t tid,
	      uint32_t *id)
{
	uint64_t key[2] = { (uint64_t)(int64_t)pid, tid }, *slot;
	bool fresh;
	int rc = 0;

	slot = sp_htab_slot(w->threads, key, sizeof(key), w->nthreads, &fresh);
	if (!slot)
		return -ENOMEM;
	*id = (uint32_t)*slot;
	if (fresh) {
		w->nthreads++;
		rc = sp_buf_addc(&w->out, SP_TAG_THREAD);
		rc = rc ? rc : put_u(w, *id);
		rc = rc ? rc : put_s(w, pid);
		rc = rc ? rc : put_u(w, tid);
	}
	return rc;
}

void
sp_spool_writer_forget_thread(struct sp_spool_writer *w, int32_t pid,
			      uint64_t tid)
{
	uint64_t key[2] = { (uint64_t)(int64_t)pid, tid };

	sp_htab_del(w->threads, key, sizeof(key));
}

/* The delta must fit an i64, as the format stores it signed. */
static int
check_delta(struct sp_spool_writer *w, uint64_t ts, int64_t *delta)
{
	if (ts >= w->last_ts) {
		if (ts - w->last_ts > INT64_MAX)
			return fail(w, -EINVAL,
				    "sample timestamp delta %" PRIu64
				    " out of range",
				    ts - w->last_ts);
		*delta = (int64_t)(ts - w->last_ts);
	} else {
		if (w->last_ts - ts > (uint64_t)INT64_MAX + 1)
			return fail(w, -EINVAL,
				    "sample timestamp delta -%" PRIu64
				    " out of range",
				    w->last_ts - ts);
		*delta = (int64_t)(0 - (w->last_ts - ts));
	}
	return 0;
}

int
sp_spool_writer_sample(struct sp_spool_writer *w, uint64_t timestamp_ns,
		       int32_t pid, uint64_t tid, const struct sp_frame *frames,
		       size_t nframes, uint32_t *stack_id)
{
	uint32_t sid = SP_NONE, thread_id;
	int64_t delta = 0;
	int rc;

	if (stack_id)
		*stack_id = SP_NONE;
	if (w->error)
		return w->error;
	if (!nframes)
		return 0;
	rc = check_delta(w, timestamp_ns, &delta);
	if (rc)
		return rc;
	rc = intern_stack(w, pid, tid, frames, nframes, &sid);
	rc = rc ? rc : intern_thread(w, pid, tid, &thread_id);
	if (!rc) {
		w->last_ts = timestamp_ns;
		rc = sp_buf_addc(&w->out, SP_TAG_SAMPLE);
		rc = rc ? rc : put_s(w, delta);
		rc = rc ? rc : put_u(w, thread_id);
		rc = rc ? rc : put_u(w, sid);
	}
	if (!rc && stack_id)
		*stack_id = sid;
	return maybe_flush(w, rc);
}

int
sp_spool_writer_exec(struct sp_spool_writer *w, uint64_t timestamp_ns,
		     int32_t pid, bool is_python)
{
	int rc;

	if (w->error)
		return w->error;
	rc = sp_buf_addc(&w->out, SP_TAG_EXEC);
	rc = rc ? rc : put_u(w, timestamp_ns);
	rc = rc ? rc : put_s(w, pid);
	rc = rc ? rc : sp_buf_addc(&w->out, is_python ? 1 : 0);
	return maybe_flush(w, rc);
}

int
sp_spool_writer_deactivate(struct sp_spool_writer *w, int32_t pid)
{
	int rc;

	if (w->error)
		return w->error;
	rc = sp_buf_addc(&w->out, SP_TAG_DEACTIVATE);
	rc = rc ? rc : put_s(w, pid);
	/* Its modules are written no more (an exec maps new ones): their
	 * frames may be pruned, though readers keep them until a forget. */
	rc = rc ? rc : next_generation(w, pid);
	w->epoch++;
	w->dead = true;
	return maybe_flush(w, rc);
}

/* Drops the threads of `pid` from the intern table. */
static int
forget_threads(struct sp_spool_writer *w, int32_t pid)
{
	uint64_t(*keys)[2] = NULL;
	size_t pos = 0, n = 0, alloc = 0, len, i;
	const void *key;
	int rc = 0;

	/* Collected first: a deletion ends the iteration. */
	while (sp_htab_next(w->threads, &pos, &key, &len, NULL)) {
		const uint64_t *k = key;

		if (k[0] != (uint64_t)(int64_t)pid)
			continue;
		if (SP_GROW(keys, alloc, n + 1)) {
			rc = -ENOMEM;
			break;
		}
		memcpy(keys[n++], k, sizeof(keys[0]));
	}
	for (i = 0; !rc && i < n; i++)
		sp_htab_del(w->threads, keys[i], sizeof(keys[i]));
	free(keys);
	return rc;
}

int
sp_spool_writer_forget(struct sp_spool_writer *w, int32_t pid)
{
	struct sp_buf payload = SP_BUF_INIT;
	int rc;

	if (w->error)
		return w->error;
	if (pid < 0)
		return fail(w, -EINVAL, "forget of process id %" PRId32, pid);
	rc = forget_threads(w, pid);
	rc = rc ? rc : sp_ext_forget_encode(&payload, pid);
	rc = rc ? rc : sp_buf_addc(&w->out, SP_EXT_FORGET);
	rc = rc ? rc : put_u(w, payload.len);
	rc = rc ? rc : sp_buf_add(&w->out, payload.data, payload.len);
	sp_buf_release(&payload);
	/* Its modules' frames and the stacks that hold them are retired
	 * (readers refuse them from now on), and frames without a module
	 * start a new epoch, as after a new module. */
	rc = rc ? rc : next_generation(w, pid);
	w->epoch++;
	w->dead = true;
	return maybe_flush(w, rc);
}

int
sp_spool_writer_ext(struct sp_spool_writer *w, uint8_t tag, const void *payload,
		    size_t len)
{
	int rc;

	if (w->error)
		return w->error;
	if (tag < SP_TAG_EXT_FIRST)
		return fail(w, -EINVAL, "extension tag %u is reserved", tag);
	rc = sp_buf_addc(&w->out, tag);
	rc = rc ? rc : put_u(w, len);
	rc = rc ? rc : sp_buf_add(&w->out, payload, len);
	return maybe_flush(w, rc);
}

uint64_t
sp_spool_writer_bytes(const struct sp_spool_writer *w)
{
	return w->flushed + w->out.len;
}

uint64_t
sp_spool_writer_delivered(const struct sp_spool_writer *w)
{
	return w->flushed;
}

const char *
sp_spool_writer_errmsg(const struct sp_spool_writer *w)
{
	return w->errmsg;
}
