/*
 * deepstack.h: the part of a sampled thread's stack above the copy, read
 * from the live process for the unwinder (issue 28).
 *
 * A sample carries the registers and the stack's first bytes (up to
 * 64 KiB).  A deeper stack makes the unwinder read past the copy; those
 * reads come here, from the process's memory (process_vm_readv), at most
 * `budget` bytes in all: first in the mapping that holds the sample's SP,
 * from the copy's end up, then in the older segments of a stack that
 * grows in segments (rustc's, through stacker and psm), which the
 * unwinder reaches where CFI describes a switch of stacks.  Each stack
 * mapping is a span, entered once, in the order the unwinder reaches it:
 * only the last span read grows, and a read in the mapping of an earlier
 * span past what was read there is refused, so a chain of frames cannot
 * come back to a segment it left.  rec_deepstack_outward() tells the
 * unwinder whether a step went outward: up within a span, or into a
 * later one.  The read happens after the sample was taken, so the caller
 * must verify what it built from it: rec_deepstack_verify() checks that
 * the words the unwinder last read from the copy still hold the same
 * values in the live stack, and that the live words it read did not
 * change while it read them (see deepstack.c for what that proves).
 *
 *   struct rec_deepstack d;
 *   rec_deepstack_init(&d, REC_DEEPSTACK_BUDGET);     once
 *   per sample:
 *       rec_deepstack_begin(&d, pid, maps, sp, copy, copy_len);
 *       during the unwind: rec_deepstack_saw(&d, addr) for each word read
 *       from the copy, rec_deepstack_read(&d, addr, &v) above it, or
 *       rec_deepstack_expect(&d, addr, v) for a word whose value a
 *       cached chain of frames gives (deepcache.h);
 *       after it, when rec_deepstack_used(&d): rec_deepstack_verify(&d)
 *   rec_deepstack_release(&d);
 *
 * A process's stack mappings (struct rec_deepstack_maps) are learnt from
 * /proc/PID/maps the first time a sample's SP lies in one, and kept until
 * rec_deepstack_maps_release().
 */
#ifndef SP_RECORD_UNWIND_DEEPSTACK_H
#define SP_RECORD_UNWIND_DEEPSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp-record/unwind/coderange.h"

/*
 * Bytes read past the copy at most, per sample, by default: rustc's
 * stacks on nested expressions run 0.5-2 MiB deep, and at 512 KiB 86% of
 * its samples stayed truncated, at 2 MiB 42% (as at 8 MiB), for the same
 * CPU per sample.  Two buffers of this size, touched only when used.
 */
#define REC_DEEPSTACK_BUDGET (2u << 20)

/* How many of the last words read from the copy are verified. */
#define REC_DEEPSTACK_SEEN 2

/* Stack mappings (segments) one sample's reads may enter at most. */
#define REC_DEEPSTACK_SPANS 16

/*
 * What one sample read of one stack mapping: [start, limit) may be read,
 * its bytes lie in the buffer from `off`; `have` bytes are read, the
 * unwinder's words end `top` bytes from start.
 */
struct rec_deepstack_span {
	uint64_t start, limit;
	uint64_t map_lo, map_hi; /* the mapping */
	size_t off, have, top;
};

/* The mappings of one process that held a sampled SP. */
struct rec_deepstack_maps {
	struct rec_coderange maps;
	uint64_t miss_page; /* a page /proc/PID/maps did not cover ... */
	unsigned miss_left; /* ... for this many more lookups */
};

#define REC_DEEPSTACK_MAPS_INIT                                                \
	{                                                                      \
		REC_CODERANGE_INIT, 0, 0                                       \
	}

/* Frees what the set holds; it is empty and reusable afterwards. */
void rec_deepstack_maps_release(struct rec_deepstack_maps *m);

/* One per unwinder; fields are private to deepstack.c. */
struct rec_deepstack {
	size_t budget;   /* 0: reads past the copy are refused */
	uint8_t *buf;    /* budget bytes: the live stack from copy_end */
	uint8_t *again;  /* budget bytes: the same, read again to verify */
	uint64_t *words; /* a bit per word of buf the unwinder read */
	int32_t pid;
	struct rec_deepstack_maps *maps;
	const uint8_t *copy;
	uint64_t sp, copy_end;
	struct rec_deepstack_span span[REC_DEEPSTACK_SPANS];
	size_t nspan;    /* 0: not looked up yet; span[0]: the SP's mapping */
	size_t chunk;    /* the next read's size in the last span */
	size_t used_end; /* the end in buf of the words marked in `words` */
	int learnt;      /* reads of /proc/PID/maps in this sample */
	bool used, failed;
	uint64_t seen[REC_DEEPSTACK_SEEN]; /* a ring: nseen % SEEN is next */
	size_t nseen;
	uint64_t syscalls, bytes, maps_reads, segments; /* for the counters */
};

/*
 * Sets `d` up to read at most `budget` bytes past each copy (0: none).
 * Returns 0 or -ENOMEM.
 */
int rec_deepstack_init(struct rec_deepstack *d, size_t budget);
void rec_deepstack_release(struct rec_deepstack *d);

/*
 * Starts a sample of `pid` whose stack copy is `copy_len` bytes from
 * `sp`.  `maps` (the process's) and `copy` must stay valid until the
 * next begin.
 */
void rec_deepstack_begin(struct rec_deepstack *d, int32_t pid,
			 struct rec_deepstack_maps *maps, uint64_t sp,
			 const uint8_t *copy, size_t copy_len);

/*
 * Notes that the unwinder read the copy's word at `addr`.  Only reads
 * before the first live one are kept (the last REC_DEEPSTACK_SEEN).
 */
void rec_deepstack_saw(struct rec_deepstack *d, uint64_t addr);

/*
 * Reads the live word at `addr`: at or above the copy's end in the
 * mapping of the last copy word noted, or in another stack mapping
 * (writable, without a file), which becomes the next span once the reads
 * reached the top of the last (d->segments counts them).  False when it
 * lies in no stack mapping, in an earlier span past what was read there,
 * in another mapping before the top of the last was reached, past the
 * budget, or the process could not be read.
 */
bool rec_deepstack_read(struct rec_deepstack *d, uint64_t addr, uint64_t *val);

/*
 * Takes `val` as the live word at `addr` without reading it (a word a
 * cached chain of frames read before, deepcache.h): the same bounds as
 * rec_deepstack_read(), and it is verified as if read.  False where the
 * read would be refused, or where the word was read in this sample and
 * holds another value.
 */
bool rec_deepstack_expect(struct rec_deepstack *d, uint64_t addr, uint64_t val);

/*
 * Whether a step from a frame whose SP is `sp` to one whose SP is
 * `new_sp` went outward on the stack read: both in the copy or the same
 * span with new_sp above sp, or new_sp in a later span than sp.
 */
bool rec_deepstack_outward(const struct rec_deepstack *d, uint64_t sp,
			   uint64_t new_sp);

/* Whether this sample read anything live. */
bool rec_deepstack_used(const struct rec_deepstack *d);

/*
 * Whether the stack above the copy is still the one sampled: the words
 * noted by rec_deepstack_saw() must read the same from the live process
 * now, and so must every live word rec_deepstack_read() returned or
 * rec_deepstack_expect() took (only those words are read again).
 * Returns 0, -ESTALE when one changed, -EIO when they could not be read,
 * -ENODATA when no copy word was noted.
 */
int rec_deepstack_verify(struct rec_deepstack *d);

#endif
