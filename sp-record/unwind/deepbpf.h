/*
 * deepbpf.h: more of a deep stack, copied at its sample by the BPF
 * program bpf/deepcopy.c.
 *
 * The kernel copies at most 64 KiB of a sample's user stack (32 KiB by
 * default); what lies above is read from the process afterwards
 * (deepstack.h), and a deep stack that changed in between is refused:
 * a compiler's main thread changes its deep middle faster than the
 * recorder reads it.  So a thread found deep (the unwinder read past
 * the copy) is registered with the program, which then copies up to
 * DEEPBPF_MAX bytes more at each of its samples, at the same instant
 * as the kernel's copy, into a ring buffer.  The recorder pairs each
 * copy with its sample as it leaves the ring (same thread, same SP, its
 * time just before the sample's) and hands the unwinder the two as one
 * copy.  The program is loaded at the start (a few ms: threads made
 * before a later load would keep their events without it) and goes on
 * to the Python stack reader (pybpf.h) by a tail call once that is
 * loaded.
 *
 *   d = rec_deepbpf_open(skip, max, why);  attach rec_deepbpf_prog_fd(d)
 *   drain:   rec_deepbpf_consume(d), then rec_deepbpf_take(d, ...) with
 *            each sample whose copy is full
 *   handle:  rec_deepbpf_want(d, tid, lo, hi)   a deep sample
 *            rec_deepbpf_forget(d, tid)          the thread ended
 */
#ifndef SP_RECORD_UNWIND_DEEPBPF_H
#define SP_RECORD_UNWIND_DEEPBPF_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct rec_deepbpf;

struct rec_deepbpf_stats {
	uint64_t copies;   /* records read from the ring buffer */
	uint64_t taken;    /* ... paired with their sample */
	uint64_t unpaired; /* ... dropped without a sample */
	uint64_t empty;    /* ... whose copy faulted (a page not in memory) */
	uint64_t bytes;    /* bytes of the copies taken */
};

/*
 * Loads the program: copies start `skip` bytes above the sample's SP (the
 * kernel's copy) and go on for at most `max`.  NULL with `why` set when
 * it cannot be loaded.
 */
struct rec_deepbpf *rec_deepbpf_open(uint32_t skip, uint32_t max,
				     struct sp_buf *why);
void rec_deepbpf_free(struct rec_deepbpf *d);
/* The program to attach to the sampling events. */
int rec_deepbpf_prog_fd(const struct rec_deepbpf *d);
/* Has the program go on to `prog_fd` (the Python reader); 0 or -errno. */
int rec_deepbpf_set_next(struct rec_deepbpf *d, int prog_fd);
/* Reads the copies the ring buffer holds; 0 or -errno. */
int rec_deepbpf_consume(struct rec_deepbpf *d);

/*
 * The copy taken at the sample of thread `tid` at `ts` whose user SP was
 * `sp`: its bytes (valid until the next take) and their number; NULL
 * when there is none.  Copies older than the sample are dropped.
 */
const uint8_t *rec_deepbpf_take(struct rec_deepbpf *d, int32_t tid, uint64_t ts,
				uint64_t sp, size_t *len);

/*
 * A stack of thread `tid` of `pid` went past the sample's copy, its SP in
 * the mapping [lo, hi), and was cut: after a few such in the process,
 * copy more at the thread's samples from now on, while its SP is there.
 */
void rec_deepbpf_want(struct rec_deepbpf *d, int32_t pid, int32_t tid,
		      uint64_t lo, uint64_t hi);
/* Thread `tid` of `pid` ended (the process, when they are equal). */
void rec_deepbpf_forget(struct rec_deepbpf *d, int32_t pid, int32_t tid);

const struct rec_deepbpf_stats *rec_deepbpf_stats(const struct rec_deepbpf *d);

#endif
