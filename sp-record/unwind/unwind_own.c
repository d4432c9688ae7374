/*
 * unwind_own.c: a sample walked with the recorder's own CFI rules
 * (unwind_own.h), no libunwind.  The rules (cfirule.h: CFA = SP or BP +
 * offset, the return address and BP at CFA offsets) are kept per module
 * file and address (cfimemo.h), so the hundredth cc1 of a build finds
 * the rules the first one read.  The walk takes only the stacks it can
 * finish exactly as libunwind would, with the checks of unwind_walk.c;
 * above the copy it reads the live stack (deepstack.h) and takes the
 * frames of a chain an earlier sample verified (deepcache.h).
 */
#include <errno.h>
#include <string.h>

#include <asm/perf_regs.h>

#include "sp-record/unwind/cfimemo.h"
#include "sp-record/unwind/cfirule.h"
#include "sp-record/unwind/deepcache.h"
#include "sp-record/unwind/deepstack.h"
#include "sp-record/unwind/mapped.h"
#include "sp-record/perf/perfrec.h"
#include "sp-record/unwind/regcache.h"
#include "sp-record/unwind/unwind_calls.h"
#include "sp-record/unwind/unwind_code.h"
#include "sp-record/unwind/unwind_ctx.h"
#include "sp-record/unwind/unwind_own.h"
#include "sp-record/unwind/unwind_walk.h"
#include "common/banned.h"

/*
 * The memo's words for an address without a rule of cfirule.h's kind:
 * one no FDE covers (libunwind steps it by frame pointer), and one
 * whose FDE holds another kind of rule.
 */
#define NO_FDE (UINT64_MAX - 1)
#define NO_RULE UINT64_MAX

/* Reads the rule for ELF address `vaddr` of `f` from the file. */
static uint64_t
read_rule(const struct rec_mapped *f, uint64_t vaddr, struct rec_cfirule *rule)
{
	const uint8_t *sec;
	uint64_t fde, lo;
	int32_t entry[2];
	size_t len;
	int r;

	if (!rec_unwind_code_fde_lookup(f, vaddr, entry))
		return NO_FDE;
	fde = f->table_base + (uint64_t)(int64_t)entry[1];
	if (!(sec = rec_mapped_span(f, fde, &lo, &len)))
		return NO_RULE;
	r = rec_cfirule_find(sec, len, lo, fde, vaddr, rule);
	return r == 0         ? rec_cfirule_pack(rule)
	       : r == -ENOENT ? NO_FDE
			      : NO_RULE;
}

/*
 * The rule of the frame whose pc (call site) is `at`, from the memo or
 * read from its module file and kept by the file's identity (the vdso,
 * which has none, is read each time).  Returns 1 with *rule set, 0 when
 * no FDE covers `at` (in a module with CFI), -1 for anything else: then
 * libunwind unwinds the sample.
 */
static int
own_rule(struct rec_unwind_own *o, struct rec_unwind_ctx *c, uint64_t at,
	 struct rec_cfirule *rule)
{
	const struct rec_regcache_region *r;
	const struct rec_mapped *f;
	uint64_t word, vaddr;
	bool keep;
	int why;

	if (!(r = rec_unwind_code_region(c, at, &why)) || !(f = r->f)->table)
		return -1;
	vaddr = at - r->bias;
	keep = f->id.dev || f->id.ino;
	if (!keep || !rec_cfimemo_get(o->rules, &f->id, vaddr, &word)) {
		word = read_rule(f, vaddr, rule);
		o->rules_read++;
		if (keep)
			rec_cfimemo_put(o->rules, &f->id, vaddr, word);
	}
	if (word == NO_FDE || word == NO_RULE)
		return word == NO_FDE ? 0 : -1;
	rec_cfirule_unpack(word, rule);
	return 1;
}

/*
 * Whether libunwind's frame-pointer step from a frame without CFI at
 * `ip` (not a return address minus one) with a zero BP ends the stack:
 * it does unless the code at `ip` reads as a PLT entry, which it steps
 * over instead (the same bytes its x86_64 unw_step compares).
 */
static bool
fp_end(struct rec_unwind_ctx *c, uint64_t ip)
{
	const struct rec_regcache_region *r;
	uint8_t code[16];
	int why;

	return (r = rec_unwind_code_region(c, ip, &why)) &&
	       rec_mapped_read(r->f, ip - r->bias, code, sizeof(code)) == 0 &&
	       !(code[0] == 0xff && code[1] == 0x25 && code[6] == 0x68 &&
		 code[11] == 0xe9);
}

/* The copy's word at `addr`; false when it lies outside the copy. */
static bool
copy_word(const struct rec_unwind_ctx *c, uint64_t addr, uint64_t *v)
{
	if (addr < c->sp || addr - c->sp > c->stack_len - sizeof(*v))
		return false;
	memcpy(v, c->stack + (addr - c->sp), sizeof(*v));
	return true;
}

/*
 * The stack word at `addr` for own_step(): from the copy (noted for the
 * re-read, as unwind_acc.c's access_mem() does), else from the live stack above
 * it.
 */
static bool
stack_word(struct rec_unwind_ctx *c, uint64_t addr, uint64_t *v)
{
	struct rec_deepcache_step *f = c->step;

	if (copy_word(c, addr, v))
		rec_deepstack_saw(c->live, addr);
	else if (!rec_deepstack_read(c->live, addr, v))
		return false;
	if (f->nwords < 2) {
		f->addr[f->nwords] = addr;
		f->val[f->nwords++] = *v;
	}
	return true;
}

/*
 * Whether the frame at `ip` may be in a signal return trampoline, which
 * libunwind's signal-frame step must take: `ip` is a trampoline's start
 * (a handler returns to it), or the sample's pc (`at` == `ip`) just
 * past its system call.  The walk checks here, at the frame's own rule
 * (`rule` NULL: no FDE covers `at`), not where the step found the
 * return address, and reads the code only where the rule leaves it
 * open: reading a cold code page costs more than the step.  A
 * trampoline is a function of its own, tiny, so no function starts
 * where the rule's FDE also covers the byte on the other side of `at`,
 * and none at the start of a larger FDE.  A sample's pc just past a
 * trampoline lies in no FDE (glibc's is followed by padding, and its
 * FDE has the signal-frame augmentation, which the rules refuse); were
 * it a larger function's first byte, that function's entry rule would
 * take the signal frame's first word, its flags, as a return address,
 * which is not code, and libunwind would take the sample.
 */
static bool
maybe_trampoline(struct rec_unwind_ctx *c, uint64_t at, uint64_t ip,
		 const struct rec_cfirule *rule)
{
	if (at != ip)
		return !(rule && rule->next_in) &&
		       rec_unwind_code_is_trampoline(c, ip);
	if (rule)
		return !rule->prev_in && rule->tiny &&
		       rec_unwind_code_is_trampoline(c, ip);
	return rec_unwind_code_is_trampoline(c, ip) ||
	       (ip >= 9 && rec_unwind_code_is_trampoline(c, ip - 9));
}

/* own_step()'s answers besides 1 (a step) and 0 (the outermost frame). */
#define OWN_OTHER (-1)   /* not ours: libunwind unwinds the sample */
#define OWN_REFUSED (-2) /* a step over the live stack failed a check */
#define OWN_RETRY (-3)   /* a cached chain does not fit: walk without */

/*
 * Whether a step that read the live stack may go on: outward on it (the
 * check unwind_walk.c's live_step_ok() makes of libunwind's steps) to a return
 * address that is code.  Where step() would refuse it, the live frames are
 * dropped as rec_unwind_walk_settle() drops them.
 */
static int
own_live_ok(struct rec_unwind_ctx *c, uint64_t sp, uint64_t cfa, uint64_t ra)
{
	if (!rec_deepstack_outward(c->live, sp, cfa) ||
	    !rec_unwind_code_is_code(c, ra))
		return OWN_REFUSED;
	return rec_unwind_code_is_trampoline(c, ra) ? OWN_OTHER : 1;
}

/*
 * One step of own_walk(): from the frame at `at` with stack pointer *sp
 * and frame pointer *bp to its caller, as libunwind's step would go with
 * the same rule, reading above the copy as unwind_walk.c's step() lets it (CFI
 * only, outward).  Returns 1 with *ip the caller's return address, 0 at the
 * outermost frame, OWN_OTHER for anything else in the copy (the rule is
 * not ours, a check of step() would fail) or an unusual end above it,
 * OWN_REFUSED where a step that read above the copy fails.
 */
static int
own_step(struct rec_unwind_own *o, struct rec_unwind_ctx *c, uint64_t at,
	 uint64_t *ip, uint64_t *sp, uint64_t *bp, bool *have_bp)
{
	struct rec_cfirule rule;
	uint64_t cfa, ra;
	int r = own_rule(o, c, at, &rule);

	if (r >= 0 && maybe_trampoline(c, at, *ip, r == 1 ? &rule : NULL))
		return OWN_OTHER;
	if (r == 0 && *have_bp && *bp == 0 && fp_end(c, *ip) &&
	    !rec_deepstack_used(c->live)) {
		c->count->fallbacks[FB_EH_FRAME_HDR_LOOKUP]++;
		return 0; /* the outermost frame, as in ld.so's _start */
	}
	if (r <= 0)
		return OWN_OTHER;
	c->step->uses_bp = rule.cfa_reg == REC_CFA_BP;
	c->step->keeps_bp = rule.bp == REC_CFIRULE_SAME;
	if (rule.cfa_reg == REC_CFA_BP && !*have_bp)
		return OWN_OTHER;
	cfa = (rule.cfa_reg == REC_CFA_SP ? *sp : *bp) +
	      (uint64_t)(int64_t)rule.cfa_off;
	if (rule.ra == REC_CFIRULE_UNDEF)
		return 0;
	if (!stack_word(c, cfa + (uint64_t)(int64_t)rule.ra, &ra))
		return rec_deepstack_used(c->live) ? OWN_REFUSED : OWN_OTHER;
	if ((ra == *ip && cfa == *sp) ||
	    ((rule.bp == REC_CFIRULE_UNDEF || ra == 0) &&
	     rec_deepstack_used(c->live)))
		return OWN_OTHER;
	if (rule.bp == REC_CFIRULE_UNDEF || ra == 0)
		return 0;
	if (rule.bp != REC_CFIRULE_SAME &&
	    !(*have_bp = stack_word(c, cfa + (uint64_t)(int64_t)rule.bp, bp)))
		return OWN_OTHER;
	if (rec_deepstack_used(c->live))
		r = own_live_ok(c, *sp, cfa, ra);
	else
		r = cfa < *sp || !rec_unwind_code_is_code(c, ra) ? OWN_OTHER
								 : 1;
	if (r == 1) {
		*ip = ra;
		*sp = cfa;
	}
	return r;
}

/*
 * Takes the frames above frame `j` of a cached chain (deepcache.h), whose
 * state the walk's frame pcs[*n - 1] has: each step's words must read the
 * same in the copy, or are taken as live words to verify (deepstack.h),
 * and each step must go outward as own_step() requires.  Returns 0 with
 * the pcs in pcs[*n...] up to the chain's outermost frame, or OWN_RETRY
 * when the chain does not fit this sample.
 */
static int
own_replay(struct rec_unwind_own *o, struct rec_unwind_ctx *c,
	   const struct rec_deepcache_chain *ch, size_t j, uint64_t *pcs,
	   size_t *n, size_t max, size_t *first_live)
{
	struct rec_deepstack *d = c->live;
	const struct rec_deepcache_step *f;
	uint64_t v;
	size_t k, w;

	for (k = j; k + 1 < ch->n; k++) {
		f = &ch->v[k];
		for (w = 0; w < f->nwords; w++)
			if (copy_word(c, f->addr[w], &v)) {
				if (v != f->val[w])
					return OWN_RETRY;
				rec_deepstack_saw(d, f->addr[w]);
			} else if (!rec_deepstack_expect(d, f->addr[w],
							 f->val[w]))
				return OWN_RETRY;
		if (*n == max)
			return OWN_RETRY;
		if (rec_deepstack_used(d)) {
			if (!rec_deepstack_outward(d, f->sp, ch->v[k + 1].sp))
				return OWN_RETRY;
			if (*first_live == max)
				*first_live = *n;
		}
		o->steps[*n - 1] = *f;
		pcs[(*n)++] = ch->v[k + 1].ip - 1;
	}
	o->steps[*n - 1] = ch->v[ch->n - 1];
	c->from = ch;
	return 0;
}

/*
 * Sets the walk's record of frame pcs[n - 1] (o->steps) to its state;
 * own_step() adds the words it reads.
 */
static struct rec_deepcache_step *
own_frame(struct rec_unwind_own *o, struct rec_unwind_ctx *c,
	  const uint64_t *pcs, size_t n, uint64_t ip, uint64_t sp, uint64_t bp,
	  bool have_bp)
{
	struct rec_deepcache_step *f = &o->steps[n - 1];

	memset(f, 0, sizeof(*f));
	f->at = pcs[n - 1];
	f->ip = ip;
	f->sp = sp;
	f->bp = bp;
	f->have_bp = have_bp;
	return c->step = f;
}

/*
 * Unwinds the sample whose pc is pcs[0] with rules read by the recorder
 * (cfirule.h), no libunwind: per file, not per process, so a process's
 * first samples cost no more than its last.  Above the copy each caller
 * must call its callee (rec_unwind_calls_match), as rec_unwind_walk() checks.
 * Where a frame has the state of one of a cached chain's, the rest comes
 * from the chain (own_replay).  Returns 0 with the pcs in pcs[*n...]
 * when every step had such a rule and the walk reached the outermost
 * frame, OWN_REFUSED when a step over the live stack failed
 * (*first_live is the index of the first pc found with live reads, as
 * rec_unwind_walk() sets it), OWN_RETRY when a cached chain did not fit;
 * OWN_OTHER (nothing counted)
 * leaves the sample to libunwind, which takes it from the start.
 */
static int
own_walk(struct rec_unwind_own *o, struct rec_unwind_ctx *c, uint64_t *pcs,
	 size_t *n, size_t max, size_t *first_live)
{
	uint64_t ip = pcs[0], sp = c->sp, bp = 0;
	bool have_bp =
	    rec_perfrec_regs_value(c->regs, c->mask, PERF_REG_X86_BP, &bp);
	const struct rec_deepcache_chain *ch;
	struct rec_deepcache_step *f;
	size_t j;
	int r;

	*first_live = max;
	for (;;) {
		f = own_frame(o, c, pcs, *n, ip, sp, bp, have_bp);
		if (!c->no_cache &&
		    rec_deepcache_find(&c->p->deep, f, &ch, &j)) {
			c->old = ch;
			return own_replay(o, c, ch, j, pcs, n, max, first_live);
		}
		if ((r = own_step(o, c, pcs[*n - 1], &ip, &sp, &bp,
				  &have_bp)) <= 0)
			break;
		if (*n == max)
			return OWN_OTHER;
		if (rec_deepstack_used(c->live)) {
			if (*first_live == max)
				*first_live = *n;
			if (!rec_unwind_calls_match(c, pcs[*n - 1], ip)) {
				c->call_mismatch = true;
				r = OWN_REFUSED;
				break;
			}
		}
		pcs[(*n)++] = ip - 1;
	}
	if (r == OWN_REFUSED && *first_live == max)
		*first_live = *n; /* the failed step read live memory */
	return r;
}

/*
 * After own_walk() returned `r` and rec_unwind_walk_settle() kept `n` pcs: a
 * stack completed over live reads gives the process's cache its frames from the
 * one before the first found live (the chain a cached one came from is
 * replaced: the same thread's, most likely).
 */
static void
keep_chain(struct rec_unwind_own *o, struct rec_unwind_ctx *c, int r, size_t n,
	   size_t first_live, uint64_t completed)
{
	if (r != 0 || c->count->deep[DEEP_COMPLETED] == completed ||
	    first_live >= n)
		return;
	if (c->from)
		c->count->deep[DEEP_CACHED]++;
	(void)rec_deepcache_put(&c->p->deep, o->steps + first_live - 1,
				n - first_live + 1, c->from ? c->from : c->old);
}

/*
 * own_walk(), and when it took frames from a cached chain, their words'
 * re-read: a chain whose words changed may still lead to the outermost
 * frame by other words, which a walk without the cache reads.
 */
static int
own_walk_verified(struct rec_unwind_own *o, struct rec_unwind_ctx *c,
		  uint64_t *pcs, size_t *n, size_t max, size_t *first_live)
{
	int r = own_walk(o, c, pcs, n, max, first_live);

	if (r == 0 && c->from && rec_deepstack_used(c->live)) {
		c->verdict = rec_deepstack_verify(c->live);
		c->have_verdict = true;
		if (c->verdict == -ESTALE)
			r = OWN_RETRY;
	}
	return r;
}

/*
 * The recorder's own rules on a sample (own_walk), again without cached
 * chains when one did not fit.  Returns false, all reads forgotten, when
 * libunwind must take the sample; else true with *n pcs kept.
 */
bool
rec_unwind_own_unwind(struct rec_unwind_own *o, struct rec_unwind_ctx *c,
		      uint64_t *pcs, size_t *n, size_t max, bool *truncated)
{
	uint64_t completed = c->count->deep[DEEP_COMPLETED];
	size_t first_live;
	int r;

	while ((r = own_walk_verified(o, c, pcs, n, max, &first_live)) ==
	       OWN_RETRY) {
		rec_deepstack_begin(c->live, c->p->pid, &c->p->stacks, c->sp,
				    c->stack, c->stack_len);
		c->no_cache = true;
		c->call_mismatch = false;
		c->have_verdict = false;
		c->old = c->from ? c->from : c->old;
		c->from = NULL;
		*n = 1;
	}
	if (r == OWN_OTHER) {
		rec_deepstack_begin(c->live, c->p->pid, &c->p->stacks, c->sp,
				    c->stack, c->stack_len);
		c->call_mismatch = false;
		*n = 1;
		return false;
	}
	o->samples++;
	*n = rec_unwind_walk_settle(c, r, *n, first_live, truncated);
	keep_chain(o, c, r, *n, first_live, completed);
	return true;
}
