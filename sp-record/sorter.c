/*
 * sorter.c: the round-based event sorter (see sorter.h), a binary min-heap.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/sorter.h"
#include "common/banned.h"

struct rec_sorter {
	struct rec_event **heap;
	size_t n, alloc;
	uint64_t seq;
	uint64_t newest;	/* newest timestamp pushed so far */
	uint64_t prev_newest;	/* `newest` when the last round ended */
	uint64_t limit;		/* events up to here are ready */
	bool have_limit;	/* no round ended twice yet: nothing ready */
	int rounds;
};

struct rec_sorter *
rec_sorter_new(void)
{
	return calloc(1, sizeof(struct rec_sorter));
}

void
rec_sorter_free(struct rec_sorter *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->heap[i]);
	free(s->heap);
	free(s);
}

static bool
event_before(const struct rec_event *a, const struct rec_event *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	return a->seq < b->seq;
}

static void
sift_up(struct rec_sorter *s, size_t i)
{
	struct rec_event *e = s->heap[i];
	size_t parent;

	while (i > 0) {
		parent = (i - 1) / 2;
		if (!event_before(e, s->heap[parent]))
			break;
		s->heap[i] = s->heap[parent];
		i = parent;
	}
	s->heap[i] = e;
}

static void
sift_down(struct rec_sorter *s, size_t i)
{
	struct rec_event *e = s->heap[i];
	size_t child;

	for (;;) {
		child = 2 * i + 1;
		if (child >= s->n)
			break;
		if (child + 1 < s->n &&
		    event_before(s->heap[child + 1], s->heap[child]))
			child++;
		if (!event_before(s->heap[child], e))
			break;
		s->heap[i] = s->heap[child];
		i = child;
	}
	s->heap[i] = e;
}

int
rec_sorter_push(struct rec_sorter *s, uint64_t ts, uint32_t kind,
		const void *rec, size_t len)
{
	struct rec_event *e, **heap;
	size_t alloc;

	if (len > UINT32_MAX)
		return -EINVAL;
	if (s->n == s->alloc) {
		alloc = s->alloc ? 2 * s->alloc : 1024;
		heap = realloc(s->heap, alloc * sizeof(*heap));
		if (!heap)
			return -ENOMEM;
		s->heap = heap;
		s->alloc = alloc;
	}
	/* Round up so the copy stays 8-byte aligned for u64 reads. */
	e = malloc(sizeof(*e) + ((len + 7) & ~(size_t)7));
	if (!e)
		return -ENOMEM;
	e->ts = ts;
	e->seq = s->seq++;
	e->kind = kind;
	e->len = (uint32_t)len;
	memcpy(e->data, rec, len);
	if (ts > s->newest)
		s->newest = ts;
	s->heap[s->n++] = e;
	sift_up(s, s->n - 1);
	return 0;
}

void
rec_sorter_end_round(struct rec_sorter *s)
{
	if (s->rounds > 0) {
		s->limit = s->prev_newest;
		s->have_limit = true;
	}
	s->prev_newest = s->newest;
	s->rounds++;
}

struct rec_event *
rec_sorter_pop(struct rec_sorter *s, int force)
{
	struct rec_event *e;

	if (s->n == 0)
		return NULL;
	e = s->heap[0];
	if (!force && (!s->have_limit || e->ts > s->limit))
		return NULL;
	s->heap[0] = s->heap[--s->n];
	if (s->n > 0)
		sift_down(s, 0);
	return e;
}

size_t
rec_sorter_count(const struct rec_sorter *s)
{
	return s->n;
}
