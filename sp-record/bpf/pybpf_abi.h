/*
 * pybpf_abi.h: what sp-record and its BPF program (bpf/pyframes.c) tell
 * each other: the layout of a CPython process's structures (in), and the
 * Python stack read at a sample (out).  Plain fixed-size types only: the
 * BPF compiler and the host compiler both read this file.
 */
#ifndef SP_RECORD_BPF_PYBPF_ABI_H
#define SP_RECORD_BPF_PYBPF_ABI_H

#include <linux/types.h>

/* Frames one sample reads at most (C-stack shims included). */
#define PYBPF_MAX_FRAMES 128 /* a power of two: indexes are masked */
/* An offset the version does not have (REC_PYLAYOUT_NONE). */
#define PYBPF_NONE 0xffffffffu

/*
 * How a process's threads and frames are laid out (pylayout.h).  A frame
 * or code field the version lacks (fr_owner, fr_is_entry, co_qualname,
 * co_flags) is given as offset 0: read, and not looked at.
 */
struct pybpf_proc {
	__u64 runtime;     /* &_PyRuntime */
	__u64 code_type;   /* &PyCode_Type */
	__u32 frameobj;    /* 1: 3.8-3.10 PyFrameObject, f_lasti an int */
	__s32 pthread_tid; /* the kernel tid in struct pthread, -1 */
	__u32 rt_interp_head, is_next, is_threads_head;
	/* which of a thread's states runs (pylayout.h), PYBPF_NONE; the
	 * bit of the status word saying it */
	__u32 rt_tstate_current, ts_status, ts_active;
	__u32 ts_next, ts_thread_id, ts_native_tid, ts_frame;
	__u32 cf_current_frame;
	__u32 fr_back, fr_code, fr_instr, fr_owner, fr_is_entry;
	__u32 co_name, co_qualname, co_filename, co_firstlineno, co_lines;
	__u32 co_flags;
	__u32 co_shape;
};

/* One frame as read: its code object's fingerprint (pycode.h) too. */
struct pybpf_frame {
	__u64 code;  /* the code object's address */
	__u64 instr; /* the instruction pointer (3.11+) or f_lasti */
	__u64 type, name, qualname, filename, lines; /* of the code */
	__u64 shape;
	__s32 firstlineno;
	__u32 flags;
	__u8 owner, entry;
	__u8 pad[6];
};

/* What a sample's read ended with. */
enum pybpf_status {
	PYBPF_OK = 0,
	PYBPF_NO_TSTATE = 1, /* no thread state of this thread (yet) */
	PYBPF_FAULT = 2,     /* a read failed: the chain is cut there */
	PYBPF_DEEP = 3,      /* PYBPF_MAX_FRAMES read, the chain goes on */
	PYBPF_CODE = 4,      /* not a stack: a struct pybpf_code */
	/*
	 * The thread has states in several interpreters and which of them
	 * runs cannot be told (none is current, or several): no frames.
	 */
	PYBPF_AMBIGUOUS = 5,
};

/*
 * Or'ed into a status: the thread runs the state read inside a call from
 * another interpreter's (another of its states holds frames), so
 * the chain lacks the thread's outer frames.
 */
#define PYBPF_NESTED 0x100
/*
 * Or'ed into a status: the thread's one state among several
 * interpreters' is not known to run (3.8-3.11: it does not hold the GIL),
 * so another thread may run this one's innermost calls in a state of its
 * own (a subinterpreter it made): the chain is tied as read late.
 */
#define PYBPF_IDLE 0x200
/* The status without the flags above. */
#define PYBPF_STATUS(s) ((s)&0xff)

/* A record of the ring buffer: n frames follow, innermost first. */
struct pybpf_stack {
	__u64 ts; /* CLOCK_MONOTONIC, just before the sample's own */
	__u32 pid, tid;
	__u32 n, status;
	struct pybpf_frame f[PYBPF_MAX_FRAMES];
};

#define PYBPF_HEAD_SIZE 24 /* the bytes of pybpf_stack before f[] */

/*
 * The bytes of a str object copied from its start (header, then the
 * first characters); a longer name is read late.  PYBPF_STR_MIN when the
 * full copy fails (a page past the object not mapped).
 */
#define PYBPF_NAME_RAW 256
#define PYBPF_FILE_RAW 512
#define PYBPF_LINES_RAW 1024 /* the line table's bytes object */
#define PYBPF_STR_MIN 96

/*
 * A code object met for the first time (in its process, at its address,
 * with its fingerprint): the str objects of its name (co_qualname where
 * the version has it) and file name, and the bytes object of its line
 * table, as they were at the sample.  A module's body is freed with them
 * once it has run, before sp-record reads them.  Written to the ring buffer
 * before the stack that holds the frame, with the head of a pybpf_stack: n 0,
 * status PYBPF_CODE.
 */
struct pybpf_code {
	__u64 ts;
	__u32 pid, tid;
	__u32 n, status;
	struct pybpf_frame f;
	__u32 name_len, file_len, lines_len; /* bytes copied, or 0 */
	__u32 pad;
	__u8 name[PYBPF_NAME_RAW];
	__u8 file[PYBPF_FILE_RAW];
	__u8 lines[PYBPF_LINES_RAW];
};

#endif
