/* deepbpf.c: deep stacks copied at the sample by BPF (deepbpf.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/htab.h"
#include "sp-record/deepbpf.h"
#include "sp-record/deepbpf_abi.h"
#include "common/banned.h"

/* As in pybpf.c: a copy and its sample are microseconds apart. */
#define PAIR_NS 500000
/*
 * Copies kept for one thread at most, waiting for their samples: all the
 * ring buffer can hold of copies of a few KiB (a slow drain finds a
 * thread's copies of many samples there).
 */
#define QUEUE_MAX 256

/*
 * Cut deep stacks of a process before its threads are registered: one
 * whose reads past the copy verify (a stack that changes slowly) would
 * cost the program's copies and the recorder's for nothing.  Counted by
 * process: a compiler's many worker threads each cut a few.
 */
#define CUTS_MIN 4

struct copy {
	uint64_t ts, sp;
	size_t len;
	uint8_t data[];
};

/* A thread's copies not yet taken, oldest first (a ring). */
struct queue {
	size_t head, n;
	struct copy *v[QUEUE_MAX];
};

/* The compiled program, linked in by the build (bpf/object.S). */
extern const unsigned char rec_deepbpf_object[];
extern const unsigned char rec_deepbpf_object_end[];

struct rec_deepbpf {
	struct bpf_object *obj;
	struct ring_buffer *ring;
	int prog_fd, next_fd, map_fd;
	uint32_t skip, max;
	struct sp_htab *queues; /* tid -> struct queue * */
	struct sp_htab *wanted; /* tid -> lo ^ hi of the mapping registered */
	struct sp_htab *cuts;   /* pid -> its deep stacks cut so far */
	struct copy *taken;
	struct rec_deepbpf_stats st;
};

int
rec_deepbpf_prog_fd(const struct rec_deepbpf *d)
{
	return d->prog_fd;
}

int
rec_deepbpf_set_next(struct rec_deepbpf *d, int prog_fd)
{
	uint32_t key = 0;

	return bpf_map_update_elem(d->next_fd, &key, &prog_fd, BPF_ANY) < 0
		   ? -errno
		   : 0;
}

int
rec_deepbpf_consume(struct rec_deepbpf *d)
{
	return ring_buffer__consume(d->ring);
}

static void
queue_free(struct queue *q)
{
	size_t i;

	for (i = 0; q && i < q->n; i++)
		free(q->v[(q->head + i) % QUEUE_MAX]);
	free(q);
}

void
rec_deepbpf_free(struct rec_deepbpf *d)
{
	const void *key;
	size_t pos = 0;
	uint64_t v;

	if (!d)
		return;
	while (d->queues && sp_htab_next(d->queues, &pos, &key, NULL, &v))
		queue_free((struct queue *)(uintptr_t)v);
	sp_htab_free(d->queues);
	sp_htab_free(d->wanted);
	sp_htab_free(d->cuts);
	ring_buffer__free(d->ring);
	bpf_object__close(d->obj);
	free(d->taken);
	free(d);
}

/* Drops the copy at the head of `q`. */
static void
pop(struct queue *q)
{
	free(q->v[q->head]);
	q->head = (q->head + 1) % QUEUE_MAX;
	q->n--;
}

/* The queue of thread `tid`, made if need be; NULL when memory ran out. */
static struct queue *
queue_of(struct rec_deepbpf *d, uint32_t tid)
{
	uint64_t *slot;
	bool fresh;

	slot = sp_htab_slot(d->queues, &tid, sizeof(tid), 0, &fresh);
	if (!slot)
		return NULL;
	if (fresh && !(*slot = (uintptr_t)calloc(1, sizeof(struct queue)))) {
		sp_htab_del(d->queues, &tid, sizeof(tid));
		return NULL;
	}
	return (struct queue *)(uintptr_t)*slot;
}

/* A ring buffer record (libbpf's ring_buffer_sample_fn): keeps a copy. */
static int
on_copy(void *ctx, void *data, size_t size)
{
	struct rec_deepbpf *d = ctx;
	const struct deepbpf_copy *r = data;
	struct copy *c;
	struct queue *q;

	if (size < DEEPBPF_HEAD || r->len > DEEPBPF_MAX ||
	    size < DEEPBPF_HEAD + (size_t)r->len)
		return 0;
	d->st.copies++;
	if (r->len == 0) {
		d->st.empty++;
		return 0;
	}
	if (!(q = queue_of(d, r->tid)) || !(c = malloc(sizeof(*c) + r->len)))
		return 0; /* out of memory: the sample reads live instead */
	c->ts = r->ts;
	c->sp = r->sp;
	c->len = r->len;
	memcpy(c->data, r->data, r->len);
	if (q->n == QUEUE_MAX) { /* its samples were lost: the oldest goes */
		pop(q);
		d->st.unpaired++;
	}
	q->v[(q->head + q->n++) % QUEUE_MAX] = c;
	return 0;
}

/* Loads the object and finds its parts; 0 or -errno with `why` set. */
static int
load(struct rec_deepbpf *d, struct sp_buf *why)
{
	struct bpf_map *deep, *scratch, *ring, *next;
	struct bpf_program *prog;
	int rc, ncpus;

	d->obj = bpf_object__open_mem(
	    rec_deepbpf_object,
	    (size_t)(rec_deepbpf_object_end - rec_deepbpf_object), NULL);
	if (!d->obj) {
		rc = -errno;
		sp_buf_addf(why, "BPF object: %s", strerror(-rc));
		return rc;
	}
	/* one copy's room per CPU */
	scratch = bpf_object__find_map_by_name(d->obj, "deepscratch");
	if (scratch && (ncpus = libbpf_num_possible_cpus()) > 0)
		bpf_map__set_max_entries(scratch, (uint32_t)ncpus);
	if ((rc = bpf_object__load(d->obj)) < 0) {
		sp_buf_addf(why, "BPF program refused: %s", strerror(-rc));
		return rc;
	}
	prog = bpf_object__find_program_by_name(d->obj, "atsample");
	deep = bpf_object__find_map_by_name(d->obj, "deep");
	ring = bpf_object__find_map_by_name(d->obj, "deepring");
	next = bpf_object__find_map_by_name(d->obj, "next");
	if (!prog || !deep || !ring || !next) {
		sp_buf_adds(why, "BPF object: a part is missing");
		return -ENOENT;
	}
	d->prog_fd = bpf_program__fd(prog);
	d->map_fd = bpf_map__fd(deep);
	d->next_fd = bpf_map__fd(next);
	d->ring = ring_buffer__new(bpf_map__fd(ring), on_copy, d, NULL);
	if (!d->ring) {
		rc = -errno;
		sp_buf_addf(why, "BPF ring buffer: %s", strerror(-rc));
		return rc;
	}
	return 0;
}

struct rec_deepbpf *
rec_deepbpf_open(uint32_t skip, uint32_t max, struct sp_buf *why)
{
	struct rec_deepbpf *d = calloc(1, sizeof(*d));

	if (!d || !(d->queues = sp_htab_new()) ||
	    !(d->wanted = sp_htab_new()) || !(d->cuts = sp_htab_new())) {
		rec_deepbpf_free(d);
		sp_buf_adds(why, "out of memory");
		return NULL;
	}
	d->skip = skip;
	d->max = max < DEEPBPF_MAX ? max : DEEPBPF_MAX;
	if (load(d, why) < 0) {
		rec_deepbpf_free(d);
		return NULL;
	}
	return d;
}

const uint8_t *
rec_deepbpf_take(struct rec_deepbpf *d, int32_t tid, uint64_t ts, uint64_t sp,
		 size_t *len)
{
	struct queue *q;
	uint64_t v;

	free(d->taken);
	d->taken = NULL;
	if (!sp_htab_get(d->queues, &tid, sizeof(tid), &v))
		return NULL;
	q = (struct queue *)(uintptr_t)v;
	/* Older copies are of samples lost (a full perf ring). */
	while (q->n > 0 && q->v[q->head]->ts + PAIR_NS < ts) {
		pop(q);
		d->st.unpaired++;
	}
	if (q->n == 0 || q->v[q->head]->ts > ts + PAIR_NS ||
	    q->v[q->head]->sp != sp)
		return NULL;
	d->taken = q->v[q->head];
	q->head = (q->head + 1) % QUEUE_MAX;
	q->n--;
	d->st.taken++;
	d->st.bytes += d->taken->len;
	*len = d->taken->len;
	return d->taken->data;
}

/* Unregisters every thread. */
static void
forget_all(struct rec_deepbpf *d)
{
	const void *key;
	size_t pos = 0;
	uint32_t tid;

	while (sp_htab_next(d->wanted, &pos, &key, NULL, NULL)) {
		memcpy(&tid, key, sizeof(tid));
		bpf_map_delete_elem(d->map_fd, &tid);
	}
	sp_htab_free(d->wanted);
	sp_htab_free(d->cuts);
	d->wanted = sp_htab_new();
	d->cuts = sp_htab_new();
}

void
rec_deepbpf_want(struct rec_deepbpf *d, int32_t pid, int32_t tid, uint64_t lo,
		 uint64_t hi)
{
	struct deepbpf_want w = { lo, hi, d->skip, d->max };
	uint32_t key = (uint32_t)tid;
	uint64_t known, *cuts;

	if (!d->wanted || !d->cuts)
		return;
	if (sp_htab_get(d->wanted, &tid, sizeof(tid), &known) &&
	    known == (lo ^ hi))
		return;
	/* a thread whose reads past the copy mostly verify needs none */
	if (!(cuts = sp_htab_slot(d->cuts, &pid, sizeof(pid), 0, NULL)) ||
	    ++*cuts < CUTS_MIN)
		return;
	/* a full map (threads that ended unseen) starts over */
	if (sp_htab_count(d->wanted) >= DEEPBPF_THREADS)
		forget_all(d);
	if (bpf_map_update_elem(d->map_fd, &key, &w, BPF_ANY) == 0)
		(void)sp_htab_put(d->wanted, &tid, sizeof(tid), lo ^ hi);
}

void
rec_deepbpf_forget(struct rec_deepbpf *d, int32_t pid, int32_t tid)
{
	uint32_t key = (uint32_t)tid;
	uint64_t v;

	if (pid == tid && d->cuts)
		sp_htab_del(d->cuts, &pid, sizeof(pid));
	if (d->wanted && sp_htab_del(d->wanted, &tid, sizeof(tid)))
		bpf_map_delete_elem(d->map_fd, &key);
	if (sp_htab_get(d->queues, &tid, sizeof(tid), &v)) {
		queue_free((struct queue *)(uintptr_t)v);
		sp_htab_del(d->queues, &tid, sizeof(tid));
	}
}

const struct rec_deepbpf_stats *
rec_deepbpf_stats(const struct rec_deepbpf *d)
{
	return &d->st;
}
