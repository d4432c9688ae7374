/*
 * pystack.h: the Python stacks of a running CPython 3.8-3.13 process,
 * read from its memory without stopping it or asking it anything.
 *
 *   struct rec_pystack *py = rec_pystack_attach(files, pid, &why);
 *   n = rec_pystack_read(py, tid, frames, REC_PYSTACK_MAX_DEPTH, &truncated);
 *   ... frames[0] is the innermost Python frame, frames[n-1] the module
 *   rec_pystack_free(py);
 *
 * A thread is found through _PyRuntime's interpreters and their thread
 * states.  3.11+ keep the thread's kernel id; 3.8-3.10 keep only its
 * pthread_t, and the kernel id is read from glibc's struct pthread at the
 * offset where this process's own glibc keeps it (a target with another
 * libc has no stacks: -ENOTSUP).
 *
 * The chain is read while the target runs, so it may change under the
 * reader: a frame seen twice, an address outside the writable mappings,
 * a code object whose type is not PyCode_Type, a chain ending at a
 * generator or a read past the byte budget ends the stack with
 * *truncated set.  The innermost frame is read before and after each
 * walk, and a walk during which it changed (a call or a return, whose
 * frame memory is soon reused) is done again, then given up; this
 * narrows the window for mixed stacks without closing it.
 * Code objects are read once each and kept by address (checked on every
 * use by their fields' pointers).  A sample costs one system call for
 * the pages the thread's last sample used (its thread state, _PyCFrame,
 * frames), one for the headers of all its code objects followed by the
 * pages of the leaf again, a call per page missed, and the names and
 * line tables of code objects not seen before.
 */
#ifndef SP_RECORD_PYTHON_PYSTACK_H
#define SP_RECORD_PYTHON_PYSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "sp-record/bpf/pybpf_abi.h"
#include "sp-record/python/pycode.h"
#include "sp-record/python/pyfind.h"

struct rec_pystack;
struct rec_pymem;

/* At most this many frames are walked (C-stack shims included: twice). */
#define REC_PYSTACK_MAX_DEPTH 128
/* What one rec_pystack_read call may read, code objects included. */
#define REC_PYSTACK_SAMPLE_BYTES (256 * 1024)

struct rec_pystack_frame {
	const struct rec_pycode *code; /* valid until rec_pystack_free */
	int32_t line;                  /* the line executing, -1 unknown */
	uint32_t offset; /* byte offset of the instruction in the code */
	/*
	 * The frame is the outermost one of its evaluator call: the
	 * native _PyEval_EvalFrameDefault frame that ran it ran no frame
	 * beneath it.  Always true for 3.8-3.10, where every call has
	 * its own evaluator frame.
	 */
	bool entry;
};

/*
 * Finds the CPython runtime of `pid` (pyfind.h, reading module files
 * through `files`, NULL for none) and its layout.  Returns
 * the reader, or NULL with errno set and the reason appended to `why`
 * (ENOENT: not CPython; ENOTSUP: a version outside 3.8-3.13, e.g.
 * "python3.14: layout unknown"; ESRCH: gone; EACCES; ENOMEM).
 */
struct rec_pystack *rec_pystack_attach(struct rec_pyfind_files *files,
				       int32_t pid, struct sp_buf *why);

/*
 * Reads the Python stack of thread `tid` into out[0..max), innermost
 * first, and returns how many frames it read; *truncated tells whether
 * the stack goes on (its read stopped at max, or at an inconsistency).
 * Returns -ENOENT when the thread has no Python thread state (a native
 * thread, or Python not started), -ESRCH when the process is gone,
 * -ENOTSUP when the thread cannot be told (3.8-3.10 without the pthread
 * offset), -ENOMEM; rec_pystack_why() then says what happened.
 */
int rec_pystack_read(struct rec_pystack *py, int32_t tid,
		     struct rec_pystack_frame *out, size_t max,
		     bool *truncated);

/*
 * The layout of the reader's process for the BPF program (pybpf.h).
 * Returns 0, or -ENOTSUP when threads cannot be told apart (3.8-3.10
 * without the pthread offset).
 */
int rec_pystack_bpf_proc(const struct rec_pystack *py, struct pybpf_proc *p);

/*
 * The frames of a stack the BPF program read at a sample, one at a time
 * (reader.c keeps what a thread's next stack shares with its last):
 * rec_pystack_bpf_begin() starts a sample's reads; rec_pystack_bpf_shim() tells
 * a C-stack shim (3.12+), which is no frame but makes the frame inside it an
 * entry; rec_pystack_bpf_frame() gives a frame (its own entry flag only),
 * reading a code not seen before (its names and line table), and
 * returns 0, -ENOMEM, or -ESTALE when that code is gone since (a
 * module's body, freed once run) and was not seeded with its strings by
 * rec_pystack_bpf_seed(); rec_pystack_bpf_root() tells whether a
 * chain whose outermost frame is `f`, running `code`, ends where a
 * thread's chain ends.
 */
void rec_pystack_bpf_begin(struct rec_pystack *py);
/*
 * Keeps the code the BPF program met first with its strings as it copied
 * them at the sample (pybpf_abi.h); 0, -EBADMSG or -ENOMEM.
 */
int rec_pystack_bpf_seed(struct rec_pystack *py, const struct pybpf_code *c);
bool rec_pystack_bpf_shim(const struct rec_pystack *py,
			  const struct pybpf_frame *f);
int rec_pystack_bpf_frame(struct rec_pystack *py, const struct pybpf_frame *f,
			  struct rec_pystack_frame *out);
bool rec_pystack_bpf_root(const struct rec_pystack *py,
			  const struct pybpf_frame *f,
			  const struct rec_pycode *code);

/* The last failure's message, or "" (valid until the next call). */
const char *rec_pystack_why(const struct rec_pystack *py);

/* The target's CPython minor version (3.minor). */
unsigned rec_pystack_minor(const struct rec_pystack *py);

/* What rec_pyfind found: the runtime, the types, the evaluator's code. */
const struct rec_pyfind_target *
rec_pystack_target(const struct rec_pystack *py);

/* Bytes read from the target so far, for cost accounting. */
uint64_t rec_pystack_bytes_read(const struct rec_pystack *py);

/*
 * The reader's reads of the process (pymem.h): for its costs, its
 * faults, and to tick and mark its maps.  Valid while `py` is.
 */
struct rec_pymem *rec_pystack_mem(struct rec_pystack *py);

/* Stacks given up (0 frames, truncated) because they kept changing. */
uint64_t rec_pystack_unstable(const struct rec_pystack *py);

/* Frees the reader and every code it made; NULL is allowed. */
void rec_pystack_free(struct rec_pystack *py);

#endif
