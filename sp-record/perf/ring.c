/*
 * ring.c: perf ring buffer mapping and the read pass (see ring.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sp-record/perf/ring.h"
#include "common/banned.h"

int
rec_ring_map(struct rec_ring *r, int fd, size_t pages)
{
	size_t pagesz = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (pages + 1) * pagesz;
	void *map;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	r->scratch = malloc(REC_RING_MAX_RECORD);
	if (!r->scratch) {
		munmap(map, len);
		return -ENOMEM;
	}
	r->map = map;
	r->map_len = len;
	r->meta = map;
	/* Kernels since 4.1 say where the data area is; older ones: page 1. */
	if (r->meta->data_offset && r->meta->data_size) {
		r->data = (uint8_t *)map + r->meta->data_offset;
		r->size = r->meta->data_size;
	} else {
		r->data = (uint8_t *)map + pagesz;
		r->size = (uint64_t)pages * pagesz;
	}
	r->tail = r->meta->data_tail;
	return 0;
}

int
rec_ring_init_mem(struct rec_ring *r, struct perf_event_mmap_page *meta,
		  uint8_t *data, uint64_t size)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->scratch = malloc(REC_RING_MAX_RECORD);
	if (!r->scratch)
		return -ENOMEM;
	r->meta = meta;
	r->data = data;
	r->size = size;
	r->tail = meta->data_tail;
	return 0;
}

void
rec_ring_release(struct rec_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	free(r->scratch);
	r->map = NULL;
	r->meta = NULL;
	r->scratch = NULL;
}

uint64_t
rec_ring_begin(struct rec_ring *r)
{
	/* Pairs with the kernel's barrier before it publishes data_head. */
	r->head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	if (r->head < r->tail || r->head - r->tail > r->size) {
		/* Cannot happen with a sane kernel; resynchronize. */
		r->corrupt++;
		r->tail = r->head;
	}
	return r->head - r->tail;
}

int
rec_ring_next(struct rec_ring *r, const struct perf_event_header **rec)
{
	const struct perf_event_header *h;
	uint64_t off, avail, first;
	struct perf_event_header hdr;

	avail = r->head - r->tail;
	if (avail == 0)
		return 0;
	off = r->tail & (r->size - 1);
	/* Headers are 8-byte aligned and the size is 2^n: never split. */
	memcpy(&hdr, r->data + off, sizeof(hdr));
	if (avail < sizeof(hdr) || hdr.size < sizeof(hdr) || hdr.size % 8 ||
	    hdr.size > avail) {
		r->corrupt++;
		r->tail = r->head;
		return -EBADMSG;
	}
	if (off + hdr.size <= r->size) {
		h = (const struct perf_event_header *)(r->data + off);
	} else {
		first = r->size - off;
		memcpy(r->scratch, r->data + off, first);
		memcpy(r->scratch + first, r->data, hdr.size - first);
		h = (const struct perf_event_header *)r->scratch;
		r->wrapped++;
	}
	r->tail += hdr.size;
	*rec = h;
	return 1;
}

void
rec_ring_end(struct rec_ring *r)
{
	/* Our reads of the records happen before the kernel reuses them. */
	__atomic_store_n(&r->meta->data_tail, r->tail, __ATOMIC_RELEASE);
}
