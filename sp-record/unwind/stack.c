/*
 * stack.c: sample stacks from callchains or the DWARF unwinder (stack.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <asm/perf_regs.h>
#include <linux/perf_event.h>

#include "common/modtab.h"
#include "sp-record/perf/perfrec.h"
#include "sp-record/unwind/stack.h"
#include "sp-record/unwind/unwind.h"
#include "common/banned.h"

size_t
rec_stack_callchain_split(const uint64_t *chain, size_t n, unsigned want,
			  struct rec_stack_rawframe *out, size_t max,
			  uint64_t *skipped)
{
	enum sp_frame_mode mode = SP_FRAME_USER;
	unsigned cur = REC_STACK_CHAIN_USER;
	bool head = true;
	size_t i, k = 0;
	uint64_t a;

	for (i = 0; i < n; i++) {
		a = chain[i];
		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			switch ((int64_t)a) {
			case PERF_CONTEXT_KERNEL:
			case PERF_CONTEXT_HV:
			case PERF_CONTEXT_GUEST_KERNEL:
				mode = SP_FRAME_KERNEL;
				cur = REC_STACK_CHAIN_KERNEL;
				break;
			default: /* user, guest, guest user, unknown */
				mode = SP_FRAME_USER;
				cur = REC_STACK_CHAIN_USER;
				break;
			}
			head = true;
			continue;
		}
		if (!(want & cur)) {
			if (skipped)
				(*skipped)++;
			head = false;
			continue;
		}
		/* A zero return address is the walk's end, not a frame. */
		if (k < max && (head || a != 0)) {
			/* A return address points after the call: step back. */
			out[k].addr = head ? a : a - 1;
			out[k].mode = mode;
			k++;
		}
		head = false;
	}
	return k;
}

int
rec_stack_init(struct rec_stack *s, enum rec_stack_callgraph mode,
	       uint64_t regs_mask, unsigned max_chain, struct rec_filepin *pins)
{
	memset(s, 0, sizeof(*s));
	s->mode = mode;
	s->regs_mask = regs_mask;
	s->max_chain = max_chain;
	s->raw = calloc(REC_STACK_MAX, sizeof(*s->raw));
	s->pcs = calloc(REC_UNWIND_MAX_FRAMES, sizeof(*s->pcs));
	s->fpraw = calloc(REC_STACK_FPCHAIN_MAX, sizeof(*s->fpraw));
	s->fppcs = calloc(REC_STACK_FPCHAIN_MAX, sizeof(*s->fppcs));
	if (!s->raw || !s->pcs || !s->fpraw || !s->fppcs) {
		rec_stack_release(s);
		return -ENOMEM;
	}
	if (mode == REC_CG_DWARF) {
		s->unwinder = rec_unwind_new(pins);
		if (!s->unwinder) {
			int err = errno ? -errno : -ENOSYS;

			rec_stack_release(s);
			return err;
		}
	}
	return 0;
}

int
rec_stack_set_stack_read(struct rec_stack *s, size_t bytes)
{
	return s->unwinder ? rec_unwind_set_stack_read(s->unwinder, bytes) : 0;
}

void
rec_stack_release(struct rec_stack *s)
{
	rec_unwind_free(s->unwinder);
	free(s->raw);
	free(s->pcs);
	free(s->fpraw);
	free(s->fppcs);
	s->unwinder = NULL;
	s->raw = NULL;
	s->pcs = NULL;
	s->fpraw = NULL;
	s->fppcs = NULL;
}

/* Counts the addresses of a callchain, context markers left out. */
static size_t
chain_depth(const uint64_t *chain, size_t n)
{
	size_t i, d = 0;

	for (i = 0; i < n; i++)
		if (chain[i] < (uint64_t)PERF_CONTEXT_MAX)
			d++;
	return d;
}

/* Appends the DWARF-unwound user frames; returns the new count. */
static size_t
dwarf_user_frames(struct rec_stack *s, struct sp_modtab *mods, int32_t pid,
		  const struct rec_perfrec_sample *smp, size_t k,
		  bool *truncated)
{
	const uint64_t *regs =
	    smp->abi == PERF_SAMPLE_REGS_ABI_64 ? smp->regs : NULL;
	size_t i, n;

	/* the kernel's frame-pointer walk, when asked for (Go programs) */
	n = rec_stack_callchain_split(smp->chain, smp->nchain,
				      REC_STACK_CHAIN_USER, s->fpraw,
				      REC_STACK_FPCHAIN_MAX, NULL);
	for (i = 0; i < n; i++)
		s->fppcs[i] = s->fpraw[i].addr;
	rec_unwind_set_fpchain(s->unwinder, s->fppcs, n);
	n = rec_unwind_unwind(s->unwinder, mods, pid, regs, s->regs_mask,
			      smp->stack, smp->stack ? smp->stack_len : 0,
			      s->pcs, REC_UNWIND_MAX_FRAMES, truncated);
	for (i = 0; i < n && k < REC_STACK_MAX; i++, k++) {
		s->raw[k].addr = s->pcs[i];
		s->raw[k].mode = SP_FRAME_USER;
	}
	return k;
}

static enum sp_frame_mode
ip_mode(uint16_t misc)
{
	switch (misc & PERF_RECORD_MISC_CPUMODE_MASK) {
	case PERF_RECORD_MISC_KERNEL:
	case PERF_RECORD_MISC_HYPERVISOR:
	case PERF_RECORD_MISC_GUEST_KERNEL:
		return SP_FRAME_KERNEL;
	default:
		return SP_FRAME_USER;
	}
}

/*
 * No chain at all: keep the sampled instruction alone, but never a kernel
 * one without -k (a sample in a system call whose user stack could not
 * be unwound): its user pc instead, if the sample has one.
 */
static size_t
ip_only(struct rec_stack *s, struct sp_modtab *mods, int32_t pid,
	const struct rec_perfrec_sample *smp, struct sp_frame *out)
{
	enum sp_frame_mode mode = ip_mode(smp->misc);
	uint64_t ip = smp->ip;

	if (mode == SP_FRAME_KERNEL && !s->kernel) {
		if (!rec_stack_sample_user_pc(s, smp, &ip))
			return 0;
		mode = SP_FRAME_USER;
	}
	sp_modtab_resolve(mods, pid, ip, mode, &out[0]);
	s->stats.ip_only++;
	return 1;
}

size_t
rec_stack_build(struct rec_stack *s, struct sp_modtab *mods, int32_t pid,
		const struct rec_perfrec_sample *smp, struct sp_frame *out)
{
	size_t i, k, max = REC_STACK_MAX - 1; /* room for the marker */
	bool truncated = false;

	if (s->mode == REC_CG_DWARF) {
		k = rec_stack_callchain_split(
		    smp->chain, smp->nchain, REC_STACK_CHAIN_KERNEL, s->raw,
		    max, &s->stats.ignored_user_frames);
		k = dwarf_user_frames(s, mods, pid, smp, k, &truncated);
	} else {
		k = rec_stack_callchain_split(smp->chain, smp->nchain,
					      REC_STACK_CHAIN_KERNEL |
						  REC_STACK_CHAIN_USER,
					      s->raw, max, NULL);
		truncated =
		    s->max_chain > 0 &&
		    chain_depth(smp->chain, smp->nchain) >= s->max_chain;
	}
	if (k > max)
		k = max;
	for (i = 0; i < k; i++)
		sp_modtab_resolve(mods, pid, s->raw[i].addr, s->raw[i].mode,
				  &out[i]);
	if (k == 0)
		return ip_only(s, mods, pid, smp, out);
	if (truncated) {
		out[k++] = sp_frame_truncated_marker();
		s->stats.truncated++;
	}
	return k;
}

bool
rec_stack_sample_user_pc(const struct rec_stack *s,
			 const struct rec_perfrec_sample *smp, uint64_t *pc)
{
	struct rec_stack_rawframe f;

	if (smp->abi == PERF_SAMPLE_REGS_ABI_64 &&
	    rec_perfrec_regs_value(smp->regs, s->regs_mask, PERF_REG_X86_IP,
				   pc))
		return true;
	/*
	 * Without registers only a sample taken in user mode says where
	 * user code ran: in the kernel (an execve finishing, say) the user
	 * ip may belong to the image being replaced.
	 */
	if (ip_mode(smp->misc) != SP_FRAME_USER)
		return false;
	if (rec_stack_callchain_split(smp->chain, smp->nchain,
				      REC_STACK_CHAIN_USER, &f, 1, NULL) == 1) {
		*pc = f.addr;
		return true;
	}
	*pc = smp->ip;
	return smp->ip != 0;
}

bool
rec_stack_missed_module(const struct rec_stack *s, uint64_t *pc)
{
	return s->unwinder && rec_unwind_missed_module(s->unwinder, pc);
}

void
rec_stack_forget(struct rec_stack *s, int32_t pid)
{
	if (s->unwinder)
		rec_unwind_forget_process(s->unwinder, pid);
}

void
rec_stack_end(struct rec_stack *s, int32_t pid)
{
	if (s->unwinder)
		rec_unwind_end_process(s->unwinder, pid);
}

int
rec_stack_add_code(struct rec_stack *s, int32_t pid, uint64_t start,
		   uint64_t end)
{
	return s->unwinder ? rec_unwind_add_code(s->unwinder, pid, start, end)
			   : 0;
}

bool
rec_stack_last_deep(const struct rec_stack *s, uint64_t *lo, uint64_t *hi)
{
	return s->unwinder && rec_unwind_last_deep(s->unwinder, lo, hi);
}

uint64_t
rec_stack_deep_samples(const struct rec_stack *s)
{
	return s->unwinder ? rec_unwind_deep_samples(s->unwinder) : 0;
}

void
rec_stack_counters(const struct rec_stack *s,
		   void (*fn)(const char *key, uint64_t value, void *arg),
		   void *arg)
{
	if (s->unwinder)
		rec_unwind_counters(s->unwinder, fn, arg);
}
