/*
 * sorter.h: merges the records of several perf rings into timestamp order.
 *
 * Each ring is ordered by time, but rings are not ordered against each
 * other: an MMAP2 record read from one CPU's ring can be older than a
 * sample already read from another's.  The sorter holds records in a
 * min-heap keyed by (timestamp, arrival) and releases them in rounds, as
 * perf does: the reader drains every ring once per round, and at the end
 * of round N every record not newer than the newest record of round N-1
 * is safe, because anything read later was still unwritten when round N
 * started, after round N-1 had already seen that newest record.
 */
#ifndef SP_RECORD_PERF_SORTER_H
#define SP_RECORD_PERF_SORTER_H

#include <stddef.h>
#include <stdint.h>

/*
 * One queued record.  A popped event belongs to the caller, who hands it
 * back with rec_sorter_release() (or free()).
 */
struct rec_sorter_event {
	uint64_t ts;   /* the sort key, in ns */
	uint64_t seq;  /* arrival order, breaks ties */
	uint32_t kind; /* caller-defined: perf record or synthetic */
	uint32_t len;  /* bytes in data */
	uint32_t cls;  /* the sorter's size class */
	uint32_t pad;
	uint8_t data[]; /* 8-byte aligned copy of the record */
};

struct rec_sorter;

/* Returns an empty sorter or NULL with errno set. */
struct rec_sorter *rec_sorter_new(void);
/* Frees the sorter and every queued event; NULL is allowed. */
void rec_sorter_free(struct rec_sorter *s);

/*
 * Queues a copy of the `len` bytes at `rec` with key `ts`.  Returns 0 or
 * -ENOMEM.
 */
int rec_sorter_push(struct rec_sorter *s, uint64_t ts, uint32_t kind,
		    const void *rec, size_t len);
/*
 * The same without an intermediate copy: rec_sorter_reserve() returns an
 * event with room for `cap` bytes of data (reusing released ones), or
 * NULL; the caller fills e->data and queues it with rec_sorter_queue(),
 * which takes it over, or hands it back with rec_sorter_release().
 * Queuing returns 0 or -ENOMEM (the event is released then).
 */
struct rec_sorter_event *rec_sorter_reserve(struct rec_sorter *s, size_t cap);
int rec_sorter_queue(struct rec_sorter *s, struct rec_sorter_event *e,
		     uint64_t ts, uint32_t kind, size_t len);
/*
 * Takes back a popped or reserved event.  Its memory is kept for later
 * events (up to a few MiB in all), so a steady stream of records costs
 * no allocation.  NULL is allowed.
 */
void rec_sorter_release(struct rec_sorter *s, struct rec_sorter_event *e);

/* Ends a round: records up to the previous round's newest become ready. */
void rec_sorter_end_round(struct rec_sorter *s);
/*
 * Takes the oldest queued event if it is ready (or any oldest event when
 * `force` is set, to flush at the end).  Returns NULL when none is.
 */
struct rec_sorter_event *rec_sorter_pop(struct rec_sorter *s, int force);
/* Number of queued events. */
size_t rec_sorter_count(const struct rec_sorter *s);

#endif
