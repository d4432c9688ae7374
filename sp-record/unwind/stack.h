/*
 * stack.h: turning one perf sample into the frames of its stack.
 *
 * Kernel frames always come from the sample's PERF_SAMPLE_CALLCHAIN.  User
 * frames come from the callchain too with frame-pointer stacks (-g fp), or
 * from the DWARF unwinder fed with the sample's user registers and stack
 * copy (-g dwarf).  rec_stack_build() is the one place that chooses.
 */
#ifndef SP_RECORD_UNWIND_STACK_H
#define SP_RECORD_UNWIND_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/spool.h"

struct rec_filepin;
struct rec_perfrec_sample;
struct sp_modtab;
struct rec_unwind;

enum rec_stack_callgraph {
	REC_CG_FP,    /* frame-pointer callchains from the kernel */
	REC_CG_DWARF, /* user registers + stack copy, unwound here */
};

/* An address of a callchain, already turned into a call site. */
struct rec_stack_rawframe {
	uint64_t addr;
	enum sp_frame_mode mode;
};

struct rec_stack_stats {
	uint64_t ignored_user_frames; /* callchain user frames (dwarf mode) */
	uint64_t truncated;           /* truncated-stack markers written */
	uint64_t ip_only;             /* stacks reduced to the sample ip */
};

struct rec_stack {
	enum rec_stack_callgraph mode;
	struct rec_unwind *unwinder; /* dwarf mode only; owned */
	uint64_t regs_mask;          /* sample_regs_user */
	unsigned max_chain;          /* sample_max_stack */
	bool kernel;                 /* kernel frames wanted (-k, allowed) */
	struct rec_stack_stats stats;
	struct rec_stack_rawframe *raw;   /* scratch */
	uint64_t *pcs;                    /* scratch for the unwinder */
	struct rec_stack_rawframe *fpraw; /* scratch: the kernel's user chain */
	uint64_t *fppcs;                  /* the same, for the unwinder */
};

/* User frames of the kernel's frame-pointer walk handed to the unwinder. */
#define REC_STACK_FPCHAIN_MAX 256

/* What rec_stack_callchain_split() keeps. */
#define REC_STACK_CHAIN_KERNEL 1u
#define REC_STACK_CHAIN_USER 2u

/*
 * Splits a perf callchain into frames, leaf first.  PERF_CONTEXT_* markers
 * switch the mode (kernel, hypervisor and guest kernel count as kernel;
 * user, guest and guest user as user).  The first address after each
 * marker is the interrupted instruction and is kept as is; the others are
 * return addresses and become call sites (address - 1), except zeros,
 * which end a frame-pointer walk and are dropped.  Frames of the
 * modes not in `want` are counted in *skipped (may be NULL).  Writes at
 * most `max` frames; returns how many.
 */
size_t rec_stack_callchain_split(const uint64_t *chain, size_t n, unsigned want,
				 struct rec_stack_rawframe *out, size_t max,
				 uint64_t *skipped);

/*
 * Sets up a stacker.  In dwarf mode it creates the unwinder (lending it
 * `pins`, which may be NULL); when that fails it returns a negative
 * errno and the caller may fall back to fp.
 */
int rec_stack_init(struct rec_stack *s, enum rec_stack_callgraph mode,
		   uint64_t regs_mask, unsigned max_chain,
		   struct rec_filepin *pins);
void rec_stack_release(struct rec_stack *s);
/*
 * Sets how many bytes past a sample's stack copy the DWARF unwinder may
 * read from the process (unwind.h); returns 0 or -ENOMEM.  Nothing to
 * set in the other modes.
 */
int rec_stack_set_stack_read(struct rec_stack *s, size_t bytes);

/*
 * Builds the frames of sample `smp` of process `pid` into `out` (room for
 * REC_STACK_MAX frames), leaf first, resolved against `mods`.  A sample
 * with no usable chain gets its ip alone: its user pc when the ip is in
 * the kernel and kernel frames are not wanted, and no frame at all when
 * there is none.  Returns the number of frames.
 */
#define REC_STACK_MAX 1280
size_t rec_stack_build(struct rec_stack *s, struct sp_modtab *mods, int32_t pid,
		       const struct rec_perfrec_sample *smp,
		       struct sp_frame *out);

/*
 * The user pc of a sample, to check that some module covers it: the user
 * registers' ip, else for a sample taken in user mode the first user
 * callchain entry or the sample ip.  Returns false when there is none.
 */
bool rec_stack_sample_user_pc(const struct rec_stack *s,
			      const struct rec_perfrec_sample *smp,
			      uint64_t *pc);

/*
 * Whether the last rec_stack_build unwound through a code address no
 * module covered (dwarf mode only); sets *pc to the first such address.
 */
bool rec_stack_missed_module(const struct rec_stack *s, uint64_t *pc);

/* Forgets the unwinder's module view of `pid` (its mappings changed). */
void rec_stack_forget(struct rec_stack *s, int32_t pid);

/* Forgets everything of `pid`, anonymous code too (exec, exit). */
void rec_stack_end(struct rec_stack *s, int32_t pid);

/*
 * Anonymous executable memory [start, end) of `pid` (JIT code): return
 * addresses there are valid.  Returns 0 or -ENOMEM (0 in fp mode).
 */
int rec_stack_add_code(struct rec_stack *s, int32_t pid, uint64_t start,
		       uint64_t end);

/* Calls fn for each nonzero unwinder counter (nothing in fp mode). */
/* rec_unwind_last_deep(), false without DWARF unwinding. */
bool rec_stack_last_deep(const struct rec_stack *s, uint64_t *lo, uint64_t *hi);
/* rec_unwind_deep_samples(), 0 without DWARF unwinding. */
uint64_t rec_stack_deep_samples(const struct rec_stack *s);

void rec_stack_counters(const struct rec_stack *s,
			void (*fn)(const char *key, uint64_t value, void *arg),
			void *arg);

#endif
