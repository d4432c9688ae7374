/*
 * unwind_walk.c: the walk of a sample with libunwind (unwind_walk.h).
 * Each step is checked: it must advance, its SP must not move back, its
 * return address must be code; a step that read the live stack above
 * the copy must use CFI and go outward, and its caller must have called
 * its callee (unwind_calls.h).  Where a Go frame's step fails,
 * unwind_go.h may go on.  rec_unwind_walk_settle() then keeps the frames found
 * live only when the whole chain held and the stack did not change under the
 * reads (deepstack.h); the walk with the recorder's own rules (unwind_own.c)
 * settles its frames the same way.
 */
#include <errno.h>
#include <libunwind.h>
#include <string.h>

#include "common/htab.h"
#include "sp-record/unwind/deepstack.h"
#include "sp-record/unwind/mapped.h"
#include "sp-record/files/filememo.h"
#include "sp-record/unwind/regcache.h"
#include "sp-record/unwind/unwind_calls.h"
#include "sp-record/unwind/unwind_code.h"
#include "sp-record/unwind/unwind_ctx.h"
#include "sp-record/unwind/unwind_go.h"
#include "sp-record/unwind/unwind_walk.h"
#include "common/banned.h"

/*
 * Whether a step that read the live stack above the copy (deepstack.h)
 * can be taken as it is: CFI only (a frame-pointer step over live memory
 * proves nothing), the CFA strictly above the last or on an older stack
 * segment entered just now, and the end only where CFI marks the
 * outermost frame (_start, the thread start).  The return address is
 * checked like any other, in step().
 */
static bool
live_step_ok(const struct rec_unwind_ctx *c, int r, uint64_t sp,
	     uint64_t new_ip, uint64_t new_sp)
{
	if (c->fallback != FB_NONE || c->ran_out)
		return false;
	return r == 0 ||
	       (new_ip != 0 && rec_deepstack_outward(c->live, sp, new_sp));
}

/*
 * The fallback of a step from the frame at `pc` (what it looks up CFI
 * by) when that frame is code without a file (madecfi.h): the reason,
 * set before the step since libunwind's cache may answer it without
 * asking find_proc_info, and a frame-pointer step must never read live
 * memory (live_step_ok).  FB_NONE for any other frame.
 */
static int
fp_fallback(struct rec_unwind_ctx *c, uint64_t pc)
{
	int why = FB_NONE;
	uint64_t start;
	bool endbr;

	if (rec_unwind_code_region(c, pc, &why) ||
	    !rec_unwind_code_is_code(c, pc) ||
	    rec_unwind_code_tramp_at(c, pc, &start, &endbr))
		return FB_NONE;
	return why;
}

/*
 * Where a step without CFI from a frame read the return address
 * `ra`: libunwind's frame-pointer guess reads it at rbp + 8 (and gives
 * the callee's CFA + 16 as the caller's SP), made-up CFI at the
 * caller's SP - 8.
 */
static uint64_t
ra_slot(const struct rec_unwind_ctx *c, uint64_t bp, uint64_t ra,
	uint64_t new_sp)
{
	uint64_t w;

	if (bp >= c->sp && bp - c->sp + 16 <= c->stack_len) {
		memcpy(&w, c->stack + (bp - c->sp + 8), sizeof(w));
		if (w == ra)
			return bp + 8;
	}
	return new_sp - 8;
}

/*
 * How many times a module file's CFI may exhaust a sample's reads
 * (UNW_READS_MAX) before libunwind steps none of its frames: a file
 * whose expressions each run long but not without end would cost the
 * whole budget every sample.
 */
#define OVER_FILE_MAX 16

/*
 * The keys of c->over, a table the unwinder keeps over the recording:
 * a module file's identity gives how often its CFI exhausted the reads;
 * the file with an ELF address, that a step from there did by itself.
 * Keyed by file, not process, so that no number of processes running
 * the same file costs more.
 */
struct over_key {
	struct rec_filememo_id id;
	uint64_t vaddr;
};

/* The file and ELF address of the frame at `at`; false if in none. */
static bool
over_key(struct rec_unwind_ctx *c, uint64_t at, struct over_key *k)
{
	const struct rec_regcache_region *r;
	int why;

	if (!(r = rec_unwind_code_region(c, at, &why)))
		return false;
	k->id = r->f->id;
	k->vaddr = at - r->bias;
	return true;
}

/*
 * Whether the step from the frame at `at` is refused: it ran out of
 * reads before, or its file's CFI did too often (over_note).
 */
static bool
over_known(struct rec_unwind_ctx *c, uint64_t at)
{
	struct over_key k;
	uint64_t v;

	if (!sp_htab_count(c->over) || !over_key(c, at, &k))
		return false;
	return (sp_htab_get(c->over, &k.id, sizeof(k.id), &v) &&
		v >= OVER_FILE_MAX) ||
	       sp_htab_get(c->over, &k, sizeof(k), &v);
}

/*
 * Notes that the step from the frame at `at` ran out of reads, having
 * made `used` of them: a strike against its file, and, when the step
 * spent half the budget by itself (a sample that spent it on many steps
 * says nothing of the last), the address, whose steps are not tried
 * again.  A looping expression then costs the budget once, not once
 * per sample.  The table holds at most OVER_FILE_MAX addresses a file.
 */
static void
over_note(struct rec_unwind_ctx *c, uint64_t at, uint64_t used)
{
	struct over_key k;
	uint64_t *strikes;
	bool inserted;

	if (!over_key(c, at, &k) ||
	    !(strikes =
		  sp_htab_slot(c->over, &k.id, sizeof(k.id), 0, &inserted)))
		return;
	(*strikes)++;
	if (used >= UNW_READS_MAX / 2)
		(void)sp_htab_put(c->over, &k, sizeof(k), 1);
}

/*
 * Steps from the frame at cur, whose pc (call site) is `at`, to its
 * caller.  *sig says whether the frame at cur is a signal trampoline's,
 * and is updated for the caller's.
 * Returns 1 with *pc set to the caller's pc, 0 at the outermost frame, or
 * -1 when the stack is truncated (c->err says why).  The pc is the call
 * site (return address - 1) unless there was no call: the frame a signal
 * interrupted, and the trampoline itself (the handler "returns" to its
 * first instruction).
 */
static int
step(struct rec_unwind_ctx *c, unw_cursor_t *cur, uint64_t at, int *sig,
     uint64_t *pc)
{
	unw_word_t ip, sp, bp, new_ip = 0, new_sp = 0;
	uint64_t reads = c->reads;
	int r, new_sig;
	bool live;

	if (over_known(c, at)) {
		c->err = ERR_BUDGET;
		return -1;
	}
	unw_get_reg(cur, UNW_REG_IP, &ip);
	unw_get_reg(cur, UNW_REG_SP, &sp);
	if (unw_get_reg(cur, UNW_X86_64_RBP, &bp) < 0)
		bp = 1;
	c->fallback = fp_fallback(c, at);
	c->ran_out = false;
	c->step_at = at;
	c->step_sp = sp;
	c->step_bp = bp;
	r = unw_step(cur);
	if (c->fallback != FB_NONE)
		c->count->fallbacks[c->fallback]++;
	/* whatever libunwind made of the step, its reads were cut short */
	if (c->reads > UNW_READS_MAX) {
		c->count->exhausted++;
		over_note(c, at, c->reads - reads);
		c->err = ERR_BUDGET;
		return -1;
	}
	live = rec_deepstack_used(c->live);
	if (r > 0) {
		unw_get_reg(cur, UNW_REG_IP, &new_ip);
		unw_get_reg(cur, UNW_REG_SP, &new_sp);
	}
	if (live && r >= 0 && !live_step_ok(c, r, sp, new_ip, new_sp)) {
		c->err = ERR_STACK_TRUNCATED;
		return -1;
	}
	/*
	 * A frame without CFI in a module that has some: a return address
	 * the step passed over is a caller it skipped (modules without any
	 * CFI, Go's, are stepped by frame pointer throughout; unwind_go.c
	 * checks their frames).
	 */
	if (r > 0 && c->fallback == FB_EH_FRAME_HDR_LOOKUP &&
	    rec_unwind_calls_skips_return(c, at, sp,
					  ra_slot(c, bp, new_ip, new_sp))) {
		c->err = ERR_CALLER_SKIPPED;
		return -1;
	}
	/*
	 * The end: CFI said so, or, without CFI, a zero frame pointer (the
	 * ABI's outermost-frame marker, as in ld.so's _start).
	 */
	if (r == 0 && !c->ran_out && (c->fallback == FB_NONE || bp == 0))
		return 0;
	c->stop_fallback = c->fallback;
	c->stop_bp = bp;
	if (r <= 0) {
		c->err = c->ran_out ? ERR_STACK_TRUNCATED
			 : r < 0    ? ERR_STEP
				    : ERR_FALLBACK_FAILED;
		return -1;
	}
	if (new_ip == 0)
		return 0;
	if (new_ip == ip && new_sp == sp) {
		c->err = ERR_DID_NOT_ADVANCE;
		return -1;
	}
	if (new_sp < sp && !*sig && !live) {
		c->err = ERR_SP_BACKWARDS;
		return -1;
	}
	if (!rec_unwind_code_is_code(c, new_ip)) {
		/* garbage from a failed CFI or frame-pointer step */
		c->err = ERR_NOT_CODE;
		if (!c->count->missed_module && !live) {
			c->count->missed_module = true;
			c->count->missed_pc = new_ip;
		}
		return -1;
	}
	new_sig = rec_unwind_code_is_trampoline(c, new_ip);
	*pc = *sig || new_sig ? new_ip : new_ip - 1;
	*sig = new_sig;
	return 1;
}

/*
 * Walks the frames from cur into pcs[*n..max).  Returns what the last
 * step returned (0: the outermost frame was reached), with *first_live
 * set to the index of the first pc found with live reads (deepstack.h),
 * or to max when there is none.
 */
int
rec_unwind_walk(struct rec_unwind_go *go, struct rec_unwind_ctx *c,
		unw_cursor_t *cur, int sig, uint64_t *pcs, size_t *n,
		size_t max, size_t *first_live)
{
	uint64_t ip;
	int r, callee_sig = sig;

	*first_live = max;
	while ((r = step(c, cur, pcs[*n - 1], &sig, &ip)) > 0 && *n < max) {
		if (rec_deepstack_used(c->live)) {
			if (*first_live == max)
				*first_live = *n;
			/* no call where a signal frame is on either side */
			if (!callee_sig && !sig &&
			    !rec_unwind_calls_match(c, pcs[*n - 1], ip + 1)) {
				c->call_mismatch = true;
				r = -1;
				break;
			}
		}
		callee_sig = sig;
		pcs[(*n)++] = ip;
	}
	if (r < 0 && c->err != ERR_BUDGET && !rec_deepstack_used(c->live) &&
	    rec_unwind_go_continue(go, c, pcs, n, max) == 0)
		r = 0;
	if (r > 0)
		c->err = ERR_DEPTH;
	if (r != 0 && *first_live == max && rec_deepstack_used(c->live))
		*first_live = *n; /* the failed step read live memory */
	return r;
}

/*
 * Keeps the frames found with live reads only when the chain reached its
 * outermost frame and the stack did not change under the reads; else
 * cuts them off.  Returns the number of pcs kept; *truncated is set when
 * frames were cut or the walk ended early.
 */
size_t
rec_unwind_walk_settle(struct rec_unwind_ctx *c, int r, size_t n,
		       size_t first_live, bool *truncated)
{
	int v;

	if (!rec_deepstack_used(c->live)) {
		if (r != 0) {
			c->count->errors[c->err]++;
			*truncated = true;
		}
		return n;
	}
	c->count->deep[DEEP_SAMPLES]++;
	v = r != 0            ? -EPROTO
	    : c->have_verdict ? c->verdict
			      : rec_deepstack_verify(c->live);
	if (v == 0) {
		c->count->deep[DEEP_COMPLETED]++;
		return n;
	}
	c->count->deep[c->call_mismatch ? DEEP_CALL
		       : v == -ESTALE   ? DEEP_CHANGED
					: DEEP_UNVERIFIED]++;
	c->count->errors[r < 0 && c->err == ERR_BUDGET ? ERR_BUDGET
						       : ERR_STACK_TRUNCATED]++;
	*truncated = true;
	return first_live < n ? first_live : n;
}
