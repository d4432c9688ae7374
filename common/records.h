/*
 * records.h: the text record stream that sp-dump writes and the other
 * tools read: one record per line, fields separated by tabs, the first
 * field naming the kind.  docs/sp-records.5 describes every kind.
 *
 * Text fields that may hold any byte (paths, names) are escaped: a
 * backslash, tab, newline or carriage return becomes \\ \t \n \r, other
 * control bytes, DEL and the C1 controls of UTF-8 (C2 80 to C2 9F)
 * become \xHH.
 */
#ifndef SP_RECORDS_H
#define SP_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "common/ext.h"
#include "common/ext_py.h"
#include "common/spool.h"

#define SP_RECORDS_VERSION 1
/*
 * The longest line a decoder reads, its newline included: twice the
 * longest sp-dump writes (an ext record of 16 MiB, 32 MiB as hex), so
 * that a line without end (a 300 MB one, /dev/zero) is an error rather
 * than all the memory there is.
 */
#define SP_RECORDS_MAX_LINE (64u << 20)

/* Appends `s` escaped; returns 0 or -ENOMEM. */
int sp_escape(struct sp_buf *out, const char *s, size_t n);
/* Writes `s` escaped to `f`. */
void sp_escape_file(FILE *f, const char *s, size_t n);
/*
 * Unescapes `s` in place (NUL-terminates it); returns the new length or
 * -EBADMSG for a malformed escape.
 */
long sp_unescape(char *s);

/*
 * The length (1 to 4) of the well-formed UTF-8 character at p[0..n), or
 * 0 when none starts there: a stray or cut byte, an overlong form, a
 * surrogate or a code point past U+10FFFF, which JSON and XML readers
 * refuse.
 */
size_t sp_utf8_len(const void *p, size_t n);

/* Symbol flags: bit i is the i-th letter of SP_SYM_LETTERS. */
#define SP_SYM_LETTERS "kjiphtu"
enum sp_sym_flag {
	SP_SYM_KERNEL = 1 << 0,     /* k */
	SP_SYM_JIT = 1 << 1,        /* j */
	SP_SYM_INLINED = 1 << 2,    /* i */
	SP_SYM_PYRUNTIME = 1 << 3,  /* p: Python runtime */
	SP_SYM_HIDDEN = 1 << 4,     /* h: hidden by default */
	SP_SYM_TRUNCATED = 1 << 5,  /* t: truncated-stack marker */
	SP_SYM_UNRESOLVED = 1 << 6, /* u: NAME is an address fallback */
};

enum sp_rec_kind {
	SP_REC_UNKNOWN, /* a kind this version does not know: pass it on */
	SP_REC_SPOOL,
	SP_REC_MODULE,
	SP_REC_FRAME,
	SP_REC_PFRAME,
	SP_REC_STACK,
	SP_REC_THREAD,
	SP_REC_SAMPLE,
	SP_REC_EXEC,
	SP_REC_DEACTIVATE,
	SP_REC_HOST,
	SP_REC_COMM,
	SP_REC_LOST,
	SP_REC_STATS,
	SP_REC_EXIT,
	SP_REC_BUILDID,
	SP_REC_EXT,
	SP_REC_SYMBOL,
	SP_REC_EVENT,
	SP_REC_FUNCLINE, /* a symbol's function start line (in u.symbol) */
	SP_REC_FORGET,
	SP_REC_PYCODE, /* Python records (ext_py.h) */
	SP_REC_PYNODE,
	SP_REC_PYSTACK,
	SP_REC_RUN, /* samples identical but for their times (u.sample) */
};

/* A KEY=VALUE field of host and stats records (value decimal in stats). */
struct sp_rec_pair {
	const char *key, *val;
	size_t key_len, val_len;
};

/*
 * One decoded record.  Text is unescaped; a decoded record's strings and
 * arrays point into the decoder and stay valid until its next call.  A
 * writer is given the same struct, strings unescaped.
 */
struct sp_rec {
	enum sp_rec_kind kind;
	union {
		struct {
			uint32_t version;
			uint64_t start_us, interval_us;
		} spool;
		struct sp_module module;
		/* id, and the frame; module_id SP_NONE for "- -". */
		struct {
			uint32_t id;
			struct sp_frame f;
		} frame;
		struct {
			uint32_t frame, module; /* module SP_NONE for "-" */
			int32_t pid;
			uint64_t rel_ip;
		} pframe;
		struct {
			uint32_t id, prefix, frame; /* prefix SP_NONE at root */
		} stack;
		struct {
			uint32_t id;
			int32_t pid;
			uint64_t tid;
		} thread;
		/*
		 * A sample, or a run: `count` samples identical but for
		 * their times, `ts` the first one's, `last_ts` the latest
		 * (a sample: count 1, last_ts its ts).
		 */
		struct {
			uint64_t ts, tid;
			int32_t pid;
			uint32_t stack; /* SP_NONE for an empty stack */
			uint64_t last_ts, count;
			/* With has_event: which event, and how many of its
			 * events the sample stands for. */
			bool has_event;
			uint32_t event;
			uint64_t weight;
			/* Why an off-CPU sample's thread waited (only with
			 * has_event); SP_WAIT_NONE when not said. */
			enum sp_wait_state state;
			/* Its Python stack: the pystack line before it, or
			 * NULL (decoded only; writers ignore it). */
			const struct sp_ext_pystack *py;
		} sample;
		struct {
			uint32_t index;
			const char *name;
			size_t name_len;
			uint64_t period; /* 0: sampled at freq Hz */
			uint64_t freq;
		} event;
		struct {
			uint64_t ts;
			int32_t pid;
			bool python;
		} exec;
		struct {
			int32_t pid;
		} deactivate;
		struct { /* the process is gone: see ids.h */
			int32_t pid;
		} forget;
		struct { /* host, stats */
			const struct sp_rec_pair *v;
			size_t n;
		} pairs;
		struct {
			uint64_t ts, tid;
			int32_t pid;
			bool exec; /* set at exec, else a rename */
			const char *name;
			size_t name_len;
		} comm;
		struct {
			uint64_t ts, count;
		} lost;
		struct {
			uint64_t ts, tid;
			int32_t pid;
		} exit;
		struct { /* buildid: tag is the module id; ext */
			uint32_t tag;
			const char *hex; /* lowercase, even length */
		} hex;
		struct {
			uint32_t frame, index;
			bool has_pid, has_offset;
			int32_t pid;
			unsigned flags; /* enum sp_sym_flag */
			uint64_t offset;
			const char *file; /* NULL when no source */
			unsigned line;    /* 0 when unknown */
			const char *name;
			unsigned start_line; /* funcline: the function's */
		} symbol;
		/* Strings NUL-terminated when decoded. */
		struct sp_ext_pycode pycode;
		struct sp_ext_pynode pynode;
		/* Points into the decoder, or the writer's caller. */
		const struct sp_ext_pystack *pystack;
	} u;
};

struct sp_recdec;

/*
 * Creates a decoder reading `f` (not owned).  NULL with errno on failure.
 * It checks each line's syntax and the ids across lines: the first
 * record is `spool` of version SP_RECORDS_VERSION, module, frame, stack
 * and thread ids count from 0 in order, and every id a record refers to
 * is defined before it and not retired by a `forget` record since.  It
 * keeps per id only what forgetting needs (ids.h), freed with the ids.
 */
struct sp_recdec *sp_recdec_new(FILE *f);
void sp_recdec_free(struct sp_recdec *d);
/*
 * Decodes the next non-empty line into *rec.  Returns 1, 0 at the end of
 * input, or -EBADMSG (malformed or cut line, or one longer than
 * SP_RECORDS_MAX_LINE), -EIO (a failed read: never taken for the end),
 * -ENOMEM, with the reason in sp_recdec_errmsg().  Every earlier record
 * was returned.
 */
int sp_recdec_next(struct sp_recdec *d, struct sp_rec *rec);
/* "line N: reason" for the last failure. */
const char *sp_recdec_errmsg(const struct sp_recdec *d);
/* The ids the decoder keeps (live ones of every kind), for tests. */
size_t sp_recdec_live(const struct sp_recdec *d);
/* The number of the line last read, from 1. */
uint64_t sp_recdec_lineno(const struct sp_recdec *d);
/*
 * Whether stdio holds no more of the input, so the next record may have
 * to wait: a filter flushes its output then, for a live reader.
 */
bool sp_recdec_drained(const struct sp_recdec *d);
/* The last line as read, without its newline; *len its length. */
const char *sp_recdec_line(const struct sp_recdec *d, size_t *len);

/*
 * The Python records' text forms (recpy.c), for recdec.c and recwrite.c:
 * decodes fields f[1..] of a line of kind rec->kind (the field count
 * checked) into rec, checked against and counted in `b`, the pystack
 * into `s`; returns 0 or -EBADMSG with the reason in `why`.  Writes one
 * line.
 */
int sp_recpy_decode(char **f, struct sp_rec *rec, struct sp_py_bounds *b,
		    struct sp_ext_pystack *s, struct sp_buf *why);
void sp_recpy_write(FILE *f, const struct sp_rec *rec);

/* Writes `rec` as one line; stdio errors are left to the stream. */
void sp_rec_write(FILE *f, const struct sp_rec *rec);
/* Writes the flag letters of `flags` ("-" for none) into buf[8]. */
void sp_sym_flags_str(unsigned flags, char buf[8]);

/*
 * Field parsers: return 0 or -EBADMSG.  Decimal for ids, counts and pids;
 * hex with a 0x prefix for addresses; "-" parses as SP_NONE for ids.
 */
int sp_parse_u64(const char *s, uint64_t *v);
int sp_parse_i32(const char *s, int32_t *v);
int sp_parse_hex(const char *s, uint64_t *v);
int sp_parse_id(const char *s, uint32_t *v);
/* The value of a hex digit, or -1. */
int sp_hexval(char c);

/* A frame mode's name in records ("user", "kernel", "truncated"). */
const char *sp_frame_mode_name(enum sp_frame_mode mode);
/* Parses a frame mode's name; returns 0 or -EBADMSG. */
int sp_parse_frame_mode(const char *s, enum sp_frame_mode *mode);

#endif
