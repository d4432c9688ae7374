/*
 * offcpu.c: stacks of threads off the CPU (offcpu.h), by thread id.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/htab.h"
#include "sp-record/perf/offcpu.h"
#include "common/banned.h"

struct rec_offcpu {
	struct sp_htab *by_tid; /* tid -> struct rec_offcpu_wait * */
};

struct rec_offcpu *
rec_offcpu_new(void)
{
	struct rec_offcpu *t = calloc(1, sizeof(*t));

	if (t && !(t->by_tid = sp_htab_new())) {
		free(t);
		t = NULL;
	}
	if (!t)
		errno = ENOMEM;
	return t;
}

void
rec_offcpu_free(struct rec_offcpu *t)
{
	struct rec_offcpu_wait *w;

	if (!t)
		return;
	while ((w = rec_offcpu_take_any(t)))
		free(w);
	sp_htab_free(t->by_tid);
	free(t);
}

int
rec_offcpu_put(struct rec_offcpu *t, int32_t pid, uint64_t tid, uint64_t out_ns,
	       enum sp_wait_state state, const struct sp_frame *frames,
	       size_t n)
{
	struct rec_offcpu_wait *w = malloc(sizeof(*w) + n * sizeof(*frames));

	if (!w)
		return -ENOMEM;
	w->pid = pid;
	w->tid = tid;
	w->out_ns = out_ns;
	w->state = state;
	w->nframes = n;
	memcpy(w->frames, frames, n * sizeof(*frames));
	free(rec_offcpu_take(t, tid));
	if (sp_htab_put(t->by_tid, &tid, sizeof(tid), (uintptr_t)w) < 0) {
		free(w);
		return -ENOMEM;
	}
	return 0;
}

struct rec_offcpu_wait *
rec_offcpu_peek(struct rec_offcpu *t, uint64_t tid)
{
	uint64_t v;

	if (!sp_htab_get(t->by_tid, &tid, sizeof(tid), &v))
		return NULL;
	return (struct rec_offcpu_wait *)(uintptr_t)v;
}

struct rec_offcpu_wait *
rec_offcpu_take(struct rec_offcpu *t, uint64_t tid)
{
	uint64_t v;

	if (!sp_htab_get(t->by_tid, &tid, sizeof(tid), &v))
		return NULL;
	sp_htab_del(t->by_tid, &tid, sizeof(tid));
	return (struct rec_offcpu_wait *)(uintptr_t)v;
}

struct rec_offcpu_wait *
rec_offcpu_take_any(struct rec_offcpu *t)
{
	size_t pos = 0;
	const void *key;
	uint64_t tid;

	if (!sp_htab_next(t->by_tid, &pos, &key, NULL, NULL))
		return NULL;
	memcpy(&tid, key, sizeof(tid));
	return rec_offcpu_take(t, tid);
}

size_t
rec_offcpu_count(const struct rec_offcpu *t)
{
	return sp_htab_count(t->by_tid);
}
