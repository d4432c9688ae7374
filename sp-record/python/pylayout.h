/*
 * pylayout.h: where CPython 3.8-3.13 (x86-64) keep what a stack reader
 * needs: the runtime's interpreter list, each interpreter's thread
 * states, each thread's current frame, the frame chain, code objects and
 * str objects.
 *
 * 3.8-3.12 come from tables taken from each version's headers; 3.13
 * describes itself in the _Py_DebugOffsets at the start of _PyRuntime,
 * which rec_pylayout_debug() decodes.
 */
#ifndef SP_RECORD_PYTHON_PYLAYOUT_H
#define SP_RECORD_PYTHON_PYLAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "sp-record/python/pydecode.h"

/* An offset that the version does not have. */
#define REC_PYLAYOUT_NONE UINT32_MAX

/* How a thread's frames are chained. */
enum rec_pylayout_frames {
	REC_PY_FRAMEOBJ, /* 3.8-3.10: PyFrameObject, f_lasti an int */
	REC_PY_IFRAME, /* 3.11+: _PyInterpreterFrame, an instruction pointer */
};

struct rec_pylayout {
	unsigned minor; /* 3.minor */
	enum rec_pylayout_frames frames;
	enum rec_pydecode_lines lines;
	/* _PyRuntimeState and PyInterpreterState */
	uint32_t rt_interp_head, is_next, is_threads_head;
	/*
	 * Which of a thread's states (one an interpreter it ran) runs now:
	 * 3.8-3.11 have one GIL and the state that holds it at
	 * rt_tstate_current (gilstate.tstate_current); 3.12+ mark each
	 * state current for its thread with the `active` bit
	 * (REC_PYLAYOUT_TS_ACTIVE) of the word at ts_status (_status).
	 */
	uint32_t rt_tstate_current, ts_status;
	/* PyThreadState; ts_frame is the frame (3.8-3.10), the _PyCFrame
	 * (3.11, 3.12, then cf_current_frame inside it) or the current
	 * frame (3.13) */
	uint32_t ts_next, ts_thread_id, ts_native_tid, ts_frame;
	uint32_t cf_current_frame;
	/* frames: f_back or previous, f_code or f_executable, f_lasti or
	 * the instruction pointer, owner and is_entry (3.11+) */
	uint32_t fr_back, fr_code, fr_instr, fr_owner, fr_is_entry;
	/* code objects; co_lines is co_lnotab or co_linetable; co_flags
	 * only where frames do not say who owns them (3.8-3.10) */
	uint32_t co_name, co_qualname, co_filename, co_firstlineno;
	uint32_t co_lines, co_code, co_flags;
	/* 8 bytes that tell code objects apart where the other pointers do
	 * not: co_code (3.8-3.10: its bytecode, allocated by its size),
	 * ob_size (3.11+: the bytecode's length) */
	uint32_t co_shape;
	/* the bytes read of each: every offset above plus its field */
	uint32_t ts_span, fr_span, co_span;
	struct rec_pydecode_strlayout str;
};

/* The most bytes read of any one struct (ts_span, fr_span, co_span). */
#define REC_PYLAYOUT_SPAN_MAX 1024

/* The `active` bit of PyThreadState._status (3.12, 3.13). */
#define REC_PYLAYOUT_TS_ACTIVE (1u << 4)

/* The frame owner of C-stack shim frames (3.12+), never a function. */
#define REC_PYLAYOUT_OWNED_BY_CSTACK 3

/* Bytes of _Py_DebugOffsets that rec_pylayout_debug() reads. */
#define REC_PYLAYOUT_DEBUG_SIZE (73 * 8)

/*
 * Fills *l for CPython 3.`minor` from the built-in tables.  Returns 0,
 * or -ENOTSUP for a version without one (3.13+ describe themselves).
 */
int rec_pylayout_table(unsigned minor, struct rec_pylayout *l);

/*
 * Fills *l from the `len` bytes of _Py_DebugOffsets at the start of a
 * 3.13 _PyRuntime (at least REC_PYLAYOUT_DEBUG_SIZE).  Returns 0, or
 * -EBADMSG (a message in `why`) when the cookie, the version or an offset
 * is not what 3.13 has, or -ENOTSUP for a free-threaded build.
 */
int rec_pylayout_debug(const uint8_t *raw, size_t len, struct rec_pylayout *l,
		       struct sp_buf *why);

#endif
