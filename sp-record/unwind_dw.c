/*
 * unwind_dw.c: the unwind.h interface over libdw (elfutils) instead of
 * libunwind, built only with -DSP_UNWIND_LIBDW (bench/unwind-cost.sh
 * builds it to compare the backends; sp-record links unwind.c).
 *
 * One cached Dwfl per process, its modules reported from the module table
 * as they appear, a thread state attached once; each sample restarts the
 * thread's frames from the captured registers.  Memory reads come from
 * the stack copy, else from the module files (elfcfi.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/unwind.h"

#ifdef SP_UNWIND_LIBDW

#include <asm/perf_regs.h>
#include <elfutils/libdwfl.h>

#include "common/htab.h"
#include "common/modtab.h"
#include "common/spool.h"
#include "sp-record/elfcfi.h"
#include "common/banned.h"

enum { ERR_NO_REGS, ERR_NO_STACK, ERR_INIT, ERR_STACK_TRUNCATED, ERR_DEPTH,
       ERR_STEP, ERR_COUNT };

static const char *const error_keys[ERR_COUNT] = {
	"unwind_error.no_user_regs", "unwind_error.no_user_stack",
	"unwind_error.init_failed", "unwind_error.stack_truncated",
	"unwind_error.too_many_frames", "unwind_error.step_failed",
};

struct dwregion {
	uint64_t lo, hi, bias;
	const struct sp_elfcfi *f;
};

struct dwproc {
	int32_t pid;
	Dwfl *dwfl;
	uint32_t reported;	/* module ids below this were looked at */
	bool attached;
	struct dwregion *regions;	/* the reported module files */
	size_t nregions;
};

/* One unwind call. */
struct dwctx {
	struct sp_unwinder *u;
	struct sp_modtab *mods;
	const uint64_t *regs;
	uint64_t mask;
	const uint8_t *stack;
	size_t stack_len;
	uint64_t sp;
	uint64_t *pcs;
	size_t n, max;
	bool ran_out, full;
};

struct sp_unwinder {
	struct sp_elfcfi_cache *files;
	struct sp_htab *procs;
	struct dwctx *cur;	/* the call in progress (libdw's arg is fixed) */
	struct dwproc *curproc;
	uint64_t errors[ERR_COUNT];
	uint64_t samples, frames;
	bool missed_module;
};

static char *debuginfo_path;

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static bool
reg_value(const uint64_t *regs, uint64_t mask, int pr, uint64_t *v)
{
	uint64_t bit = (uint64_t)1 << pr;

	if (!(mask & bit))
		return false;
	*v = regs[__builtin_popcountll(mask & (bit - 1))];
	return true;
}

/* Reads a word: the stack copy, else the file of the module holding it. */
static bool
memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct sp_unwinder *u = arg;
	struct dwctx *c = u->cur;
	struct dwproc *p = u->curproc;
	size_t i;

	(void)dwfl;
	if (addr >= c->sp && c->stack_len >= 8 &&
	    addr - c->sp <= c->stack_len - 8) {
		memcpy(result, c->stack + (addr - c->sp), 8);
		return true;
	}
	for (i = 0; i < p->nregions; i++)
		if (addr >= p->regions[i].lo && addr < p->regions[i].hi)
			return sp_elfcfi_read(p->regions[i].f,
					      addr - p->regions[i].bias,
					      result, 8) == 0;
	if (addr >= c->sp && addr - c->sp < (64u << 20))
		c->ran_out = true;
	return false;
}

static pid_t
next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return ((struct sp_unwinder *)arg)->curproc->pid;
}

/* DWARF register numbers 0-16 of x86_64, as perf_regs.h numbers. */
static const int dwarf_to_perf[17] = {
	PERF_REG_X86_AX, PERF_REG_X86_DX, PERF_REG_X86_CX, PERF_REG_X86_BX,
	PERF_REG_X86_SI, PERF_REG_X86_DI, PERF_REG_X86_BP, PERF_REG_X86_SP,
	PERF_REG_X86_R8, PERF_REG_X86_R9, PERF_REG_X86_R10, PERF_REG_X86_R11,
	PERF_REG_X86_R12, PERF_REG_X86_R13, PERF_REG_X86_R14,
	PERF_REG_X86_R15, PERF_REG_X86_IP,
};

static bool
set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct dwctx *c = ((struct sp_unwinder *)arg)->cur;
	Dwarf_Word regs[17];
	uint64_t v;
	int i;

	for (i = 0; i < 17; i++)
		regs[i] = reg_value(c->regs, c->mask, dwarf_to_perf[i], &v)
			  ? v : 0;
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* Reports the process's modules interned since the last call. */
static void
report_modules(struct dwproc *p, struct sp_modtab *mods,
	       struct sp_elfcfi_cache *files)
{
	uint32_t id, n = sp_modtab_count(mods);
	const struct sp_module *m;
	const struct sp_elfcfi *f;
	struct dwregion *grown;
	uint64_t bias;

	if (p->reported == n)
		return;
	dwfl_report_begin_add(p->dwfl);
	for (id = p->reported; id < n; id++) {
		m = sp_modtab_get(mods, id);
		if (!m || m->pid != p->pid || m->is_kernel ||
		    m->path[0] != '/' || !(f = sp_elfcfi_get(files, m, p->pid)))
			continue;
		bias = sp_elfcfi_bias(f, m);
		dwfl_report_elf(p->dwfl, m->path, m->path, -1, bias, false);
		grown = realloc(p->regions, (p->nregions + 1) *
				sizeof(*grown));
		if (!grown)
			continue;
		p->regions = grown;
		grown[p->nregions++] = (struct dwregion){
			bias + f->min_vaddr, bias + f->max_vaddr, bias, f };
	}
	dwfl_report_end(p->dwfl, NULL, NULL);
	p->reported = n;
}

static struct dwproc *
dwproc_get(struct sp_unwinder *u, int32_t pid)
{
	struct dwproc *p;
	uint64_t *slot;
	bool inserted;

	slot = sp_htab_slot(u->procs, &pid, sizeof(pid), 0, &inserted);
	if (!slot)
		return NULL;
	if (!*slot) {
		if (!(p = calloc(1, sizeof(*p))))
			return NULL;
		p->pid = pid;
		if (!(p->dwfl = dwfl_begin(&dwfl_callbacks))) {
			free(p);
			return NULL;
		}
		*slot = (uint64_t)(uintptr_t)p;
	}
	return (struct dwproc *)(uintptr_t)*slot;
}

static int
frame_cb(Dwfl_Frame *state, void *arg)
{
	struct dwctx *c = ((struct sp_unwinder *)arg)->cur;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (c->n == c->max) {
		c->full = true;
		return DWARF_CB_ABORT;
	}
	c->pcs[c->n] = activation ? pc : pc - 1;
	c->n++;
	return DWARF_CB_OK;
}

size_t
sp_unwinder_unwind(struct sp_unwinder *u, struct sp_modtab *mods,
		   int32_t pid, const uint64_t *regs, uint64_t regs_mask,
		   const uint8_t *stack, size_t stack_len, uint64_t *pcs,
		   size_t max, bool *truncated)
{
	struct dwctx c;
	struct dwproc *p;
	uint64_t ip;
	int r;

	*truncated = false;
	u->samples++;
	memset(&c, 0, sizeof(c));
	if (!regs || !reg_value(regs, regs_mask, PERF_REG_X86_IP, &ip) ||
	    !reg_value(regs, regs_mask, PERF_REG_X86_SP, &c.sp)) {
		u->errors[ERR_NO_REGS]++;
		return 0;
	}
	if (!stack || stack_len < 8) {
		u->errors[ERR_NO_STACK]++;
		return 0;
	}
	if (!(p = dwproc_get(u, pid)))
		return 0;
	c.u = u;
	c.mods = mods;
	c.regs = regs;
	c.mask = regs_mask;
	c.stack = stack;
	c.stack_len = stack_len;
	c.pcs = pcs;
	c.max = max;
	u->cur = &c;
	u->curproc = p;
	report_modules(p, mods, u->files);
	if (!p->attached)
		p->attached = dwfl_attach_state(p->dwfl, NULL, pid,
						&thread_callbacks, u);
	if (!p->attached) {
		u->errors[ERR_INIT]++;
		pcs[0] = ip;
		return 1;
	}
	r = dwfl_getthread_frames(p->dwfl, pid, frame_cb, u);
	if (c.n == 0)
		pcs[c.n++] = ip;
	if (c.full) {
		u->errors[ERR_DEPTH]++;
		*truncated = true;
	} else if (r != 0 && c.ran_out) {
		u->errors[ERR_STACK_TRUNCATED]++;
		*truncated = true;
	} else if (r != 0 && dwfl_errno() != 0) {
		u->errors[ERR_STEP]++;
		*truncated = true;
	}
	u->frames += c.n;
	return c.n;
}

struct sp_unwinder *
sp_unwinder_new(void)
{
	struct sp_unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->files = sp_elfcfi_cache_new();
	u->procs = sp_htab_new();
	if (!u->files || !u->procs) {
		sp_unwinder_free(u);
		errno = ENOMEM;
		return NULL;
	}
	return u;
}

static void
dwproc_free(struct dwproc *p)
{
	if (p) {
		dwfl_end(p->dwfl);
		free(p->regions);
		free(p);
	}
}

void
sp_unwinder_free(struct sp_unwinder *u)
{
	size_t pos = 0, klen;
	const void *key;
	uint64_t val;

	if (!u)
		return;
	while (u->procs && sp_htab_next(u->procs, &pos, &key, &klen, &val))
		dwproc_free((struct dwproc *)(uintptr_t)val);
	sp_htab_free(u->procs);
	sp_elfcfi_cache_free(u->files);
	free(u);
}

void
sp_unwinder_forget_process(struct sp_unwinder *u, int32_t pid)
{
	uint64_t *slot;
	bool inserted;

	if (!sp_htab_get(u->procs, &pid, sizeof(pid), NULL))
		return;
	slot = sp_htab_slot(u->procs, &pid, sizeof(pid), 0, &inserted);
	if (slot && *slot) {
		dwproc_free((struct dwproc *)(uintptr_t)*slot);
		*slot = 0;
	}
}

bool
sp_unwinder_missed_module(const struct sp_unwinder *u, uint64_t *pc)
{
	(void)pc;
	return u->missed_module;
}

void
sp_unwinder_counters(const struct sp_unwinder *u,
		     void (*fn)(const char *key, uint64_t value, void *arg),
		     void *arg)
{
	size_t i;

	if (u->samples)
		fn("unwind.samples", u->samples, arg);
	if (u->frames)
		fn("unwind.frames", u->frames, arg);
	for (i = 0; i < ERR_COUNT; i++)
		if (u->errors[i])
			fn(error_keys[i], u->errors[i], arg);
}

#endif /* SP_UNWIND_LIBDW */
