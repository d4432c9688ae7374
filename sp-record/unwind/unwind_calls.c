/*
 * unwind_calls.c: whether a frame found above the stack copy was called
 * by its caller (unwind_calls.h).  A caller's call instruction names its
 * callee's function, or one that reaches it through a PLT entry or a
 * few tail calls; the code is read from the module files (callsite.h).
 */
#include <string.h>

#include "common/htab.h"
#include "sp-record/unwind/callsite.h"
#include "sp-record/unwind/mapped.h"
#include "sp-record/unwind/regcache.h"
#include "sp-record/unwind/unwind_calls.h"
#include "sp-record/unwind/unwind_code.h"
#include "sp-record/unwind/unwind_ctx.h"
#include "common/banned.h"

/*
 * Tail calls followed from a call's target to the callee: at most
 * TAIL_DEPTH jumps, among the first TAIL_FANOUT jumps out of each
 * function, in its first TAIL_SCAN_MAX bytes.
 */
#define TAIL_DEPTH 2
#define TAIL_FANOUT 16

/*
 * The start of the function (FDE) holding `pc` and the start of the
 * next, or false when no search table covers it.
 */
static bool
function_at(struct rec_unwind_ctx *c, uint64_t pc, uint64_t *start,
	    uint64_t *next)
{
	const struct rec_regcache_region *r;
	int32_t loc;
	size_t i;
	int why;

	if (!(r = rec_unwind_code_region(c, pc, &why)) || !r->f->table ||
	    !rec_unwind_code_fde_index(r->f, pc - r->bias, &i))
		return false;
	memcpy(&loc, r->f->table + i * 8, sizeof(loc));
	*start = r->bias + r->f->table_base + (uint64_t)(int64_t)loc;
	*next = *start + TAIL_SCAN_MAX;
	if (i + 1 < r->f->fde_count) {
		memcpy(&loc, r->f->table + (i + 1) * 8, sizeof(loc));
		*next = r->bias + r->f->table_base + (uint64_t)(int64_t)loc;
	}
	return true;
}

/* The `len` bytes of code before return address `ra`; false if unread. */
static bool
code_before(struct rec_unwind_ctx *c, uint64_t ra, uint8_t *buf, size_t len)
{
	const struct rec_regcache_region *r;
	int why;

	return ra >= len && (r = rec_unwind_code_region(c, ra - 1, &why)) &&
	       rec_mapped_read(r->f, ra - len - r->bias, buf, len) == 0;
}

/* Whether the code at `addr` reads as a PLT entry. */
static bool
is_plt(struct rec_unwind_ctx *c, uint64_t addr)
{
	uint8_t code[REC_CALLSITE_PLT];
	const struct rec_regcache_region *r;
	int why;

	return (r = rec_unwind_code_region(c, addr, &why)) &&
	       rec_mapped_read(r->f, addr - r->bias, code, sizeof(code)) == 0 &&
	       rec_callsite_is_plt(code);
}

/*
 * Whether function `fn` reaches `dest` through at most `depth` direct
 * jumps out of functions (tail calls), their code read from their module
 * files; each answer is kept per process.
 */
static bool
tail_calls(struct rec_unwind_ctx *c, uint64_t fn, uint64_t dest, int depth)
{
	uint64_t key[3] = { fn, dest, (uint64_t)depth }, jumps[TAIL_FANOUT];
	uint64_t start, next, *slot, v = 0;
	const struct rec_regcache_region *r;
	size_t len = 0, n, i;
	bool inserted;
	int why;

	if (!c->p->tails && !(c->p->tails = sp_htab_new()))
		return false;
	if (sp_htab_get(c->p->tails, key, sizeof(key), &v))
		return v != 0;
	if (function_at(c, fn, &start, &next) && start == fn &&
	    (r = rec_unwind_code_region(c, fn, &why))) {
		len = next - fn < TAIL_SCAN_MAX ? next - fn : TAIL_SCAN_MAX;
		while (len && rec_mapped_read(r->f, fn - r->bias, c->tail_code,
					      len) < 0)
			len /= 2; /* the module's end: read less */
	}
	n = rec_callsite_jumps(c->tail_code, len, fn, jumps, TAIL_FANOUT);
	for (i = 0; i < n && i < TAIL_FANOUT && !v; i++)
		v = jumps[i] == dest;
	for (i = 0; i < n && i < TAIL_FANOUT && !v && depth > 1; i++)
		v = tail_calls(c, jumps[i], dest, depth - 1);
	if ((slot = sp_htab_slot(c->p->tails, key, sizeof(key), 0, &inserted)))
		*slot = v;
	return v != 0;
}

/* How far above the sampled rsp rec_unwind_calls_leaf_return looks. */
#define LEAF_SCAN 32
/* How far below the pc a direct call's target may lie, for it. */
#define LEAF_FN_MAX (64u << 10)

/* What the code before a word read as a return address says of it. */
enum leaf_caller {
	NO_CALL,     /* no call before it: not a return address */
	OTHER_CALL,  /* a call that cannot have called the leaf */
	LEAF_CALLER, /* a call that may have called the leaf */
};

/* Whether the code at `ra` follows a call that may have called `pc`. */
static enum leaf_caller
leaf_caller(struct rec_unwind_ctx *c, uint64_t ra, uint64_t pc)
{
	uint8_t before[REC_CALLSITE_INDIRECT];
	uint64_t target, start, next;

	if (!rec_unwind_code_is_code(c, ra) ||
	    !code_before(c, ra, before, sizeof(before)))
		return NO_CALL;
	if (!rec_callsite_target(before + sizeof(before) - REC_CALLSITE_BEFORE,
				 ra, &target))
		return rec_callsite_indirect(before) ? LEAF_CALLER : NO_CALL;
	if (is_plt(c, target))
		return LEAF_CALLER;
	/* a function with CFI of its own between them is not the callee */
	return target <= pc && pc - target < LEAF_FN_MAX &&
		       (!function_at(c, target, &start, &next) ||
			next <= target || next > pc)
		   ? LEAF_CALLER
		   : OTHER_CALL;
}

bool
rec_unwind_calls_leaf_return(struct rec_unwind_ctx *c, uint64_t pc, uint64_t sp,
			     uint8_t *cfa_off)
{
	uint64_t w, at;
	size_t k, found = 0;

	if (sp < c->sp || sp - c->sp > c->stack_len)
		return false;
	at = sp - c->sp;
	for (k = 0; k <= LEAF_SCAN && at + k + sizeof(w) <= c->stack_len;
	     k += 8) {
		memcpy(&w, c->stack + at + k, sizeof(w));
		switch (leaf_caller(c, w, pc)) {
		case LEAF_CALLER:
			/* two candidates: one is stale, and which is unknown */
			if (found++)
				return false;
			*cfa_off = (uint8_t)(k + 8);
			break;
		case OTHER_CALL:
			/*
			 * Below any candidate, this is most likely the leaf's
			 * own return address, into a caller that reached the
			 * leaf by a tail call; a candidate above it would be
			 * that caller's caller, one frame skipped.
			 */
			if (!found)
				return false;
			break;
		case NO_CALL:
			break;
		}
	}
	return found == 1;
}

bool
rec_unwind_calls_skips_return(struct rec_unwind_ctx *c, uint64_t pc,
			      uint64_t sp, uint64_t ra_at)
{
	uint64_t w, k;

	if (sp < c->sp)
		return false;
	for (k = sp - c->sp; c->sp + k < ra_at && k + 8 <= c->stack_len;
	     k += 8) {
		memcpy(&w, c->stack + k, sizeof(w));
		if (leaf_caller(c, w, pc) != NO_CALL)
			return true;
	}
	return false;
}

/*
 * Whether the caller at return address `ra` may be the one the frame at
 * `callee_pc` returns to: false only when its call instruction is a
 * direct call to another function than the callee's (callsite.h).
 */
bool
rec_unwind_calls_match(struct rec_unwind_ctx *c, uint64_t callee_pc,
		       uint64_t ra)
{
	uint8_t before[REC_CALLSITE_BEFORE];
	uint64_t target, start, next;

	if (!code_before(c, ra, before, sizeof(before)) ||
	    !rec_callsite_target(before, ra, &target))
		return true;
	if (!function_at(c, callee_pc, &start, &next) || target == start ||
	    is_plt(c, target))
		return true;
	return tail_calls(c, target, start, TAIL_DEPTH);
}
