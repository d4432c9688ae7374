/*
 * unwind.c: the DWARF unwinder (unwind.h): its life, its per-process
 * state, the entry point that picks a walk for each sample, and the
 * counters.
 *
 * A sample is first walked with the recorder's own CFI rules
 * (unwind_own.c: CFA = SP or BP + offset, the return address and BP at
 * CFA offsets, kept per module file and address), which take only the
 * stacks they can finish exactly as libunwind would; libunwind unwinds
 * the rest from the start (unwind_walk.c), through a per-process address
 * space whose accessors (unwind_acc.c) find unwind tables in each
 * module's .eh_frame_hdr (mapped.h) and read the sample's stack copy,
 * the module files, and above the copy the live process (deepstack.h),
 * whose frames the walks verify before keeping them (unwind_calls.c
 * checks each caller called its callee).  What is code, and where module
 * files and trampolines lie, is unwind_code.c's; Go's stack switches are
 * unwind_go.c's.  The parts share the unwinder and one call's context
 * (unwind_ctx.h) and call one another in one direction only: this file
 * calls the walks, the walks call the checks, the checks call
 * unwind_code.c.  Where module files lie in a process is regcache.c's;
 * keeping the frames found live for the next sample is deepcache.c's;
 * the sigprocmask() that keeps libunwind fast is sigmask.c's.
 * docs/bench-unwind.md says why this backend and what it costs.
 */
#include <errno.h>
#include <libunwind.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <asm/perf_regs.h>

#include "common/htab.h"
#include "sp-record/unwind/cfimemo.h"
#include "sp-record/unwind/coderange.h"
#include "sp-record/unwind/deepcache.h"
#include "sp-record/unwind/deepstack.h"
#include "sp-record/unwind/mapped.h"
#include "sp-record/unwind/gofuncs.h"
#include "sp-record/perf/perfrec.h"
#include "sp-record/unwind/regcache.h"
#include "sp-record/sys/sigmask.h"
#include "sp-record/unwind/unwind.h"
#include "sp-record/unwind/unwind_acc.h"
#include "sp-record/unwind/unwind_code.h"
#include "sp-record/unwind/unwind_ctx.h"
#include "sp-record/unwind/unwind_go.h"
#include "sp-record/unwind/unwind_own.h"
#include "sp-record/unwind/unwind_walk.h"
#include "common/banned.h"

_Static_assert(REC_UNWIND_CTX_MAX_FRAMES == REC_UNWIND_MAX_FRAMES,
	       "unwind_ctx.h's bound on frames is unwind.h's");

/*
 * The unwinder: its caches, the state it hands its parts (the own
 * rules', the Go part's, each call's counters and live stack) and its
 * counters (rec_unwind_counters).
 */
struct rec_unwind {
	struct rec_mapped_cache *files;
	struct rec_unwind_own own; /* the recorder's own rules (unwind_own.h) */
	bool own_off;              /* rec_unwind_set_own_cfi(u, false) */
	struct sp_htab *procs;     /* pid -> struct rec_unwind_ctx_proc * */
	struct sp_htab *code; /* pid -> struct rec_coderange * (anon. code) */
	struct sp_htab *over; /* steps that ran out of reads (unwind_walk.c) */
	struct rec_unwind_ctx_proc *last_proc;
	struct rec_unwind_ctx_count count; /* what the walks count */
	uint64_t samples, frames;
	uint64_t changed_files;    /* module files cut under their mapping */
	struct rec_deepstack live; /* the stack above the copy, read live */
	struct rec_unwind_go go;   /* Go's stacks (unwind_go.h) */
	uint8_t tail_code[TAIL_SCAN_MAX]; /* code scanned for a tail call */
};

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
	"unwind_error.caller_skipped",
	"unwind_error.budget_exceeded",
};

static const char *const fallback_keys[FB_COUNT] = {
	"unwind_fallback.no_module",
	"unwind_fallback.no_module_file",
	"unwind_fallback.no_module_unwind_data",
	"unwind_fallback.eh_frame_hdr_lookup",
	"unwind_fallback.dwarf_fde_read",
};

/* Frees `p` and gives back the module files it held. */
static void
proc_free(struct rec_unwind *u, struct rec_unwind_ctx_proc *p)
{
	if (!p)
		return;
	if (p->as) {
		rec_sigmask_in_libunwind = 1;
		unw_destroy_addr_space(p->as);
		rec_sigmask_in_libunwind = 0;
	}
	rec_regcache_release(&p->regions, u->files);
	rec_deepstack_maps_release(&p->stacks);
	if (p->memfd >= 0)
		close(p->memfd);
	sp_htab_free(p->tramps);
	sp_htab_free(p->tails);
	rec_gofuncs_mods_free(p->go);
	rec_deepcache_release(&p->deep);
	free(p);
}

static struct rec_unwind_ctx_proc *
proc_get(struct rec_unwind *u, int32_t pid)
{
	struct rec_unwind_ctx_proc *p = u->last_proc;
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
	u->last_proc = (struct rec_unwind_ctx_proc *)(uintptr_t)*slot;
	return u->last_proc;
}

void
rec_unwind_forget_process(struct rec_unwind *u, int32_t pid)
{
	uint64_t val;

	if (!sp_htab_get(u->procs, &pid, sizeof(pid), &val) || !val)
		return;
	if (u->last_proc == (struct rec_unwind_ctx_proc *)(uintptr_t)val)
		u->last_proc = NULL;
	proc_free(u, (struct rec_unwind_ctx_proc *)(uintptr_t)val);
	sp_htab_del(u->procs, &pid, sizeof(pid));
}

static void
ranges_free(struct rec_coderange *rs)
{
	if (rs)
		rec_coderange_release(rs);
	free(rs);
}

int
rec_unwind_add_code(struct rec_unwind *u, int32_t pid, uint64_t start,
		    uint64_t end)
{
	struct rec_coderange *rs;
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
	return rec_coderange_add((struct rec_coderange *)(uintptr_t)*slot,
				 start, end);
}

void
rec_unwind_end_process(struct rec_unwind *u, int32_t pid)
{
	uint64_t val;

	rec_unwind_forget_process(u, pid);
	if (!sp_htab_get(u->code, &pid, sizeof(pid), &val))
		return;
	ranges_free((struct rec_coderange *)(uintptr_t)val);
	sp_htab_del(u->code, &pid, sizeof(pid));
}

struct rec_unwind *
rec_unwind_new(struct rec_filepin *pins)
{
	struct rec_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->files = rec_mapped_cache_new(pins);
	u->own.rules = rec_cfimemo_new(REC_CFIMEMO_MAX);
	u->procs = sp_htab_new();
	u->code = sp_htab_new();
	u->over = sp_htab_new();
	if (!u->files || !u->own.rules || !u->procs || !u->code || !u->over ||
	    rec_deepstack_init(&u->live, REC_DEEPSTACK_BUDGET) < 0) {
		rec_unwind_free(u);
		errno = ENOMEM;
		return NULL;
	}
	return u;
}

void
rec_unwind_free(struct rec_unwind *u)
{
	size_t pos = 0, klen;
	const void *key;
	uint64_t val;

	if (!u)
		return;
	while (u->procs && sp_htab_next(u->procs, &pos, &key, &klen, &val))
		proc_free(u, (struct rec_unwind_ctx_proc *)(uintptr_t)val);
	sp_htab_free(u->procs);
	pos = 0;
	while (u->code && sp_htab_next(u->code, &pos, &key, &klen, &val))
		ranges_free((struct rec_coderange *)(uintptr_t)val);
	sp_htab_free(u->code);
	sp_htab_free(u->over);
	rec_mapped_cache_free(u->files);
	rec_cfimemo_free(u->own.rules);
	rec_deepstack_release(&u->live);
	free(u);
}

int
rec_unwind_set_stack_read(struct rec_unwind *u, size_t bytes)
{
	rec_deepstack_release(&u->live);
	return rec_deepstack_init(&u->live, bytes);
}

/*
 * A sample taken inside rt_sigreturn has its pc just after the
 * trampoline's syscall instruction, past the trampoline's CFI.  Unwinding
 * from the trampoline's first instruction instead (same registers, so the
 * same signal frame) recovers the interrupted frame.  Returns that
 * address, or 0.
 */
static uint64_t
sigreturn_start(struct rec_unwind_ctx *c, uint64_t ip)
{
	return ip >= 9 && rec_unwind_code_is_trampoline(c, ip - 9) ? ip - 9 : 0;
}

/* Ends the unwind call that found `n` pcs; returns `n`. */
static size_t
unwound(struct rec_unwind *u, size_t n)
{
	u->go.fp = NULL;
	u->go.nfp = 0;
	u->changed_files = rec_mapped_changed(u->files);
	u->frames += n;
	return n;
}

size_t
rec_unwind_unwind(struct rec_unwind *u, struct sp_modtab *mods, int32_t pid,
		  const uint64_t *regs, uint64_t regs_mask,
		  const uint8_t *stack, size_t stack_len, uint64_t *pcs,
		  size_t max, bool *truncated)
{
	struct rec_unwind_ctx c;
	unw_cursor_t cur;
	uint64_t ip, sp;
	size_t n = 0, first_live;
	int r;

	*truncated = false;
	u->count.missed_module = false;
	u->samples++;
	if (!regs ||
	    !rec_perfrec_regs_value(regs, regs_mask, PERF_REG_X86_IP, &ip) ||
	    !rec_perfrec_regs_value(regs, regs_mask, PERF_REG_X86_SP, &sp)) {
		u->count.errors[ERR_NO_REGS]++;
		return 0;
	}
	if (!stack || stack_len < sizeof(uint64_t)) {
		u->count.errors[ERR_NO_STACK]++;
		return 0;
	}
	if (max == 0)
		return 0;
	memset(&c, 0, sizeof(c));
	c.files = u->files;
	c.code = u->code;
	c.live = &u->live;
	c.count = &u->count;
	c.over = u->over;
	c.tail_code = u->tail_code;
	c.mods = mods;
	c.regs = regs;
	c.mask = regs_mask;
	c.stack = stack;
	c.stack_len = stack_len;
	c.sp = sp;
	if (!(c.p = proc_get(u, pid))) {
		u->count.errors[ERR_INIT]++;
		return 0;
	}
	rec_deepstack_begin(&u->live, pid, &c.p->stacks, sp, stack, stack_len);
	pcs[n++] = ip;
	/* The own walk leaves a sample at a trampoline to libunwind. */
	if (!u->own_off &&
	    rec_unwind_own_unwind(&u->own, &c, pcs, &n, max, truncated))
		return unwound(u, n);
	c.ip_override = sigreturn_start(&c, ip);
	rec_sigmask_in_libunwind = 1;
	if (!rec_unwind_acc_proc_as(c.p) ||
	    unw_init_remote(&cur, c.p->as, &c) < 0) {
		u->count.errors[ERR_INIT]++;
		*truncated = true;
	} else {
		r = rec_unwind_walk(&u->go, &c, &cur,
				    rec_unwind_code_is_trampoline(
					&c, c.ip_override ? c.ip_override : ip),
				    pcs, &n, max, &first_live);
		n = rec_unwind_walk_settle(&c, r, n, first_live, truncated);
	}
	rec_sigmask_in_libunwind = 0;
	return unwound(u, n);
}

bool
rec_unwind_last_deep(const struct rec_unwind *u, uint64_t *lo, uint64_t *hi)
{
	const struct rec_deepstack_span *s = &u->live.span[0];

	if (!rec_deepstack_used(&u->live) || u->live.nspan == 0 || !s->map_hi ||
	    u->live.sp < s->map_lo || u->live.sp >= s->map_hi)
		return false;
	*lo = s->map_lo;
	*hi = s->map_hi;
	return true;
}

uint64_t
rec_unwind_deep_samples(const struct rec_unwind *u)
{
	return u->count.deep[DEEP_SAMPLES];
}

void
rec_unwind_counters(const struct rec_unwind *u,
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
	if (u->own.samples)
		fn("unwind.own_cfi_samples", u->own.samples, arg);
	if (u->own.rules_read)
		fn("unwind.own_cfi_rules_read", u->own.rules_read, arg);
	for (i = 0; i < ERR_COUNT; i++)
		if (u->count.errors[i])
			fn(error_keys[i], u->count.errors[i], arg);
	for (i = 0; i < FB_COUNT; i++)
		if (u->count.fallbacks[i])
			fn(fallback_keys[i], u->count.fallbacks[i], arg);
	if (u->count.leaf_returns)
		fn("unwind.leaf_return_pcs", u->count.leaf_returns, arg);
	if (u->count.exhausted)
		fn("unwind.reads_exhausted", u->count.exhausted, arg);
	for (i = 0; i < DEEP_COUNT; i++)
		if (u->count.deep[i])
			fn(deep_keys[i], u->count.deep[i], arg);
	if (u->live.syscalls)
		fn("unwind_deep.reads", u->live.syscalls, arg);
	if (u->live.bytes)
		fn("unwind_deep.bytes", u->live.bytes, arg);
	if (u->live.maps_reads)
		fn("unwind_deep.maps_reads", u->live.maps_reads, arg);
	if (u->live.segments)
		fn("unwind_deep.segments", u->live.segments, arg);
	rec_unwind_go_counters(&u->go, fn, arg);
}

void
rec_unwind_set_own_cfi(struct rec_unwind *u, bool on)
{
	u->own_off = !on;
}

void
rec_unwind_set_fpchain(struct rec_unwind *u, const uint64_t *pcs, size_t n)
{
	u->go.fp = pcs;
	u->go.nfp = n;
}

bool
rec_unwind_missed_module(const struct rec_unwind *u, uint64_t *pc)
{
	if (u->count.missed_module && pc)
		*pc = u->count.missed_pc;
	return u->count.missed_module;
}
