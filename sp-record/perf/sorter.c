/*
 * sorter.c: the round-based event sorter (see sorter.h), a binary min-heap.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sp-record/perf/sorter.h"
#include "common/banned.h"

_Static_assert(offsetof(struct rec_sorter_event, data) % 8 == 0,
	       "event data must stay 8-byte aligned");

/*
 * Released events are kept on one free list per size class: class k
 * holds 64 << k bytes of data, up to the largest ring record.
 */
#define MIN_CAP 64u
#define NCLASSES 11u         /* 64 B .. 64 KiB */
#define NO_CLASS NCLASSES    /* larger: freed, not kept */
#define CACHE_MAX (8u << 20) /* bytes kept on the free lists */

struct rec_sorter {
	struct rec_sorter_event **heap;
	size_t n, alloc;
	struct rec_sorter_event *free_list[NCLASSES];
	size_t cached; /* bytes on the free lists */
	uint64_t seq;
	uint64_t newest;      /* newest timestamp pushed so far */
	uint64_t prev_newest; /* `newest` when the last round ended */
	uint64_t limit;       /* events up to here are ready */
	bool have_limit;      /* no round ended twice yet: nothing ready */
	int rounds;
};

struct rec_sorter *
rec_sorter_new(void)
{
	return calloc(1, sizeof(struct rec_sorter));
}

/* The next event on a free list is kept in the data of the one before. */
static struct rec_sorter_event *
next_free(const struct rec_sorter_event *e)
{
	struct rec_sorter_event *next;

	memcpy(&next, e->data, sizeof(next));
	return next;
}

void
rec_sorter_free(struct rec_sorter *s)
{
	struct rec_sorter_event *e, *next;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->heap[i]);
	for (i = 0; i < NCLASSES; i++)
		for (e = s->free_list[i]; e; e = next) {
			next = next_free(e);
			free(e);
		}
	free(s->heap);
	free(s);
}

static size_t
class_cap(uint32_t cls)
{
	return (size_t)MIN_CAP << cls;
}

struct rec_sorter_event *
rec_sorter_reserve(struct rec_sorter *s, size_t cap)
{
	struct rec_sorter_event *e;
	uint32_t cls = 0;

	while (cls < NO_CLASS && class_cap(cls) < cap)
		cls++;
	if (cls < NO_CLASS && (e = s->free_list[cls])) {
		s->free_list[cls] = next_free(e);
		s->cached -= class_cap(cls);
		return e;
	}
	/* Round up so the copy stays 8-byte aligned for u64 reads. */
	e = malloc(sizeof(*e) +
		   (cls < NO_CLASS ? class_cap(cls) : (cap + 7) & ~(size_t)7));
	if (e)
		e->cls = cls;
	return e;
}

void
rec_sorter_release(struct rec_sorter *s, struct rec_sorter_event *e)
{
	if (!e)
		return;
	if (e->cls >= NO_CLASS || s->cached + class_cap(e->cls) > CACHE_MAX) {
		free(e);
		return;
	}
	memcpy(e->data, &s->free_list[e->cls], sizeof(e));
	s->free_list[e->cls] = e;
	s->cached += class_cap(e->cls);
}

static bool
event_before(const struct rec_sorter_event *a, const struct rec_sorter_event *b)
{
	if (a->ts != b->ts)
		return a->ts < b->ts;
	return a->seq < b->seq;
}

static void
sift_up(struct rec_sorter *s, size_t i)
{
	struct rec_sorter_event *e = s->heap[i];
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
	struct rec_sorter_event *e = s->heap[i];
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
rec_sorter_queue(struct rec_sorter *s, struct rec_sorter_event *e, uint64_t ts,
		 uint32_t kind, size_t len)
{
	if (len > UINT32_MAX) {
		rec_sorter_release(s, e);
		return -EINVAL;
	}
	if (SP_GROW(s->heap, s->alloc, s->n + 1)) {
		rec_sorter_release(s, e);
		return -ENOMEM;
	}
	e->ts = ts;
	e->seq = s->seq++;
	e->kind = kind;
	e->len = (uint32_t)len;
	if (ts > s->newest)
		s->newest = ts;
	s->heap[s->n++] = e;
	sift_up(s, s->n - 1);
	return 0;
}

int
rec_sorter_push(struct rec_sorter *s, uint64_t ts, uint32_t kind,
		const void *rec, size_t len)
{
	struct rec_sorter_event *e;

	if (len > UINT32_MAX)
		return -EINVAL;
	if (!(e = rec_sorter_reserve(s, len)))
		return -ENOMEM;
	memcpy(e->data, rec, len);
	return rec_sorter_queue(s, e, ts, kind, len);
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

struct rec_sorter_event *
rec_sorter_pop(struct rec_sorter *s, int force)
{
	struct rec_sorter_event *e;

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
