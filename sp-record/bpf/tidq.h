/*
 * tidq.h: records a BPF program wrote at samples (pybpf.h, deepbpf.h),
 * kept by thread until the recorder meets their samples.
 *
 * A program runs in the sample's interrupt, before the sample is
 * written, so a thread's records come in the order of its samples, each
 * a few microseconds before its sample's time: the record of a sample is
 * the oldest of its thread's still kept, within PAIR_NS of the sample;
 * older ones are of samples the recorder never saw (a full perf ring).
 */
#ifndef SP_RECORD_BPF_TIDQ_H
#define SP_RECORD_BPF_TIDQ_H

#include <stdint.h>

struct rec_tidq;

/* Records kept for one thread at most; its oldest goes past that. */
#define REC_TIDQ_MAX 256

/* The table, or NULL when memory ran out. */
struct rec_tidq *rec_tidq_new(void);
void rec_tidq_free(struct rec_tidq *q);

/*
 * Keeps `rec` (malloc'd, now the table's) of thread `tid` of `pid`,
 * written at `ts`.  Returns 0, or -ENOMEM (`rec` freed).  Adds to
 * *dropped the records that went to make room.
 */
int rec_tidq_push(struct rec_tidq *q, int32_t pid, int32_t tid, uint64_t ts,
		  void *rec, uint64_t *dropped);
/*
 * The record of the sample of thread `tid` at `ts`, the table's until
 * the next take; NULL when there is none.  Adds the older records,
 * dropped, to *dropped.
 */
void *rec_tidq_take(struct rec_tidq *q, int32_t tid, uint64_t ts,
		    uint64_t *dropped);
/* Drops the records of thread `tid`, or of every thread of `pid`. */
void rec_tidq_drop_thread(struct rec_tidq *q, int32_t tid);
void rec_tidq_drop_process(struct rec_tidq *q, int32_t pid);

#endif
