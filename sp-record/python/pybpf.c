/*
 * pybpf.c: loads bpf/pyframes.c and pairs the stacks it reads with their
 * samples (pybpf.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sp-record/python/pybpf.h"
#include "sp-record/bpf/tidq.h"
#include "common/banned.h"

/* The compiled program, linked in by the build (pybpf_object.S). */
extern const unsigned char rec_pybpf_object[];
extern const unsigned char rec_pybpf_object_end[];

struct rec_pybpf {
	struct bpf_object *obj;
	struct ring_buffer *ring;
	int prog_fd, procs_fd;
	struct rec_tidq *stacks; /* read, waiting for their samples */
	struct rec_pybpf_stats st;
	rec_pybpf_code_fn *on_code;
	void *code_ctx;
	int err; /* the first failure while consuming */
};

/* Hands a code's strings over. */
static int
on_code(struct rec_pybpf *b, const void *data, size_t size)
{
	int rc;

	if (size < sizeof(struct pybpf_code) || !b->on_code)
		return 0;
	b->st.codes++;
	rc = b->on_code(b->code_ctx, data);
	if (rc < 0 && !b->err)
		b->err = rc;
	return 0;
}

/* Keeps a stack from the ring buffer for its sample. */
static int
on_stack(void *ctx, void *data, size_t size)
{
	struct rec_pybpf *b = ctx;
	const struct pybpf_stack *s = data;
	struct pybpf_stack *copy;

	if (size >= PYBPF_HEAD_SIZE && s->status == PYBPF_CODE)
		return on_code(b, data, size);
	if (size < PYBPF_HEAD_SIZE || s->n > PYBPF_MAX_FRAMES ||
	    size < PYBPF_HEAD_SIZE + s->n * sizeof(s->f[0]))
		return 0;
	b->st.stacks++;
	b->st.faults += PYBPF_STATUS(s->status) == PYBPF_FAULT;
	if ((copy = malloc(size)))
		memcpy(copy, s, size);
	if (!copy || rec_tidq_push(b->stacks, (int32_t)s->pid, (int32_t)s->tid,
				   s->ts, copy, &b->st.unpaired) < 0)
		b->err = b->err ? b->err : -ENOMEM;
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

struct rec_pybpf *
rec_pybpf_open(struct sp_buf *why)
{
	struct rec_pybpf *b = calloc(1, sizeof(*b));

	if (!b || !(b->stacks = rec_tidq_new())) {
		free(b);
		sp_buf_adds(why, "out of memory");
		return NULL;
	}
	libbpf_set_print(NULL); /* the caller says in one line what failed */
	if (load(b, why) < 0) {
		rec_pybpf_free(b);
		return NULL;
	}
	return b;
}

void
rec_pybpf_free(struct rec_pybpf *b)
{
	if (!b)
		return;
	rec_tidq_free(b->stacks);
	ring_buffer__free(b->ring);
	bpf_object__close(b->obj);
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
rec_pybpf_on_code(struct rec_pybpf *b, rec_pybpf_code_fn *fn, void *ctx)
{
	b->on_code = fn;
	b->code_ctx = ctx;
}

void
rec_pybpf_remove(struct rec_pybpf *b, int32_t pid)
{
	uint32_t key = (uint32_t)pid;

	bpf_map_delete_elem(b->procs_fd, &key);
	rec_tidq_drop_process(b->stacks, pid);
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
	const struct pybpf_stack *s =
	    rec_tidq_take(b->stacks, tid, ts, &b->st.unpaired);

	/*
	 * The program writes a sample's stack before the kernel writes the
	 * sample, so a stack not here yet was written after the recorder
	 * last consumed this ring and before it read the sample's ring (it
	 * was descheduled between the two: under load, a few samples in a
	 * hundred).  Read late, such a stack is another moment's.
	 */
	if (!s && ring_buffer__consume(b->ring) > 0)
		s = rec_tidq_take(b->stacks, tid, ts, &b->st.unpaired);
	b->st.taken += s != NULL;
	return s;
}

const struct rec_pybpf_stats *
rec_pybpf_stats(const struct rec_pybpf *b)
{
	return &b->st;
}
