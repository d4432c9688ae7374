/*
 * ring.h: reading a perf_event ring buffer.
 *
 * The kernel appends records at data_head; the reader consumes from
 * data_tail.  A read pass loads data_head once with acquire ordering (so
 * the record bytes written before it are visible), hands out every record
 * up to it, and ends by storing data_tail with release ordering (so the
 * kernel cannot overwrite bytes the reader still looks at).  A record
 * that crosses the end of the data area is copied into a scratch buffer
 * so callers always see it contiguous.
 */
#ifndef SP_RECORD_PERF_RING_H
#define SP_RECORD_PERF_RING_H

#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

/* The largest record the kernel can write: the header's size is a u16. */
#define REC_RING_MAX_RECORD 65536

struct rec_ring {
	int fd;    /* the event that owns the buffer */
	void *map; /* mmap base; NULL for a crafted ring */
	size_t map_len;
	struct perf_event_mmap_page *meta;
	uint8_t *data;    /* the data area */
	uint64_t size;    /* bytes in the data area, 2^n */
	uint64_t head;    /* data_head loaded by rec_ring_begin */
	uint64_t tail;    /* next byte to read */
	uint8_t *scratch; /* REC_RING_MAX_RECORD bytes */
	uint64_t wrapped; /* records copied out: they wrapped */
	uint64_t corrupt; /* passes cut short by a bad header */
};

/*
 * Maps the buffer of event `fd` with `pages` data pages (a power of two).
 * Returns 0 or a negative errno from mmap (-EPERM, -ENOMEM when the
 * locked-memory limit is reached) or -ENOMEM for the scratch buffer.
 */
int rec_ring_map(struct rec_ring *r, int fd, size_t pages);

/*
 * Sets up a ring over caller memory, for tests: `meta` holds data_head
 * and data_tail, `data` is `size` bytes (a power of two).  Returns 0 or
 * -ENOMEM.
 */
int rec_ring_init_mem(struct rec_ring *r, struct perf_event_mmap_page *meta,
		      uint8_t *data, uint64_t size);

/* Unmaps (when mapped) and frees the scratch buffer; fd is not closed. */
void rec_ring_release(struct rec_ring *r);

/* Starts a read pass; returns the number of unread bytes. */
uint64_t rec_ring_begin(struct rec_ring *r);

/*
 * Gets the next record of the pass.  Returns 1 and sets *rec (valid until
 * the next call on this ring), 0 when the pass has no more records, or
 * -EBADMSG when a header is malformed (size below 8, not a multiple of 8,
 * or past data_head); then the rest of the pass is skipped.
 */
int rec_ring_next(struct rec_ring *r, const struct perf_event_header **rec);

/* Ends the pass: gives the bytes read back to the kernel. */
void rec_ring_end(struct rec_ring *r);

#endif
