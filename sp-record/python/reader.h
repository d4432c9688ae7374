/*
 * reader.h: the Python annotator: the Python stack of each sampled thread
 * of a CPython process, read as soon as its sample is seen and written as
 * pycode, pynode and pystack records before the sample (ext_py.h).
 *
 *   a = rec_reader_new(out);
 *   drain:   rec_reader_read(a, pid, tid, ts)    a sample just out of a ring
 *            rec_reader_exec(a, pid)             its exec
 *            rec_reader_forget(a, pid)           its end
 *            rec_reader_mapped(a, pid)           a libpython mapped
 *            rec_reader_maps_changed(a, pid)     anything mapped
 *   handle:  rec_reader_write(a, pid, tid, ts, frames, n)  before it
 *
 * Reading at the drain, not when the sorter hands the sample on, narrows
 * the time between the sample and its Python chain from a sorter round
 * to the ring's latency.  The chain is then tied to the sample's native
 * stack: the evaluator frames (_PyEval_EvalFrameDefault) the unwinder
 * found must be as many as the chain's entry frames, else the pystack
 * is written inconsistent, without groups.  --ptrace reads while the
 * thread is stopped (ts 0: the next sample of that thread).
 *
 * A process is attached at its first sample (rec_pystack_attach); one that is
 * not CPython, or whose version is refused, is remembered and its
 * samples go out as before; the reason is kept for the summary.  One
 * whose reads keep meeting bad pointers is given up (its samples go out
 * with an empty truncated stack, unread, one in 1,024 read to see
 * whether its chain healed), and counted.
 */
#ifndef SP_RECORD_PYTHON_READER_H
#define SP_RECORD_PYTHON_READER_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/spool.h"
#include "sp-record/out/spoolout.h"

struct rec_reader;
struct rec_pybpf;

struct rec_reader_stats {
	uint64_t stacks;       /* pystack records written */
	uint64_t truncated;    /* of which the chain was cut */
	uint64_t inconsistent; /* of which the chain did not fit the stack */
	uint64_t failed;       /* reads that found no thread state or failed */
	uint64_t processes;    /* CPython processes attached */
	uint64_t at_sample;    /* stacks read at their sample by BPF */
	uint64_t entering;     /* of the written, tied with one evaluator
				* frame left native (a call entered or left) */
	uint64_t known_plain;  /* processes not probed: their executable's
				* were found without an interpreter */
	uint64_t gave_up;      /* processes whose frame chains kept meeting
				* bad pointers: their samples are not read */
	uint64_t gave_up_samples; /* samples of theirs not read */
	uint64_t maps_rereads;    /* /proc/PID/maps read again by readers */
};

/* An annotator writing through `out` (borrowed); NULL with errno set. */
struct rec_reader *rec_reader_new(struct rec_spoolout *out);
void rec_reader_free(struct rec_reader *a);
/*
 * Has the BPF program `b` (borrowed) read the stacks of the processes
 * attached, and to be attached, at their samples (pybpf.h).
 */
void rec_reader_set_bpf(struct rec_reader *a, struct rec_pybpf *b);

/*
 * Reads the Python stack of thread `tid` of `pid` now and keeps it for
 * the sample of time `ts`.  New functions and nodes are written at once
 * (they precede the sample).  Returns 0 or the output's negative errno.
 */
int rec_reader_read(struct rec_reader *a, int32_t pid, int32_t tid,
		    uint64_t ts);
/* `pid` ran exec or ended: its reader no longer applies. */
void rec_reader_forget(struct rec_reader *a, int32_t pid);
/*
 * `pid` ran exec: its reader no longer applies, and until it maps an
 * interpreter (rec_reader_mapped), its executable alone tells whether it
 * is CPython: one whose processes were probed plain is not probed again.
 */
void rec_reader_exec(struct rec_reader *a, int32_t pid);
/*
 * `pid` mapped something (an MMAP2 record): its reader, if any, may
 * read its maps again when an address misses them (pymem.h).
 */
void rec_reader_maps_changed(struct rec_reader *a, int32_t pid);
/*
 * `pid` mapped an interpreter (its modules changed): unless a reader is
 * attached or its version was refused, it is probed at its next sample.
 */
void rec_reader_mapped(struct rec_reader *a, int32_t pid);
/*
 * Writes the pystack kept for sample (tid, ts) of `pid` (or for tid, read with
 * ts 0), given its native frames[0..n), leaf first; nothing when none was kept.
 * Returns 0 or the output's negative errno.
 */
int rec_reader_write(struct rec_reader *a, int32_t pid, int32_t tid,
		     uint64_t ts, const struct sp_frame *frames, size_t n);

const struct rec_reader_stats *rec_reader_stats(const struct rec_reader *a);
/*
 * Why processes that look like Python have no Python frames: one line
 * each reason, "python3.14: layout unknown (2 processes)", without the
 * program's prefix; empty when none.  Valid until the next call.
 */
const char *rec_reader_notes(struct rec_reader *a);

#endif
