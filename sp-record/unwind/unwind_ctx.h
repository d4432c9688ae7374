/*
 * unwind_ctx.h: what the parts of the DWARF unwinder (unwind.h) share,
 * private to them: a process's unwind state, the counters the walks
 * add to, and one unwind call's context, which libunwind hands back to
 * the accessors (unwind_acc.c) and which the walks (unwind_walk.c,
 * unwind_own.c) and their checks read.  The unwinder itself is
 * unwind.c's alone: it lends each call what the parts need, and hands
 * the Go part and the own rules their own state (unwind_go.h,
 * unwind_own.h).  Only the unwinder's files include this header.
 */
#ifndef SP_RECORD_UNWIND_UNWIND_CTX_H
#define SP_RECORD_UNWIND_UNWIND_CTX_H

#include <libunwind.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/htab.h"
#include "common/modtab.h"
#include "sp-record/unwind/coderange.h"
#include "sp-record/unwind/deepcache.h"
#include "sp-record/unwind/deepstack.h"
#include "sp-record/unwind/mapped.h"
#include "sp-record/unwind/gofuncs.h"
#include "sp-record/unwind/madecfi.h"
#include "sp-record/unwind/regcache.h"

/*
 * REC_UNWIND_MAX_FRAMES of unwind.h, which this header does not include:
 * unwind.c includes its parts' headers, so a part including unwind.h
 * would close a circle (tests/check-includes.sh).  unwind.c checks that
 * the two agree.
 */
#define REC_UNWIND_CTX_MAX_FRAMES 1024

/*
 * The most memory reads libunwind may make for one sample (access_mem
 * calls, unwind_acc.c).  libunwind reads each byte of CFI, and of each
 * DWARF expression it evaluates, through them, and an expression may
 * jump backwards without end (DW_OP_skip, DW_OP_bra): the budget ends
 * any such loop.  Honest samples use far less: at most about 19,000 on a
 * busy machine whose every sample went through libunwind (a cold step
 * through cc1's 20 KB FDE), under 1,600 for unw_deep's 400-deep stacks.
 */
#define UNW_READS_MAX (1u << 20)

/* The longest start of a function scanned for a tail call. */
#define TAIL_SCAN_MAX (16u << 10)

/* Why a sample's unwinding stopped early; unwind.c names each. */
enum unwind_error {
	ERR_NO_REGS,
	ERR_NO_STACK,
	ERR_INIT,
	ERR_STACK_TRUNCATED,
	ERR_DEPTH,
	ERR_STEP,
	ERR_FALLBACK_FAILED,
	ERR_DID_NOT_ADVANCE,
	ERR_SP_BACKWARDS,
	ERR_NOT_CODE,
	ERR_CALLER_SKIPPED,
	ERR_BUDGET, /* libunwind ran out of reads (UNW_READS_MAX) */
	ERR_COUNT
};

/* What became of samples whose unwinding read the stack above the copy. */
enum deep_outcome {
	DEEP_SAMPLES,
	DEEP_COMPLETED,
	DEEP_CHANGED,
	DEEP_CALL,
	DEEP_UNVERIFIED,
	DEEP_CACHED, /* completed with frames taken from a cached chain */
	DEEP_COUNT
};

/* Why a frame was stepped by its frame pointer; unwind.c names each. */
enum unwind_fallback {
	FB_NONE = -1,
	FB_NO_MODULE,
	FB_NO_FILE,
	FB_NO_UNWIND_DATA,
	FB_EH_FRAME_HDR_LOOKUP,
	FB_FDE_READ,
	FB_COUNT
};

/*
 * What the unwinder keeps of one process until it is forgotten
 * (rec_unwind_forget_process): made and freed by unwind.c, its address
 * space made by unwind_acc.c when a sample first needs libunwind.
 */
struct rec_unwind_ctx_proc {
	int32_t pid;
	unw_addr_space_t as;
	struct rec_regcache regions;
	int memfd; /* /proc/PID/mem, -1 until needed */
	struct rec_deepstack_maps stacks;
	struct sp_htab *tramps;      /* pc -> start << 1 | endbr, 0: none */
	struct sp_htab *tails;       /* (function, dest) -> 1: it jumps there */
	struct rec_gofuncs_mods *go; /* its Go modules, NULL until needed */
	struct rec_deepcache deep;   /* its last deep stacks' outer frames */
};

/*
 * One unwind call: everything the accessors and the walks need.  It
 * lives on rec_unwind_unwind's stack; no pointer into it outlives the
 * call.
 */
struct rec_unwind_ctx {
	/* the unwinder's, lent for the call (unwind.c) */
	struct rec_mapped_cache *files; /* module files, by identity */
	struct sp_htab
	    *code; /* pid -> struct rec_coderange *: anonymous code */
	struct rec_deepstack *live; /* the stack above the copy, read live */
	struct rec_unwind_ctx_count *count; /* what the walks count */
	struct sp_htab *over; /* steps out of reads (unwind_walk.c) */
	uint8_t *tail_code;   /* TAIL_SCAN_MAX bytes of scratch */
	struct rec_unwind_ctx_proc *p;
	struct sp_modtab *mods;
	const uint64_t *regs;
	uint64_t mask;
	const uint8_t *stack;
	size_t stack_len;
	uint64_t sp;
	uint64_t ip_override; /* nonzero: what RIP reads as (unwind.c) */
	int fallback;         /* enum unwind_fallback of the current step */
	/*
	 * The frame libunwind is stepping from (unwind_walk.c): its pc (a
	 * caller's: return address - 1), SP and BP, for made-up CFI of a
	 * caller without any (unwind_acc.c); step_at 0 before the first.
	 */
	uint64_t step_at, step_sp, step_bp;
	/*
	 * Unwind data the unwinder built (a search table, a trampoline's
	 * CFI), which libunwind reads at built_addr: the table during the
	 * lookup, the CFI while it steps, so it stays until the next one.
	 */
	const uint8_t *built;
	uint64_t built_addr;
	size_t built_len;
	uint8_t made_cfi[REC_MADECFI_MAX];
	int32_t fde_entry[2]; /* the search table entry of a lookup */
	/*
	 * The module file bytes of the last read, [win_lo, win_lo +
	 * win_len) in the process at `win`: libunwind reads a CIE and FDE
	 * one word per byte, about 180 reads per lookup in the same few
	 * hundred bytes, so most reads hit here.
	 */
	const uint8_t *win;
	uint64_t win_lo;
	size_t win_len;
	uint64_t reads;     /* access_mem calls so far */
	bool ran_out;       /* a read just above the copy failed */
	int err;            /* enum unwind_error of a failed step */
	bool call_mismatch; /* a live frame's caller called another */
	int stop_fallback;  /* enum unwind_fallback of the failed step */
	uint64_t stop_bp;   /* BP of the frame whose step failed */
	struct rec_deepcache_step *step; /* own_step()'s frame, its words */
	bool no_cache;                   /* own_walk() takes no cached chain */
	const struct rec_deepcache_chain
	    *from; /* the chain it took frames from */
	const struct rec_deepcache_chain
	    *old;    /* one that did not fit this stack */
	int verdict; /* rec_deepstack_verify's, when have_verdict */
	bool have_verdict;
};

/*
 * What the walks count and note for the caller, over the recording:
 * rec_unwind_counters and rec_unwind_missed_module read it.
 */
struct rec_unwind_ctx_count {
	uint64_t errors[ERR_COUNT];
	uint64_t fallbacks[FB_COUNT];
	uint64_t deep[DEEP_COUNT];
	uint64_t
	    leaf_returns; /* pcs given a rule by rec_unwind_calls_leaf_return */
	uint64_t exhausted; /* steps that spent all of UNW_READS_MAX */
	bool missed_module; /* the last unwind met a pc without module */
	uint64_t missed_pc; /* the first such pc */
};

#endif
