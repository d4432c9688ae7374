/*
 * unwind.c: DWARF unwinding of sampled user stacks with libunwind's remote
 * interface (unwind.h).
 *
 * A sample is first walked with the recorder's own CFI rules (cfirule.h:
 * CFA = SP or BP + offset, the return address and BP at CFA offsets),
 * kept per module file and address (cfimemo.h), so the hundredth cc1 of
 * a build finds the rules the first one read; own_walk() takes only the
 * stacks it can finish exactly as libunwind would (every read in the
 * copy, no signal frame, no other rule), and libunwind unwinds the rest
 * from the start.  For those, a process gets one libunwind address space
 * (made at the first sample that needs it) with a global cache of
 * register-state records keyed by pc; unwind tables are found by our own
 * find_proc_info from the module's .eh_frame_hdr, read from the file on
 * disk (elfcfi.h).  Memory reads come from the sample's stack copy, from
 * the module files, and above the copy from the live process
 * (deepstack.h), whose frames the unwind loop verifies before keeping
 * them.  Code without a file (a JIT's, as HotSpot's) gets frame-pointer
 * CFI made up for it (madecfi.h).  docs/bench-unwind.md says why this
 * backend and what it costs.
 *
 * At about 1,800 lines it is longer than the other files: libunwind calls
 * back into the accessors with one context (struct rec_uctx) that ties the
 * process, the module table, the trampoline CFI and the sample's
 * registers and stack together, and each section below (anonymous code,
 * accessors, processes, the unwind loop and its checks of live frames,
 * the walk with our own rules) reads that context's private types.
 * Where module files lie in a process is regcache.c's; reading and
 * re-reading the live stack is deepstack.c's; keeping the frames found
 * there for the next sample is deepcache.c's; decoding call instructions
 * is callsite.c's; the sigprocmask() that keeps libunwind fast is
 * sigmask.c's.  Go's stacks
 * (no CFI, frame records, stack switches) are gofuncs.c's and
 * goframes.c's; unwind_go.c says when they are used.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libunwind.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <asm/perf_regs.h>

#include "common/grow.h"
#include "common/htab.h"
#include "common/modtab.h"
#include "common/spool.h"
#include "sp-record/callsite.h"
#include "sp-record/cfimemo.h"
#include "sp-record/cfirule.h"
#include "sp-record/coderange.h"
#include "sp-record/deepcache.h"
#include "sp-record/deepstack.h"
#include "sp-record/elfcfi.h"
#include "sp-record/madecfi.h"
#include "sp-record/goframes.h"
#include "sp-record/gofuncs.h"
#include "sp-record/pytramp.h"
#include "sp-record/regcache.h"
#include "sp-record/sigmask.h"
#include "sp-record/unwind.h"
#include "sp-record/unwind_code.h"
#include "sp-record/unwind_acc.h"
#include "sp-record/unwind_calls.h"
#include "sp-record/unwind_ctx.h"
#include "sp-record/unwind_go.h"
#include "sp-record/unwind_walk.h"
#include "common/banned.h"

_Static_assert(REC_UNW_MAX_FRAMES == REC_UNWIND_MAX_FRAMES,
	       "unwind_ctx.h's bound on frames is unwind.h's");

static const char *const deep_keys[DEEP_COUNT] = {
	"unwind_deep.samples",       "unwind_deep.completed",
	"unwind_deep.stack_changed", "unwind_deep.call_mismatch",
	"unwind_deep.unverified",    "unwind_deep.cached",
};

static const char *const error_keys[ERR_COUNT] = {
	"unwind_error.no_user_regs",
	"unwind_error.no_user_stack",
	"unwind_error.init_failed",
	"unwind_error.stack_truncated",
	"unwind_error.too_many_frames",
	"unwind_error.step_failed",
	"unwind_error.fallback_failed",
	"unwind_error.did_not_advance",
	"unwind_error.sp_moved_backwards",
	"unwind_error.return_address_not_code",
};

static const char *const fallback_keys[FB_COUNT] = {
	"unwind_fallback.no_module",
	"unwind_fallback.no_module_file",
	"unwind_fallback.no_module_unwind_data",
	"unwind_fallback.eh_frame_hdr_lookup",
	"unwind_fallback.dwarf_fde_read",
};

/* ------------------------------------------------------------ processes */

/* Frees `p` and gives back the module files it held. */
static void
proc_free(struct rec_unwinder *u, struct rec_unwproc *p)
{
	if (!p)
		return;
	if (p->as) {
		rec_in_libunwind = 1;
		unw_destroy_addr_space(p->as);
		rec_in_libunwind = 0;
	}
	rec_regcache_release(&p->regions, u->files);
	rec_stackmaps_release(&p->stacks);
	if (p->memfd >= 0)
		close(p->memfd);
	sp_htab_free(p->tramps);
	sp_htab_free(p->tails);
	rec_gomods_free(p->go);
	rec_deepcache_release(&p->deep);
	free(p);
}

static struct rec_unwproc *
proc_get(struct rec_unwinder *u, int32_t pid)
{
	struct rec_unwproc *p = u->last_proc;
	uint64_t *slot;
	bool inserted;

	if (p && p->pid == pid)
		return p;
	slot = sp_htab_slot(u->procs, &pid, sizeof(pid), 0, &inserted);
	if (!slot)
		return NULL;
	if (!*slot) {
		if (!(p = calloc(1, sizeof(*p))))
			return NULL;
		p->pid = pid;
		rec_regcache_init(&p->regions, pid);
		p->memfd = -1;
		*slot = (uint64_t)(uintptr_t)p;
	}
	u->last_proc = (struct rec_unwproc *)(uintptr_t)*slot;
	return u->last_proc;
}

void
rec_unwinder_forget_process(struct rec_unwinder *u, int32_t pid)
{
	uint64_t val;

	if (!sp_htab_get(u->procs, &pid, sizeof(pid), &val) || !val)
		return;
	if (u->last_proc == (struct rec_unwproc *)(uintptr_t)val)
		u->last_proc = NULL;
	proc_free(u, (struct rec_unwproc *)(uintptr_t)val);
	sp_htab_del(u->procs, &pid, sizeof(pid));
}

static void
ranges_free(struct rec_ranges *rs)
{
	if (rs)
		rec_ranges_release(rs);
	free(rs);
}

int
rec_unwinder_add_code(struct rec_unwinder *u, int32_t pid, uint64_t start,
		      uint64_t end)
{
	struct rec_ranges *rs;
	uint64_t *slot;
	bool inserted;

	slot = sp_htab_slot(u->code, &pid, sizeof(pid), 0, &inserted);
	if (!slot)
		return -ENOMEM;
	if (!*slot) {
		if (!(rs = calloc(1, sizeof(*rs))))
			return -ENOMEM;
		*slot = (uint64_t)(uintptr_t)rs;
	}
	return rec_ranges_add((struct rec_ranges *)(uintptr_t)*slot, start,
			      end);
}

void
rec_unwinder_end_process(struct rec_unwinder *u, int32_t pid)
{
	uint64_t val;

	rec_unwinder_forget_process(u, pid);
	if (!sp_htab_get(u->code, &pid, sizeof(pid), &val))
		return;
	ranges_free((struct rec_ranges *)(uintptr_t)val);
	sp_htab_del(u->code, &pid, sizeof(pid));
}

struct rec_unwinder *
rec_unwinder_new(struct rec_filepin *pins)
{
	struct rec_unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->files = rec_elfcfi_cache_new(pins);
	u->rules = rec_cfimemo_new(REC_CFIMEMO_MAX);
	u->procs = sp_htab_new();
	u->code = sp_htab_new();
	if (!u->files || !u->rules || !u->procs || !u->code ||
	    rec_deepstack_init(&u->live, REC_DEEPSTACK_BUDGET) < 0) {
		rec_unwinder_free(u);
		errno = ENOMEM;
		return NULL;
	}
	return u;
}

void
rec_unwinder_free(struct rec_unwinder *u)
{
	size_t pos = 0, klen;
	const void *key;
	uint64_t val;

	if (!u)
		return;
	while (u->procs && sp_htab_next(u->procs, &pos, &key, &klen, &val))
		proc_free(u, (struct rec_unwproc *)(uintptr_t)val);
	sp_htab_free(u->procs);
	pos = 0;
	while (u->code && sp_htab_next(u->code, &pos, &key, &klen, &val))
		ranges_free((struct rec_ranges *)(uintptr_t)val);
	sp_htab_free(u->code);
	rec_elfcfi_cache_free(u->files);
	rec_cfimemo_free(u->rules);
	rec_deepstack_release(&u->live);
	free(u);
}

int
rec_unwinder_set_stack_read(struct rec_unwinder *u, size_t bytes)
{
	rec_deepstack_release(&u->live);
	return rec_deepstack_init(&u->live, bytes);
}

/* ------------------------------------------------------------ unwinding */

/*
 * A sample taken inside rt_sigreturn has its pc just after the
 * trampoline's syscall instruction, past the trampoline's CFI.  Unwinding
 * from the trampoline's first instruction instead (same registers, so the
 * same signal frame) recovers the interrupted frame.  Returns that
 * address, or 0.
 */
static uint64_t
sigreturn_start(struct rec_uctx *c, uint64_t ip)
{
	return ip >= 9 && rec_unw_is_trampoline(c, ip - 9) ? ip - 9 : 0;
}

/* ------------------------------------------- the recorder's own CFI rules */

/*
 * The memo's words for an address without a rule of cfirule.h's kind:
 * one no FDE covers (libunwind steps it by frame pointer), and one
 * whose FDE holds another kind of rule.
 */
#define NO_FDE (UINT64_MAX - 1)
#define NO_RULE UINT64_MAX

/* Reads the rule for ELF address `vaddr` of `f` from the file. */
static uint64_t
read_rule(const struct rec_elfcfi *f, uint64_t vaddr, struct rec_cfirule *rule)
{
	const uint8_t *sec;
	uint64_t fde, lo;
	int32_t entry[2];
	size_t len;
	int r;

	if (!rec_unw_fde_lookup(f, vaddr, entry))
		return NO_FDE;
	fde = f->table_base + (uint64_t)(int64_t)entry[1];
	if (!(sec = rec_elfcfi_span(f, fde, &lo, &len)))
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
own_rule(struct rec_uctx *c, uint64_t at, struct rec_cfirule *rule)
{
	const struct rec_region *r;
	const struct rec_elfcfi *f;
	uint64_t word, vaddr;
	bool keep;
	int why;

	if (!(r = rec_unw_region(c, at, &why)) || !(f = r->f)->table)
		return -1;
	vaddr = at - r->bias;
	keep = f->id.dev || f->id.ino;
	if (!keep || !rec_cfimemo_get(c->u->rules, &f->id, vaddr, &word)) {
		word = read_rule(f, vaddr, rule);
		c->u->rules_read++;
		if (keep)
			rec_cfimemo_put(c->u->rules, &f->id, vaddr, word);
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
fp_end(struct rec_uctx *c, uint64_t ip)
{
	const struct rec_region *r;
	uint8_t code[16];
	int why;

	return (r = rec_unw_region(c, ip, &why)) &&
	       rec_elfcfi_read(r->f, ip - r->bias, code, sizeof(code)) == 0 &&
	       !(code[0] == 0xff && code[1] == 0x25 && code[6] == 0x68 &&
		 code[11] == 0xe9);
}

/* The copy's word at `addr`; false when it lies outside the copy. */
static bool
copy_word(const struct rec_uctx *c, uint64_t addr, uint64_t *v)
{
	if (addr < c->sp || addr - c->sp > c->stack_len - sizeof(*v))
		return false;
	memcpy(v, c->stack + (addr - c->sp), sizeof(*v));
	return true;
}

/*
 * The stack word at `addr` for own_step(): from the copy (noted for the
 * re-read, as access_mem() does), else from the live stack above it.
 */
static bool
stack_word(struct rec_uctx *c, uint64_t addr, uint64_t *v)
{
	struct rec_deepstep *f = c->step;

	if (copy_word(c, addr, v))
		rec_deepstack_saw(&c->u->live, addr);
	else if (!rec_deepstack_read(&c->u->live, addr, v))
		return false;
	if (f->nwords < 2) {
		f->addr[f->nwords] = addr;
		f->val[f->nwords++] = *v;
	}
	return true;
}

/* own_step()'s answers besides 1 (a step) and 0 (the outermost frame). */
#define OWN_OTHER (-1)   /* not ours: libunwind unwinds the sample */
#define OWN_REFUSED (-2) /* a step over the live stack failed a check */
#define OWN_RETRY (-3)   /* a cached chain does not fit: walk without */

/*
 * Whether a step that read the live stack may go on: outward on it (the
 * check live_step_ok() makes of libunwind's steps) to a return address
 * that is code.  Where step() would refuse it, the live frames are
 * dropped as settle() drops them.
 */
static int
own_live_ok(struct rec_uctx *c, uint64_t sp, uint64_t cfa, uint64_t ra)
{
	if (!rec_deepstack_outward(&c->u->live, sp, cfa) ||
	    !rec_unw_is_code(c, ra))
		return OWN_REFUSED;
	return rec_unw_is_trampoline(c, ra) ? OWN_OTHER : 1;
}

/*
 * One step of own_walk(): from the frame at `at` with stack pointer *sp
 * and frame pointer *bp to its caller, as libunwind's step would go with
 * the same rule, reading above the copy as step() lets it (CFI only,
 * outward).  Returns 1 with *ip the caller's return address, 0 at the
 * outermost frame, OWN_OTHER for anything else in the copy (the rule is
 * not ours, a check of step() would fail) or an unusual end above it,
 * OWN_REFUSED where a step that read above the copy fails.
 */
static int
own_step(struct rec_uctx *c, uint64_t at, uint64_t *ip, uint64_t *sp,
	 uint64_t *bp, bool *have_bp)
{
	struct rec_cfirule rule;
	uint64_t cfa, ra;
	int r = own_rule(c, at, &rule);

	if (r == 0 && *have_bp && *bp == 0 && fp_end(c, *ip) &&
	    !rec_deepstack_used(&c->u->live)) {
		c->u->fallbacks[FB_EH_FRAME_HDR_LOOKUP]++;
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
		return rec_deepstack_used(&c->u->live) ? OWN_REFUSED
						       : OWN_OTHER;
	if ((ra == *ip && cfa == *sp) ||
	    ((rule.bp == REC_CFIRULE_UNDEF || ra == 0) &&
	     rec_deepstack_used(&c->u->live)))
		return OWN_OTHER;
	if (rule.bp == REC_CFIRULE_UNDEF || ra == 0)
		return 0;
	if (rule.bp != REC_CFIRULE_SAME &&
	    !(*have_bp = stack_word(c, cfa + (uint64_t)(int64_t)rule.bp, bp)))
		return OWN_OTHER;
	if (rec_deepstack_used(&c->u->live))
		r = own_live_ok(c, *sp, cfa, ra);
	else
		r = cfa < *sp || !rec_unw_is_code(c, ra) ||
			    rec_unw_is_trampoline(c, ra)
			? OWN_OTHER
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
own_replay(struct rec_uctx *c, const struct rec_deepchain *ch, size_t j,
	   uint64_t *pcs, size_t *n, size_t max, size_t *first_live)
{
	struct rec_deepstack *d = &c->u->live;
	const struct rec_deepstep *f;
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
		c->u->steps[*n - 1] = *f;
		pcs[(*n)++] = ch->v[k + 1].ip - 1;
	}
	c->u->steps[*n - 1] = ch->v[ch->n - 1];
	c->from = ch;
	return 0;
}

/*
 * Sets the walk's record of frame pcs[n - 1] (u->steps) to its state;
 * own_step() adds the words it reads.
 */
static struct rec_deepstep *
own_frame(struct rec_uctx *c, const uint64_t *pcs, size_t n, uint64_t ip,
	  uint64_t sp, uint64_t bp, bool have_bp)
{
	struct rec_deepstep *f = &c->u->steps[n - 1];

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
 * must call its callee (rec_unw_call_matches), as walk() checks.  Where a frame
 * has the state of one of a cached chain's, the rest comes from the
 * chain (own_replay).  Returns 0 with the pcs in pcs[*n...] when every
 * step had such a rule and the walk reached the outermost frame,
 * OWN_REFUSED when a step over the live stack failed (*first_live is the
 * index of the first pc found with live reads, as walk() sets it),
 * OWN_RETRY when a cached chain did not fit; OWN_OTHER (nothing counted)
 * leaves the sample to libunwind, which takes it from the start.
 */
static int
own_walk(struct rec_uctx *c, uint64_t *pcs, size_t *n, size_t max,
	 size_t *first_live)
{
	uint64_t ip = pcs[0], sp = c->sp, bp = 0;
	bool have_bp =
	    rec_unw_reg_value(c->regs, c->mask, PERF_REG_X86_BP, &bp);
	const struct rec_deepchain *ch;
	struct rec_deepstep *f;
	size_t j;
	int r;

	*first_live = max;
	if (rec_unw_is_trampoline(c, ip))
		return OWN_OTHER;
	for (;;) {
		f = own_frame(c, pcs, *n, ip, sp, bp, have_bp);
		if (!c->no_cache &&
		    rec_deepcache_find(&c->p->deep, f, &ch, &j)) {
			c->old = ch;
			return own_replay(c, ch, j, pcs, n, max, first_live);
		}
		if ((r = own_step(c, pcs[*n - 1], &ip, &sp, &bp, &have_bp)) <=
		    0)
			break;
		if (*n == max)
			return OWN_OTHER;
		if (rec_deepstack_used(&c->u->live)) {
			if (*first_live == max)
				*first_live = *n;
			if (!rec_unw_call_matches(c, pcs[*n - 1], ip)) {
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
 * After own_walk() returned `r` and settle() kept `n` pcs: a stack
 * completed over live reads gives the process's cache its frames from
 * the one before the first found live (the chain a cached one came from
 * is replaced: the same thread's, most likely).
 */
static void
keep_chain(struct rec_unwinder *u, struct rec_uctx *c, int r, size_t n,
	   size_t first_live, uint64_t completed)
{
	if (r != 0 || u->deep[DEEP_COMPLETED] == completed || first_live >= n)
		return;
	if (c->from)
		u->deep[DEEP_CACHED]++;
	(void)rec_deepcache_put(&c->p->deep, u->steps + first_live - 1,
				n - first_live + 1, c->from ? c->from : c->old);
}

/*
 * own_walk(), and when it took frames from a cached chain, their words'
 * re-read: a chain whose words changed may still lead to the outermost
 * frame by other words, which a walk without the cache reads.
 */
static int
own_walk_verified(struct rec_unwinder *u, struct rec_uctx *c, uint64_t *pcs,
		  size_t *n, size_t max, size_t *first_live)
{
	int r = own_walk(c, pcs, n, max, first_live);

	if (r == 0 && c->from && rec_deepstack_used(&u->live)) {
		c->verdict = rec_deepstack_verify(&u->live);
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
static bool
own_unwind(struct rec_unwinder *u, struct rec_uctx *c, uint64_t *pcs, size_t *n,
	   size_t max, bool *truncated)
{
	uint64_t completed = u->deep[DEEP_COMPLETED];
	size_t first_live;
	int r;

	while ((r = own_walk_verified(u, c, pcs, n, max, &first_live)) ==
	       OWN_RETRY) {
		rec_deepstack_begin(&u->live, c->p->pid, &c->p->stacks, c->sp,
				    c->stack, c->stack_len);
		c->no_cache = true;
		c->call_mismatch = false;
		c->have_verdict = false;
		c->old = c->from ? c->from : c->old;
		c->from = NULL;
		*n = 1;
	}
	if (r == OWN_OTHER) {
		rec_deepstack_begin(&u->live, c->p->pid, &c->p->stacks, c->sp,
				    c->stack, c->stack_len);
		c->call_mismatch = false;
		*n = 1;
		return false;
	}
	u->own_samples++;
	*n = rec_unw_settle(u, c, r, *n, first_live, truncated);
	keep_chain(u, c, r, *n, first_live, completed);
	return true;
}

/* Ends the unwind call that found `n` pcs; returns `n`. */
static size_t
unwound(struct rec_unwinder *u, size_t n)
{
	u->go.fp = NULL;
	u->go.nfp = 0;
	u->changed_files = rec_elfcfi_changed(u->files);
	u->frames += n;
	return n;
}

size_t
rec_unwinder_unwind(struct rec_unwinder *u, struct sp_modtab *mods, int32_t pid,
		    const uint64_t *regs, uint64_t regs_mask,
		    const uint8_t *stack, size_t stack_len, uint64_t *pcs,
		    size_t max, bool *truncated)
{
	struct rec_uctx c;
	unw_cursor_t cur;
	uint64_t ip, sp;
	size_t n = 0, first_live;
	int r;

	*truncated = false;
	u->missed_module = false;
	u->samples++;
	if (!regs ||
	    !rec_unw_reg_value(regs, regs_mask, PERF_REG_X86_IP, &ip) ||
	    !rec_unw_reg_value(regs, regs_mask, PERF_REG_X86_SP, &sp)) {
		u->errors[ERR_NO_REGS]++;
		return 0;
	}
	if (!stack || stack_len < sizeof(uint64_t)) {
		u->errors[ERR_NO_STACK]++;
		return 0;
	}
	if (max == 0)
		return 0;
	memset(&c, 0, sizeof(c));
	c.u = u;
	c.mods = mods;
	c.regs = regs;
	c.mask = regs_mask;
	c.stack = stack;
	c.stack_len = stack_len;
	c.sp = sp;
	if (!(c.p = proc_get(u, pid))) {
		u->errors[ERR_INIT]++;
		return 0;
	}
	rec_deepstack_begin(&u->live, pid, &c.p->stacks, sp, stack, stack_len);
	pcs[n++] = ip;
	c.ip_override = sigreturn_start(&c, ip);
	if (!u->own_off && !c.ip_override &&
	    own_unwind(u, &c, pcs, &n, max, truncated))
		return unwound(u, n);
	rec_in_libunwind = 1;
	if (!rec_unw_proc_as(c.p) || unw_init_remote(&cur, c.p->as, &c) < 0) {
		u->errors[ERR_INIT]++;
		*truncated = true;
	} else {
		r = rec_unw_walk(u, &c, &cur,
				 rec_unw_is_trampoline(
				     &c, c.ip_override ? c.ip_override : ip),
				 pcs, &n, max, &first_live);
		n = rec_unw_settle(u, &c, r, n, first_live, truncated);
	}
	rec_in_libunwind = 0;
	return unwound(u, n);
}

void
rec_unwinder_counters(const struct rec_unwinder *u,
		      void (*fn)(const char *key, uint64_t value, void *arg),
		      void *arg)
{
	size_t i;

	if (u->samples)
		fn("unwind.samples", u->samples, arg);
	if (u->frames)
		fn("unwind.frames", u->frames, arg);
	if (u->changed_files)
		fn("unwind.changed_files", u->changed_files, arg);
	if (u->own_samples)
		fn("unwind.own_cfi_samples", u->own_samples, arg);
	if (u->rules_read)
		fn("unwind.own_cfi_rules_read", u->rules_read, arg);
	for (i = 0; i < ERR_COUNT; i++)
		if (u->errors[i])
			fn(error_keys[i], u->errors[i], arg);
	for (i = 0; i < FB_COUNT; i++)
		if (u->fallbacks[i])
			fn(fallback_keys[i], u->fallbacks[i], arg);
	for (i = 0; i < DEEP_COUNT; i++)
		if (u->deep[i])
			fn(deep_keys[i], u->deep[i], arg);
	if (u->live.syscalls)
		fn("unwind_deep.reads", u->live.syscalls, arg);
	if (u->live.bytes)
		fn("unwind_deep.bytes", u->live.bytes, arg);
	if (u->live.maps_reads)
		fn("unwind_deep.maps_reads", u->live.maps_reads, arg);
	if (u->live.segments)
		fn("unwind_deep.segments", u->live.segments, arg);
	rec_unw_go_counters(&u->go, fn, arg);
}

void
rec_unwinder_set_own_cfi(struct rec_unwinder *u, bool on)
{
	u->own_off = !on;
}

void
rec_unwinder_set_fpchain(struct rec_unwinder *u, const uint64_t *pcs, size_t n)
{
	u->go.fp = pcs;
	u->go.nfp = n;
}

bool
rec_unwinder_missed_module(const struct rec_unwinder *u, uint64_t *pc)
{
	if (u->missed_module && pc)
		*pc = u->missed_pc;
	return u->missed_module;
}
