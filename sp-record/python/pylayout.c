/*
 * pylayout.c: the offsets of CPython 3.8-3.12 on x86-64, and 3.13's
 * _Py_DebugOffsets decoded (see pylayout.h).
 *
 * Each table's offsets come from that version's headers, named by field
 * as CPython names it: _PyRuntimeState (Include/internal/
 * pycore_pystate.h in 3.8, pycore_runtime.h from 3.9),
 * PyInterpreterState (pycore_pystate.h in 3.8, pycore_interp.h from
 * 3.9), PyThreadState (Include/cpython/pystate.h), PyFrameObject
 * (Include/frameobject.h in 3.8, Include/cpython/frameobject.h in 3.9 and
 * 3.10), _PyInterpreterFrame (Include/internal/pycore_frame.h),
 * PyCodeObject (Include/code.h in 3.8, Include/cpython/code.h from 3.9)
 * and PyASCIIObject (Include/cpython/unicodeobject.h).  They were checked
 * with offsetof() against the installed headers of 3.8.18, 3.9.18,
 * 3.10.13, 3.11.7, 3.12.1 and 3.13.0, and by reading live processes of
 * each (tests/unit/check_record_py.c).
 */
#include <errno.h>
#include <string.h>

#include "sp-record/python/pylayout.h"
#include "common/banned.h"

#define NONE REC_PYLAYOUT_NONE

/*
 * 3.8 and 3.9 share every offset used here but gilstate's; 3.10 moved
 * f_lasti.
 */
static const struct rec_pylayout py38 = {
	.minor = 8,
	.frames = REC_PY_FRAMEOBJ,
	.lines = REC_PY_LNOTAB,
	.rt_interp_head = 32,     /* interpreters.head */
	.rt_tstate_current = 568, /* 3.9, 3.10; 3.8: 1368 */
	.ts_status = NONE,
	.is_next = 0,
	.is_threads_head = 8, /* tstate_head */
	.ts_next = 8,
	.ts_thread_id = 176,
	.ts_native_tid = NONE, /* a pthread_t only, see pystack.c */
	.ts_frame = 24,        /* frame */
	.cf_current_frame = NONE,
	.fr_back = 24,   /* f_back */
	.fr_code = 32,   /* f_code */
	.fr_instr = 104, /* f_lasti, in bytes */
	.fr_owner = NONE,
	.fr_is_entry = NONE,
	.co_name = 112,
	.co_qualname = NONE,
	.co_filename = 104,
	.co_firstlineno = 40,
	.co_lines = 120, /* co_lnotab */
	.co_code = NONE,
	.co_flags = 36,
	.co_shape = 48, /* co_code: the bytecode, sized by it */
	.str = { .length = 16,
		 .state = 32,
		 .ascii_size = 48,
		 .compact_size = 72 },
};

static const struct rec_pylayout py311 = {
	.minor = 11,
	.frames = REC_PY_IFRAME,
	.lines = REC_PY_LOCATIONS,
	.rt_interp_head = 40,
	.rt_tstate_current = 576,
	.ts_status = NONE,
	.is_next = 0,
	.is_threads_head = 16, /* threads.head */
	.ts_next = 8,
	.ts_thread_id = 152,
	.ts_native_tid = 160,
	.ts_frame = 56,        /* cframe */
	.cf_current_frame = 8, /* after use_tracing */
	.fr_back = 48,         /* previous */
	.fr_code = 32,         /* f_code */
	.fr_instr = 56,        /* prev_instr */
	.fr_owner = 69,
	.fr_is_entry = 68,
	.co_name = 120,
	.co_qualname = 128,
	.co_filename = 112,
	.co_firstlineno = 72,
	.co_lines = 136, /* co_linetable */
	.co_code = 184,  /* co_code_adaptive */
	.co_flags = NONE,
	.co_shape = 16,
	.str = { .length = 16,
		 .state = 32,
		 .ascii_size = 48,
		 .compact_size = 72 },
};

/* 3.12: PyASCIIObject lost wstr; frames start with f_code. */
static const struct rec_pylayout py312 = {
	.minor = 12,
	.frames = REC_PY_IFRAME,
	.lines = REC_PY_LOCATIONS,
	.rt_interp_head = 40,
	.rt_tstate_current = NONE, /* one GIL an interpreter */
	.ts_status = 24,
	.is_next = 0,
	.is_threads_head = 72,
	.ts_next = 8,
	.ts_thread_id = 136,
	.ts_native_tid = 144,
	.ts_frame = 56,        /* cframe */
	.cf_current_frame = 0, /* use_tracing is gone */
	.fr_back = 8,
	.fr_code = 0,
	.fr_instr = 56, /* prev_instr */
	.fr_owner = 70,
	.fr_is_entry = NONE, /* entry frames are FRAME_OWNED_BY_CSTACK */
	.co_name = 120,
	.co_qualname = 128,
	.co_filename = 112,
	.co_firstlineno = 68,
	.co_lines = 136,
	.co_code = 192,
	.co_flags = NONE,
	.co_shape = 16,
	.str = { .length = 16,
		 .state = 32,
		 .ascii_size = 40,
		 .compact_size = 56 },
};

/* The largest of the offsets given, plus 8 bytes for its field. */
static uint32_t
span(const uint32_t *off, size_t n)
{
	uint32_t m = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (off[i] != NONE && off[i] + 8 > m)
			m = off[i] + 8;
	return m;
}

static void
set_spans(struct rec_pylayout *l)
{
	uint32_t ts[] = { l->ts_next, l->ts_thread_id, l->ts_native_tid,
			  l->ts_frame, l->ts_status };
	uint32_t fr[] = { l->fr_back, l->fr_code, l->fr_instr, l->fr_owner,
			  l->fr_is_entry };
	uint32_t co[] = { l->co_name,     l->co_qualname,
			  l->co_filename, l->co_firstlineno,
			  l->co_lines,    l->co_flags,
			  l->co_shape,    8 /* ob_type */ };

	l->ts_span = span(ts, sizeof(ts) / sizeof(ts[0]));
	l->fr_span = span(fr, sizeof(fr) / sizeof(fr[0]));
	l->co_span = span(co, sizeof(co) / sizeof(co[0]));
}

int
rec_pylayout_table(unsigned minor, struct rec_pylayout *l)
{
	if (minor == 8 || minor == 9) {
		*l = py38;
		if (minor == 8)
			l->rt_tstate_current = 1368;
	} else if (minor == 10) {
		/* f_lasti moved and counts code units; co_linetable
		 * took co_lnotab's place. */
		*l = py38;
		l->lines = REC_PY_LINES310;
		l->fr_instr = 96;
	} else if (minor == 11) {
		*l = py311;
	} else if (minor == 12) {
		*l = py312;
	} else {
		return -ENOTSUP;
	}
	l->minor = minor;
	set_spans(l);
	return 0;
}

/*
 * Word indexes into 3.13's _Py_DebugOffsets (Include/internal/
 * pycore_runtime.h of 3.13.0): every field is a uint64_t, in this order.
 */
enum {
	D_VERSION = 1,
	D_FREE_THREADED = 2,
	D_RT_INTERP_HEAD = 5,
	D_IS_NEXT = 8,
	D_IS_THREADS_HEAD = 9,
	D_TS_NEXT = 21,
	D_TS_CURRENT_FRAME = 23,
	D_TS_THREAD_ID = 24,
	D_TS_NATIVE_TID = 25,
	D_TS_STATUS = 27,
	D_FR_PREVIOUS = 29,
	D_FR_EXECUTABLE = 30,
	D_FR_INSTR_PTR = 31,
	D_FR_OWNER = 33,
	D_CO_FILENAME = 35,
	D_CO_NAME = 36,
	D_CO_QUALNAME = 37,
	D_CO_LINETABLE = 38,
	D_CO_FIRSTLINENO = 39,
	D_CO_CODE = 43,
	D_U_STATE = 68,
	D_U_LENGTH = 69,
	D_U_ASCII_SIZE = 70,
};

/* Word `i` as an offset: bounded, so that a wild one reads nothing. */
static int
doff(const uint8_t *raw, int i, uint32_t *out)
{
	uint64_t v;

	memcpy(&v, raw + 8 * i, 8);
	if (v >= 1 << 16)
		return -EBADMSG;
	*out = (uint32_t)v;
	return 0;
}

static int
debug_offsets(const uint8_t *raw, struct rec_pylayout *l)
{
	uint32_t u_ascii = 0;
	int rc = 0;

	rc |= doff(raw, D_RT_INTERP_HEAD, &l->rt_interp_head);
	rc |= doff(raw, D_IS_NEXT, &l->is_next);
	rc |= doff(raw, D_IS_THREADS_HEAD, &l->is_threads_head);
	rc |= doff(raw, D_TS_NEXT, &l->ts_next);
	rc |= doff(raw, D_TS_CURRENT_FRAME, &l->ts_frame);
	rc |= doff(raw, D_TS_THREAD_ID, &l->ts_thread_id);
	rc |= doff(raw, D_TS_NATIVE_TID, &l->ts_native_tid);
	rc |= doff(raw, D_TS_STATUS, &l->ts_status);
	rc |= doff(raw, D_FR_PREVIOUS, &l->fr_back);
	rc |= doff(raw, D_FR_EXECUTABLE, &l->fr_code);
	rc |= doff(raw, D_FR_INSTR_PTR, &l->fr_instr);
	rc |= doff(raw, D_FR_OWNER, &l->fr_owner);
	rc |= doff(raw, D_CO_FILENAME, &l->co_filename);
	rc |= doff(raw, D_CO_NAME, &l->co_name);
	rc |= doff(raw, D_CO_QUALNAME, &l->co_qualname);
	rc |= doff(raw, D_CO_LINETABLE, &l->co_lines);
	rc |= doff(raw, D_CO_FIRSTLINENO, &l->co_firstlineno);
	rc |= doff(raw, D_CO_CODE, &l->co_code);
	rc |= doff(raw, D_U_STATE, &l->str.state);
	rc |= doff(raw, D_U_LENGTH, &l->str.length);
	rc |= doff(raw, D_U_ASCII_SIZE, &u_ascii);
	/* PyCompactUnicodeObject adds utf8_length and utf8 (3.12+). */
	l->str.ascii_size = u_ascii;
	l->str.compact_size = u_ascii + 16;
	return rc ? -EBADMSG : 0;
}

int
rec_pylayout_debug(const uint8_t *raw, size_t len, struct rec_pylayout *l,
		   struct sp_buf *why)
{
	uint64_t version, free_threaded;
	unsigned minor;

	if (len < REC_PYLAYOUT_DEBUG_SIZE || memcmp(raw, "xdebugpy", 8) != 0) {
		sp_buf_adds(why, "_PyRuntime: no _Py_DebugOffsets cookie");
		return -EBADMSG;
	}
	memcpy(&version, raw + 8 * D_VERSION, 8);
	memcpy(&free_threaded, raw + 8 * D_FREE_THREADED, 8);
	minor = (unsigned)(version >> 16 & 0xff);
	if (version >> 24 != 3 || minor != 13) {
		sp_buf_addf(why, "python%u.%u: layout unknown",
			    (unsigned)(version >> 24 & 0xff), minor);
		return -ENOTSUP;
	}
	if (free_threaded) {
		sp_buf_adds(why, "python3.13t: free-threaded build not "
				 "supported");
		return -ENOTSUP;
	}
	memset(l, 0, sizeof(*l));
	l->minor = 13;
	l->frames = REC_PY_IFRAME;
	l->lines = REC_PY_LOCATIONS;
	l->cf_current_frame = NONE;
	l->rt_tstate_current = NONE;
	l->fr_is_entry = NONE;
	l->co_flags = NONE;
	l->co_shape = 16; /* ob_size: a PyVarObject, as since 3.11 */
	if (debug_offsets(raw, l) < 0) {
		sp_buf_adds(why, "python3.13: _Py_DebugOffsets out of range");
		return -EBADMSG;
	}
	set_spans(l);
	if (l->ts_span > REC_PYLAYOUT_SPAN_MAX ||
	    l->fr_span > REC_PYLAYOUT_SPAN_MAX ||
	    l->co_span > REC_PYLAYOUT_SPAN_MAX) {
		sp_buf_adds(why, "python3.13: _Py_DebugOffsets out of range");
		return -EBADMSG;
	}
	return 0;
}
