/* deepbpf.c: deep stacks copied at the sample by BPF (deepbpf.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/htab.h"
#include "sp-record/unwind/deepbpf.h"
#include "sp-record/bpf/deepbpf_abi.h"
#include "sp-record/bpf/tidq.h"
#include "common/banned.h"

/*
 * Cut deep stacks of a process before its threads are registered: one
 * whose reads past the copy verify (a stack that changes slowly) would
 * cost the program's copies and the recorder's for nothing.  Counted by
 * process: a compiler's many worker threads each cut a few.
 */
#define CUTS_MIN 4

/* A copy kept for its sample (its time is the table's, tidq.h). */
struct copy {
	uint64_t sp;
	size_t len;
	uint8_t data[];
};

/* The compiled program, linked in by the build (bpf/object.S). */
extern const unsigned char rec_deepbpf_object[];
extern const unsigned char rec_deepbpf_object_end[];

struct rec_deepbpf {
	struct bpf_object *obj;
	struct ring_buffer *ring;
	int prog_fd, next_fd, map_fd;
	uint32_t skip, max;
	struct rec_tidq *copies; /* read, waiting for their samples */
	struct sp_htab *wanted;  /* tid -> lo ^ hi of the mapping registered */
	struct sp_htab *cuts;    /* pid -> its deep stacks cut so far */
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

void
rec_deepbpf_free(struct rec_deepbpf *d)
{
	if (!d)
		return;
	rec_tidq_free(d->copies);
	sp_htab_free(d->wanted);
	sp_htab_free(d->cuts);
	ring_buffer__free(d->ring);
	bpf_object__close(d->obj);
	free(d);
}

/* A ring buffer record (libbpf's ring_buffer_sample_fn): keeps a copy. */
static int
on_copy(void *ctx, void *data, size_t size)
{
	struct rec_deepbpf *d = ctx;
	const struct deepbpf_copy *r = data;
	struct copy *c;

	if (size < DEEPBPF_HEAD || r->len > DEEPBPF_MAX ||
	    size < DEEPBPF_HEAD + (size_t)r->len)
		return 0;
	d->st.copies++;
	if (r->len == 0) {
		d->st.empty++;
		return 0;
	}
	/* out of memory: the sample reads live instead */
	if (!(c = malloc(sizeof(*c) + r->len)))
		return 0;
	c->sp = r->sp;
	c->len = r->len;
	memcpy(c->data, r->data, r->len);
	(void)rec_tidq_push(d->copies, 0, (int32_t)r->tid, r->ts, c,
			    &d->st.unpaired);
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

	if (!d || !(d->copies = rec_tidq_new()) ||
	    !(d->wanted = sp_htab_new()) || !(d->cuts = sp_htab_new())) {
		rec_deepbpf_free(d);
		sp_buf_adds(why, "out of memory");
		return NULL;
	}
	d->skip = skip;
	d->max = max < DEEPBPF_MAX ? max : DEEPBPF_MAX;
	libbpf_set_print(NULL); /* the caller says in one line what failed */
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
	const struct copy *c =
	    rec_tidq_take(d->copies, tid, ts, &d->st.unpaired);

	if (!c)
		return NULL;
	if (c->sp != sp) { /* not of this sample after all */
		d->st.unpaired++;
		return NULL;
	}
	d->st.taken++;
	d->st.bytes += c->len;
	*len = c->len;
	return c->data;
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

	if (pid == tid && d->cuts)
		sp_htab_del(d->cuts, &pid, sizeof(pid));
	if (d->wanted && sp_htab_del(d->wanted, &tid, sizeof(tid)))
		bpf_map_delete_elem(d->map_fd, &key);
	rec_tidq_drop_thread(d->copies, tid);
}

const struct rec_deepbpf_stats *
rec_deepbpf_stats(const struct rec_deepbpf *d)
{
	return &d->st;
}
