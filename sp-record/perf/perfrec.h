/*
 * perfrec.h: decoding the records the kernel writes into a perf ring.
 *
 * Every decoder gets the record's full length and checks each field
 * against it; a record too short for its fields gives -EBADMSG, never a
 * read past the end.  Pointers in the decoded structs point into the
 * record and live as long as it does.  Records must be 8-byte aligned
 * (ring records and sorter copies are).
 */
#ifndef SP_RECORD_PERF_PERFREC_H
#define SP_RECORD_PERF_PERFREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

/*
 * Where the fields are, given the event's sample_type and register mask.
 * Only the bits sp-record requests are supported: IP, TID, TIME, CPU,
 * PERIOD, CALLCHAIN, REGS_USER, STACK_USER (and ID, STREAM_ID,
 * IDENTIFIER, which are skipped).
 */
struct rec_perfrec_layout {
	uint64_t sample_type;
	uint64_t regs_mask;
	unsigned nregs;      /* registers per REGS_USER block */
	size_t trailer;      /* bytes of the sample_id_all trailer */
	size_t trailer_tid;  /* offset of pid/tid in the trailer, or -1 */
	size_t trailer_time; /* offset of the time in the trailer, or -1 */
};

/* Returns 0, or -EINVAL for a sample_type bit the decoder cannot skip. */
int rec_perfrec_layout_init(struct rec_perfrec_layout *l, uint64_t sample_type,
			    uint64_t regs_mask);

struct rec_perfrec_sample {
	uint64_t id; /* PERF_SAMPLE_IDENTIFIER: which event, or 0 */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t period;
	const uint64_t *chain; /* PERF_SAMPLE_CALLCHAIN entries */
	uint64_t nchain;
	const uint8_t *raw; /* PERF_SAMPLE_RAW: a tracepoint's fields */
	uint32_t raw_len;
	uint64_t abi;         /* PERF_SAMPLE_REGS_ABI_*; NONE: no regs */
	const uint64_t *regs; /* nregs values in mask order, or NULL */
	const uint8_t *stack; /* dyn_size bytes from the user sp, or NULL */
	uint64_t stack_len;
	size_t stack_field; /* offset of the stack's size word, or 0 */
	uint16_t misc;      /* the header's misc: cpu mode of the ip */
};

/* The pid, tid and time every record carries (sample_id_all). */
struct rec_perfrec_id {
	uint32_t pid, tid;
	uint64_t time;
	bool has_tid, has_time;
};

/* Decodes a PERF_RECORD_SAMPLE of `len` bytes. */
int rec_perfrec_sample_parse(const struct rec_perfrec_layout *l,
			     const void *rec, size_t len,
			     struct rec_perfrec_sample *s);
/*
 * Shrinks a sample's user stack copy to the bytes the kernel filled
 * (dyn_size, rounded up to 8): writes a compact copy of the `len`-byte
 * record into `out` (room for `len` bytes) and returns its length, or 0
 * when nothing would shrink or the record does not decode.
 */
size_t rec_perfrec_sample_compact(const struct rec_perfrec_layout *l,
				  const void *rec, size_t len, void *out);
/*
 * The same in two steps, so the compact copy can go straight where it is
 * kept: rec_perfrec_sample_compact_size() decodes the record into *s and
 * returns the compact length (0 as above); rec_perfrec_sample_compact_write()
 * then writes those `n` bytes to `out`, while `rec` and *s are unchanged.
 */
size_t rec_perfrec_sample_compact_size(const struct rec_perfrec_layout *l,
				       const void *rec, size_t len,
				       struct rec_perfrec_sample *s);
void rec_perfrec_sample_compact_write(const void *rec,
				      const struct rec_perfrec_sample *s,
				      size_t n, void *out);
/*
 * A sample whose stack copy is followed by `more_len` bytes of the stack
 * above it, read at the same instant (deepbpf.h): the length of it as
 * one record, then the record, in `out` (room for that length).  The
 * header's size is a 16-bit field: the caller keeps the whole under it.
 */
size_t rec_perfrec_sample_extended_size(const struct rec_perfrec_sample *s,
					size_t more_len);
void rec_perfrec_sample_extend_write(const void *rec,
				     const struct rec_perfrec_sample *s,
				     const void *more, size_t more_len,
				     void *out);
/*
 * Register `reg` (PERF_REG_X86_*) of a block of registers `regs` holds
 * in the order of `mask` (a sample's user registers, the layout's mask);
 * false when it is not there.
 */
bool rec_perfrec_regs_value(const uint64_t *regs, uint64_t mask, int reg,
			    uint64_t *v);
/*
 * The timestamp of any record: a sample's TIME field or the trailer's.
 * Returns 0, or -EBADMSG (then *ts is 0).
 */
int rec_perfrec_time_of(const struct rec_perfrec_layout *l, const void *rec,
			size_t len, uint64_t *ts);
/* Decodes the sample_id_all trailer of a non-sample record. */
int rec_perfrec_id_of(const struct rec_perfrec_layout *l, const void *rec,
		      size_t len, struct rec_perfrec_id *id);

struct rec_perfrec_mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	bool has_build_id; /* PERF_RECORD_MISC_MMAP_BUILD_ID: no inode */
	const uint8_t *build_id;
	size_t build_id_len;
	uint32_t prot, flags;
	const char *path; /* NUL-terminated inside the record */
	size_t path_len;
};

struct rec_perfrec_comm {
	uint32_t pid, tid;
	bool is_exec;     /* PERF_RECORD_MISC_COMM_EXEC */
	const char *name; /* NUL-terminated inside the record */
	size_t name_len;
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT */
struct rec_perfrec_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

int rec_perfrec_mmap2_parse(const struct rec_perfrec_layout *l, const void *rec,
			    size_t len, struct rec_perfrec_mmap2 *m);
int rec_perfrec_comm_parse(const struct rec_perfrec_layout *l, const void *rec,
			   size_t len, struct rec_perfrec_comm *c);
int rec_perfrec_task_parse(const void *rec, size_t len,
			   struct rec_perfrec_task *t);

/* PERF_RECORD_SWITCH and PERF_RECORD_SWITCH_CPU_WIDE: the task switched. */
struct rec_perfrec_switch {
	uint32_t pid, tid;
	uint64_t time;
	bool out;     /* switched out (else in) */
	bool preempt; /* switched out while runnable: preempted */
};
/* Needs the sample_id_all trailer's pid, tid and time; else -EBADMSG. */
int rec_perfrec_switch_parse(const struct rec_perfrec_layout *l,
			     const void *rec, size_t len,
			     struct rec_perfrec_switch *s);
/* The count of a PERF_RECORD_LOST or PERF_RECORD_LOST_SAMPLES record. */
int rec_perfrec_lost_parse(const void *rec, size_t len, uint64_t *lost);

#endif
