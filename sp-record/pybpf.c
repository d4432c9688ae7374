/*
 * pybpf.c: loads bpf/pyframes.c and pairs the stacks it reads with their
 * samples (pybpf.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/htab.h"
#include "sp-record/pybpf.h"
#include "common/banned.h"

/* The compiled program, linked in by the build (pybpf_object.S). */
extern const unsigned char rec_pybpf_object[];
extern const unsigned char rec_pybpf_object_end[];

/*
 * A stack is its sample's when their times are this close: the program
 * runs in the sample's interrupt, after the sample's time is taken
 * (perf_prepare_sample), microseconds apart, unless a virtual CPU is
 * descheduled between the two; a thread's samples are a millisecond
 * apart or more at the rates perf events sample at here.
 */
#define PAIR_NS 500000
/* Stacks kept for one thread at most, waiting for their samples. */
#define QUEUE_MAX 256

/* A thread's stacks not yet taken, oldest first (a ring). */
struct queue {
	int32_t pid;
	size_t head, n;
	struct pybpf_stack *v[QUEUE_MAX];
};

struct rec_pybpf {
	struct bpf_object *obj;
	struct ring_buffer *ring;
	int prog_fd, procs_fd;
	struct sp_htab *queues; /* tid -> struct queue * */
	struct pybpf_stack *taken;
	struct rec_pybpf_stats st;
	int err; /* the first failure while consuming */
};

static void
queue_free(struct queue *q)
{
	size_t i;

	for (i = 0; q && i < q->n; i++)
		free(q->v[(q->head + i) % QUEUE_MAX]);
	free(q);
}

/* Drops the stack at the head of `q`. */
static void
pop(struct queue *q)
{
	free(q->v[q->head]);
	q->head = (q->head + 1) % QUEUE_MAX;
	q->n--;
}

/* Adds a stack from the ring buffer to its thread's queue. */
static int
on_stack(void *ctx, void *data, size_t size)
{
	struct rec_pybpf *b = ctx;
	const struct pybpf_stack *s = data;
	struct pybpf_stack *copy;
	struct queue *q;
	uint64_t *slot;
	bool fresh;

	if (size < PYBPF_HEAD_SIZE || s->n > PYBPF_MAX_FRAMES ||
	    size < PYBPF_HEAD_SIZE + s->n * sizeof(s->f[0]))
		return 0;
	b->st.stacks++;
	b->st.faults += s->status == PYBPF_FAULT;
	slot = sp_htab_slot(b->queues, &s->tid, sizeof(s->tid), 0, &fresh);
	if (slot && fresh && !(*slot = (uintptr_t)calloc(1, sizeof(*q)))) {
		/* the deletion may move another thread's entry into slot */
		sp_htab_del(b->queues, &s->tid, sizeof(s->tid));
		slot = NULL;
	}
	if (!slot || !(copy = malloc(size))) {
		b->err = b->err ? b->err : -ENOMEM;
		return 0;
	}
	memcpy(copy, s, size);
	q = (struct queue *)(uintptr_t)*slot;
	q->pid = (int32_t)s->pid;
	if (q->n == QUEUE_MAX) { /* its samples were lost: the oldest goes */
		pop(q);
		b->st.unpaired++;
	}
	q->v[(q->head + q->n++) % QUEUE_MAX] = copy;
	return 0;
}

/* Loads the object and finds its parts; 0 or -errno with `why` set. */
static int
load(struct rec_pybpf *b, struct sp_buf *why)
{
	struct bpf_program *prog;
	struct bpf_map *procs, *stacks;
	int rc;

	b->obj = bpf_object__open_mem(
	    rec_pybpf_object, (size_t)(rec_pybpf_object_end - rec_pybpf_object),
	    NULL);
	if (!b->obj) {
		rc = -errno;
		sp_buf_addf(why, "BPF object: %s", strerror(-rc));
		return rc;
	}
	rc = bpf_object__load(b->obj);
	if (rc < 0) {
		sp_buf_addf(why, "BPF program refused: %s", strerror(-rc));
		return rc;
	}
	prog = bpf_object__find_program_by_name(b->obj, "pyframes");
	procs = bpf_object__find_map_by_name(b->obj, "procs");
	stacks = bpf_object__find_map_by_name(b->obj, "stacks");
	if (!prog || !procs || !stacks) {
		sp_buf_adds(why, "BPF object: a part is missing");
		return -ENOENT;
	}
	b->prog_fd = bpf_program__fd(prog);
	b->procs_fd = bpf_map__fd(procs);
	b->ring = ring_buffer__new(bpf_map__fd(stacks), on_stack, b, NULL);
	if (!b->ring) {
		rc = -errno;
		sp_buf_addf(why, "BPF ring buffer: %s", strerror(-rc));
		return rc;
	}
	return 0;
}

/* libbpf's own messages: the caller says in one line what failed. */
static int
quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

struct rec_pybpf *
rec_pybpf_open(struct sp_buf *why)
{
	struct rec_pybpf *b = calloc(1, sizeof(*b));

	if (!b || !(b->queues = sp_htab_new())) {
		free(b);
		sp_buf_adds(why, "out of memory");
		return NULL;
	}
	libbpf_set_print(quiet);
	if (load(b, why) < 0) {
		rec_pybpf_free(b);
		return NULL;
	}
	return b;
}

void
rec_pybpf_free(struct rec_pybpf *b)
{
	const void *key;
	size_t pos = 0;
	uint64_t v;

	if (!b)
		return;
	while (b->queues && sp_htab_next(b->queues, &pos, &key, NULL, &v))
		queue_free((struct queue *)(uintptr_t)v);
	sp_htab_free(b->queues);
	ring_buffer__free(b->ring);
	bpf_object__close(b->obj);
	free(b->taken);
	free(b);
}

int
rec_pybpf_prog_fd(const struct rec_pybpf *b)
{
	return b->prog_fd;
}

int
rec_pybpf_add(struct rec_pybpf *b, int32_t pid, const struct pybpf_proc *p)
{
	uint32_t key = (uint32_t)pid;

	return bpf_map_update_elem(b->procs_fd, &key, p, BPF_ANY) < 0 ? -errno
								      : 0;
}

void
rec_pybpf_remove(struct rec_pybpf *b, int32_t pid)
{
	uint32_t key = (uint32_t)pid;
	int32_t tids[64];
	size_t pos, n;
	const void *k;
	uint64_t v;

	bpf_map_delete_elem(b->procs_fd, &key);
	do { /* the threads of pid, 64 at a time (the table may not change
	      * while it is walked) */
		pos = n = 0;
		while (n < 64 && sp_htab_next(b->queues, &pos, &k, NULL, &v))
			if (((struct queue *)(uintptr_t)v)->pid == pid)
				memcpy(&tids[n++], k, sizeof(tids[0]));
		for (pos = 0; pos < n; pos++) {
			sp_htab_get(b->queues, &tids[pos], sizeof(tids[0]), &v);
			queue_free((struct queue *)(uintptr_t)v);
			sp_htab_del(b->queues, &tids[pos], sizeof(tids[0]));
		}
	} while (n == 64);
}

int
rec_pybpf_consume(struct rec_pybpf *b)
{
	int rc = ring_buffer__consume(b->ring);

	if (rc < 0)
		return rc;
	rc = b->err;
	b->err = 0;
	return rc;
}

const struct pybpf_stack *
rec_pybpf_take(struct rec_pybpf *b, int32_t tid, uint64_t ts)
{
	struct queue *q;
	uint64_t v;

	free(b->taken);
	b->taken = NULL;
	if (!sp_htab_get(b->queues, &tid, sizeof(tid), &v))
		return NULL;
	q = (struct queue *)(uintptr_t)v;
	/* Older stacks are of samples lost (a full perf ring). */
	while (q->n > 0 && q->v[q->head]->ts + PAIR_NS < ts) {
		pop(q);
		b->st.unpaired++;
	}
	if (q->n == 0 || q->v[q->head]->ts > ts + PAIR_NS)
		return NULL;
	b->taken = q->v[q->head];
	q->head = (q->head + 1) % QUEUE_MAX;
	q->n--;
	b->st.taken++;
	return b->taken;
}

const struct rec_pybpf_stats *
rec_pybpf_stats(const struct rec_pybpf *b)
{
	return &b->st;
}
