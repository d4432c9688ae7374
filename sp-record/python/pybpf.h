/*
 * pybpf.h: Python stacks read by the kernel at the sample (bpf/pyframes.c)
 * and handed to the Python annotator by the sample they belong to.
 *
 *   b = rec_pybpf_open(&why);            NULL: read late, as before
 *   rec_events_attach_bpf(ev, rec_pybpf_prog_fd(b));  events open or not
 *   rec_pybpf_add(b, pid, &proc);         a CPython process attached
 *   rec_pybpf_on_code(b, fn, ctx);        fn(ctx, code): a code's strings
 *   drain:  rec_pybpf_consume(b);         before the perf rings are read
 *           rec_pybpf_take(b, tid, ts)    the stack of sample (tid, ts)
 *   rec_pybpf_remove(b, pid);             its exec or its end
 *
 * The program runs in the sample's overflow handler before the sample is
 * written, so each stack is in the ring buffer before its sample is in a
 * perf ring, with a time stamp of the same clock a little before the
 * sample's: a thread's stacks and samples pair off in time order.  A
 * sample whose stack is missing (its record was dropped when the ring
 * buffer was full) gets none, and the annotator reads one late.
 */
#ifndef SP_RECORD_PYTHON_PYBPF_H
#define SP_RECORD_PYTHON_PYBPF_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "sp-record/bpf/pybpf_abi.h"

struct rec_pybpf;

struct rec_pybpf_stats {
	uint64_t stacks;   /* records read from the ring buffer */
	uint64_t taken;    /* ... paired with their sample */
	uint64_t unpaired; /* ... dropped without a sample */
	uint64_t faults;   /* ... cut by a read that failed */
	uint64_t codes;    /* code objects' strings read at a sample */
};

/* Takes a code object's strings (valid during the call); 0 or -errno. */
typedef int rec_pybpf_code_fn(void *ctx, const struct pybpf_code *c);

/*
 * Loads the program.  Returns NULL with the reason in `why` when BPF is
 * not there or not allowed (no CAP_BPF, a kernel without it).
 */
struct rec_pybpf *rec_pybpf_open(struct sp_buf *why);
void rec_pybpf_free(struct rec_pybpf *b);

/* The program, to attach to every sampling event. */
int rec_pybpf_prog_fd(const struct rec_pybpf *b);

/* Reads the stacks of process `pid`, laid out as `p`; 0 or -errno. */
int rec_pybpf_add(struct rec_pybpf *b, int32_t pid, const struct pybpf_proc *p);
/* Stops reading `pid`'s stacks and drops those not taken. */
void rec_pybpf_remove(struct rec_pybpf *b, int32_t pid);

/*
 * Has rec_pybpf_consume() hand each code object's strings to `fn`, as
 * they come, before the stacks that need them.
 */
void rec_pybpf_on_code(struct rec_pybpf *b, rec_pybpf_code_fn *fn, void *ctx);

/* Moves the ring buffer's stacks to their threads' queues; 0 or -errno. */
int rec_pybpf_consume(struct rec_pybpf *b);

/*
 * The stack read at sample (tid, ts), and the older ones of tid dropped;
 * NULL when there is none.  Valid until the next call.
 */
const struct pybpf_stack *rec_pybpf_take(struct rec_pybpf *b, int32_t tid,
					 uint64_t ts);

const struct rec_pybpf_stats *rec_pybpf_stats(const struct rec_pybpf *b);

#endif
