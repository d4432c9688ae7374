/* tidq.c: records of samples kept by thread until taken (tidq.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/htab.h"
#include "sp-record/bpf/tidq.h"
#include "common/banned.h"

/*
 * A record is its sample's when their times are this close: the program
 * runs in the sample's interrupt, after the sample's time is taken
 * (perf_prepare_sample), microseconds apart, unless a virtual CPU is
 * descheduled between the two; a thread's samples are a millisecond
 * apart or more at the rates perf events sample at here.
 */
#define PAIR_NS 500000

struct item {
	uint64_t ts;
	void *rec;
};

/* A thread's records not yet taken, oldest first (a ring). */
struct queue {
	int32_t pid;
	size_t head, n;
	struct item v[REC_TIDQ_MAX];
};

struct rec_tidq {
	struct sp_htab *queues; /* tid -> struct queue * */
	void *taken;
};

struct rec_tidq *
rec_tidq_new(void)
{
	struct rec_tidq *q = calloc(1, sizeof(*q));

	if (q && !(q->queues = sp_htab_new())) {
		free(q);
		return NULL;
	}
	return q;
}

static void
queue_free(struct queue *q)
{
	size_t i;

	for (i = 0; q && i < q->n; i++)
		free(q->v[(q->head + i) % REC_TIDQ_MAX].rec);
	free(q);
}

void
rec_tidq_free(struct rec_tidq *q)
{
	const void *key;
	size_t pos = 0;
	uint64_t v;

	if (!q)
		return;
	while (sp_htab_next(q->queues, &pos, &key, NULL, &v))
		queue_free((struct queue *)(uintptr_t)v);
	sp_htab_free(q->queues);
	free(q->taken);
	free(q);
}

/* Drops the record at the head of `t`. */
static void
pop(struct queue *t)
{
	free(t->v[t->head].rec);
	t->head = (t->head + 1) % REC_TIDQ_MAX;
	t->n--;
}

int
rec_tidq_push(struct rec_tidq *q, int32_t pid, int32_t tid, uint64_t ts,
	      void *rec, uint64_t *dropped)
{
	struct queue *t;
	uint64_t *slot;
	bool fresh;

	slot = sp_htab_slot(q->queues, &tid, sizeof(tid), 0, &fresh);
	if (slot && fresh && !(*slot = (uintptr_t)calloc(1, sizeof(*t)))) {
		/* the deletion may move another thread's entry into slot */
		sp_htab_del(q->queues, &tid, sizeof(tid));
		slot = NULL;
	}
	if (!slot) {
		free(rec);
		return -ENOMEM;
	}
	t = (struct queue *)(uintptr_t)*slot;
	t->pid = pid;
	if (t->n == REC_TIDQ_MAX) { /* its samples were lost: the oldest goes */
		pop(t);
		(*dropped)++;
	}
	t->v[(t->head + t->n++) % REC_TIDQ_MAX] = (struct item){ ts, rec };
	return 0;
}

void *
rec_tidq_take(struct rec_tidq *q, int32_t tid, uint64_t ts, uint64_t *dropped)
{
	struct queue *t;
	uint64_t v;

	free(q->taken);
	q->taken = NULL;
	if (!sp_htab_get(q->queues, &tid, sizeof(tid), &v))
		return NULL;
	t = (struct queue *)(uintptr_t)v;
	while (t->n > 0 && t->v[t->head].ts + PAIR_NS < ts) {
		pop(t);
		(*dropped)++;
	}
	if (t->n == 0 || t->v[t->head].ts > ts + PAIR_NS)
		return NULL;
	q->taken = t->v[t->head].rec;
	t->head = (t->head + 1) % REC_TIDQ_MAX;
	t->n--;
	return q->taken;
}

void
rec_tidq_drop_thread(struct rec_tidq *q, int32_t tid)
{
	uint64_t v;

	if (sp_htab_get(q->queues, &tid, sizeof(tid), &v)) {
		queue_free((struct queue *)(uintptr_t)v);
		sp_htab_del(q->queues, &tid, sizeof(tid));
	}
}

void
rec_tidq_drop_process(struct rec_tidq *q, int32_t pid)
{
	int32_t tids[64];
	size_t pos, n;
	const void *k;
	uint64_t v;

	do { /* 64 threads at a time: the table may not change while walked */
		pos = n = 0;
		while (n < 64 && sp_htab_next(q->queues, &pos, &k, NULL, &v))
			if (((struct queue *)(uintptr_t)v)->pid == pid)
				memcpy(&tids[n++], k, sizeof(tids[0]));
		for (pos = 0; pos < n; pos++)
			rec_tidq_drop_thread(q, tids[pos]);
	} while (n == 64);
}
