/*
 * spool.h: the SPULSE1 spool format, its writer and its streaming reader.
 *
 * Layout (all integers LEB128 varints; signed ones zigzag-encoded):
 *   header  "SPULSE1\0" start_us interval_us
 *   1 module   id pid(s) start end file_offset inode is_kernel(byte) len path
 *   2 frame    id tag addr        tag: module_id<<1 | 1|kernel<<1 | 5=marker
 *   3 stack    id prefix frame_id prefix 0xffffffff = root
 *   4 thread   id pid(s) tid
 *   5 sample   delta_ns(s) thread_id stack_id
 *   6 exec     timestamp_ns pid(s) is_python(byte)
 *   7 deactivate pid(s)
 *   >=16 extension: tag len payload (readers skip tags they do not know)
 * docs/sp-spool.5 is the full description.
 */
#ifndef SP_SPOOL_H
#define SP_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SP_SPOOL_MAGIC "SPULSE1" /* followed by a NUL: 8 bytes */

/* Whether p[0..n) starts with the spool magic: a spool given as text. */
bool sp_spool_magic(const void *p, size_t n);
#define SP_NONE UINT32_MAX /* "no id" for modules and prefixes */

enum sp_rec_tag {
	SP_TAG_MODULE = 1,
	SP_TAG_FRAME = 2,
	SP_TAG_STACK = 3,
	SP_TAG_THREAD = 4,
	SP_TAG_SAMPLE = 5,
	SP_TAG_EXEC = 6,
	SP_TAG_DEACTIVATE = 7,
	SP_TAG_EXT_FIRST = 16, /* tags from here on are extensions */
};

enum sp_frame_mode {
	SP_FRAME_USER = 0,
	SP_FRAME_KERNEL = 1,
	SP_FRAME_TRUNCATED = 2, /* unwinding stopped before the root */
};

/* A code area: an executable mapping of a process, or kernel code. */
struct sp_module {
	uint32_t id;
	int32_t pid;
	uint64_t start;
	uint64_t end;         /* exclusive */
	uint64_t file_offset; /* file offset backing `start` */
	uint64_t inode;
	bool is_kernel;
	const char *path; /* NUL-terminated; may be empty */
	size_t path_len;
};

/*
 * A raw frame.  With a module, rel_ip is module-relative in file-offset
 * coordinates (abs_ip - start + file_offset); without one rel_ip == abs_ip.
 * The truncated marker has no module and both addresses 0.
 */
struct sp_frame {
	uint32_t module_id; /* SP_NONE when no module matched */
	uint64_t rel_ip;
	uint64_t abs_ip;
	enum sp_frame_mode mode;
};

/* The marker frame written when unwinding stopped before the root. */
struct sp_frame sp_frame_truncated_marker(void);

/* ------------------------------------------------------------------ */
/* Writer */

struct sp_spool_writer;

/*
 * Creates a writer that appends to `fd` (not owned, never closed) and
 * buffers the header.  Nothing reaches the fd before a flush or until the
 * internal buffer fills.  Returns NULL with errno set.
 */
struct sp_spool_writer *sp_spool_writer_new(int fd, uint64_t start_us,
					    uint64_t interval_us);
/* Flushes nothing; frees the writer.  NULL is allowed. */
void sp_spool_writer_free(struct sp_spool_writer *w);

/*
 * Each write returns 0 or a negative errno (-EPIPE, -ENOSPC... from the
 * fd, -EINVAL for a value the format cannot hold); after an error
 * sp_spool_writer_errmsg() says what went wrong.
 */
int sp_spool_writer_module(struct sp_spool_writer *w,
			   const struct sp_module *m);
/*
 * Forgets an exited thread, so that the writer's memory follows the live
 * threads.  Should a sample of it come later, a new thread record (a new
 * id) is written for it.
 */
void sp_spool_writer_forget_thread(struct sp_spool_writer *w, int32_t pid,
				   uint64_t tid);
/*
 * Writes one sample.  `frames` is leaf first, as unwinders produce them;
 * the stack is interned root first.  A sample with no frames is not
 * written and *stack_id (if not NULL) becomes SP_NONE.
 */
int sp_spool_writer_sample(struct sp_spool_writer *w, uint64_t timestamp_ns,
			   int32_t pid, uint64_t tid,
			   const struct sp_frame *frames, size_t nframes,
			   uint32_t *stack_id);
int sp_spool_writer_exec(struct sp_spool_writer *w, uint64_t timestamp_ns,
			 int32_t pid, bool is_python);
int sp_spool_writer_deactivate(struct sp_spool_writer *w, int32_t pid);
/*
 * Writes a forget record (sp-spool(5)): process `pid` is gone, and its
 * threads, its modules, their frames and the stack nodes that hold them
 * are retired.  The writer drops its own state of the process: a later
 * sample with that pid (a new process) gets new thread, frame and stack
 * ids.  The caller must not write frames of the process's modules after
 * this (new modules, with new ids, are fine).  -EINVAL for a negative
 * pid.
 */
int sp_spool_writer_forget(struct sp_spool_writer *w, int32_t pid);
/* Writes an extension record; `tag` must be >= SP_TAG_EXT_FIRST. */
int sp_spool_writer_ext(struct sp_spool_writer *w, uint8_t tag,
			const void *payload, size_t len);
/* Writes all buffered bytes to the fd. */
int sp_spool_writer_flush(struct sp_spool_writer *w);
/* Bytes accepted so far, buffered or written. */
uint64_t sp_spool_writer_bytes(const struct sp_spool_writer *w);
/* The bytes write(2) took so far: what reached the output. */
uint64_t sp_spool_writer_delivered(const struct sp_spool_writer *w);
const char *sp_spool_writer_errmsg(const struct sp_spool_writer *w);

/* ------------------------------------------------------------------ */
/* Streaming reader */

/* One record as the reader hands it out; valid until the next call. */
struct sp_spool_record {
	uint8_t tag;     /* enum sp_rec_tag, or an extension tag */
	uint64_t offset; /* byte offset of the record's tag */
	union {
		struct sp_module module;
		struct {
			uint32_t id;
			struct sp_frame frame;
		} frame;
		struct {
			uint32_t id;
			uint32_t prefix; /* SP_NONE at the root */
			uint32_t frame_id;
			uint32_t depth; /* frames from here to root */
		} stack;
		struct {
			uint32_t id;
			int32_t pid;
			uint64_t tid;
		} thread;
		struct {
			uint64_t timestamp_ns;
			uint32_t thread_id;
			int32_t pid;
			uint64_t tid;
			uint32_t stack_id;
		} sample;
		struct {
			uint64_t timestamp_ns;
			int32_t pid;
			bool is_python;
		} exec;
		struct {
			int32_t pid;
		} deactivate;
		struct {
			const uint8_t *data;
			size_t len;
		} ext;
	} u;
};

struct sp_spool_reader;

/*
 * Creates a reader of `fd` (not owned).  It reads with read(2) as records
 * are needed and never seeks, so pipes work.  Returns NULL with errno set.
 */
struct sp_spool_reader *sp_spool_reader_new(int fd);
void sp_spool_reader_free(struct sp_spool_reader *r);

/*
 * Reads the header.  Returns 0, or -EBADMSG for bad data (see errmsg), or
 * another negative errno for a read error.
 */
int sp_spool_reader_header(struct sp_spool_reader *r, uint64_t *start_us,
			   uint64_t *interval_us);
/*
 * Reads the next record into *rec.  Returns 1 for a record, 0 at a clean
 * end of input, -EBADMSG for malformed or truncated data, or another
 * negative errno for a read error.  Every complete record before a fault
 * is returned first.  Extension records with unknown tags are returned
 * too (tag >= 16) so callers may show or skip them.
 */
int sp_spool_reader_next(struct sp_spool_reader *r,
			 struct sp_spool_record *rec);
/*
 * Registers `fn`, called before each read(2) that may block, so a filter
 * can flush what it printed while it waits for a live recorder.
 */
void sp_spool_reader_on_wait(struct sp_spool_reader *r, void (*fn)(void *),
			     void *ctx);
/*
 * Follow mode, for a file that a recorder is still writing: at end of
 * input, wait 100 ms and read again instead of ending (like tail -f).
 */
void sp_spool_reader_follow(struct sp_spool_reader *r, bool follow);
/*
 * Whether the last record read is the stats record (SP_EXT_STATS) that
 * sp-record writes last, when it stops.  At a clean end of input, false
 * means the spool was cut short at a record boundary (a recorder killed,
 * a tee interrupted): every record is sound, but the recording is not
 * whole.
 */
bool sp_spool_reader_closed(const struct sp_spool_reader *r);
/* The file offset of the first byte not yet read as a record. */
uint64_t sp_spool_reader_offset(const struct sp_spool_reader *r);
/* What went wrong, with the byte offset where it applies. */
const char *sp_spool_reader_errmsg(const struct sp_spool_reader *r);

/*
 * Lookups into what has been read so far.  NULL/false for unknown ids and
 * for ids a forget record retired.
 */
const struct sp_module *sp_spool_reader_module(const struct sp_spool_reader *r,
					       uint32_t id);
const struct sp_frame *sp_spool_reader_frame(const struct sp_spool_reader *r,
					     uint32_t id);
/* Gets a stack node's prefix (SP_NONE at the root) and frame id. */
bool sp_spool_reader_stack(const struct sp_spool_reader *r, uint32_t id,
			   uint32_t *prefix, uint32_t *frame_id);
uint32_t sp_spool_reader_nmodules(const struct sp_spool_reader *r);
/*
 * What the reader keeps: its live ids of every kind and the processes
 * whose modules it tracks.  A forget record lowers it; tests bound it.
 */
size_t sp_spool_reader_live(const struct sp_spool_reader *r);

/*
 * The module context of frame `frame_id` as seen by process `pid`: the
 * frame's own module, or for a module-less frame the newest module that
 * was written before the frame, was not deactivated before it, belongs to
 * `pid` (or is kernel code, for kernel frames) and covers the address.
 * Returns the module id and sets *rel_ip, or SP_NONE.
 */
uint32_t sp_spool_reader_frame_context(const struct sp_spool_reader *r,
				       uint32_t frame_id, int32_t pid,
				       uint64_t *rel_ip);
/* Whether a frame's context can depend on the sample's process. */
bool sp_spool_reader_frame_needs_pid(const struct sp_spool_reader *r,
				     uint32_t frame_id);

#endif
