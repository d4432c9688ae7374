/*
 * unwind_go.c: where the unwinder stops in a Go program (unwind_go.h).
 * Go code has no CFI, so each frame is stepped by its frame pointer;
 * where that stops at a stack switch (runtime.systemstack on the g0
 * stack) or above the copy, the kernel's frame-pointer walk of the
 * sample gives the rest, each frame checked (goframes.h) against the
 * module's functions (gofuncs.h).
 */
#include <asm/perf_regs.h>

#include "sp-record/unwind/mapped.h"
#include "sp-record/unwind/goframes.h"
#include "sp-record/unwind/gofuncs.h"
#include "sp-record/perf/perfrec.h"
#include "sp-record/unwind/regcache.h"
#include "sp-record/unwind/unwind_code.h"
#include "sp-record/unwind/unwind_ctx.h"
#include "sp-record/unwind/unwind_go.h"
#include "common/banned.h"

/*
 * The Go function holding `pc`: its start and end (runtime addresses)
 * and kind; false when `pc` lies in no Go module with symbols.
 */
static bool
go_func(struct rec_unwind_ctx *c, uint64_t pc, uint64_t *start, uint64_t *end,
	enum rec_gofuncs_kind *kind)
{
	const struct rec_gofuncs *fs;
	const struct rec_regcache_region *r;
	int why;

	if (!(r = rec_unwind_code_region(c, pc, &why)) ||
	    (!c->p->go && !(c->p->go = rec_gofuncs_mods_new())) ||
	    !(fs = rec_gofuncs_mods_get(c->p->go, r->f)) ||
	    !rec_gofuncs_find(fs, pc - r->bias, start, end, kind))
		return false;
	*start += r->bias;
	*end += r->bias;
	return true;
}

/* rec_goview's callbacks: the process of the unwind call `arg`. */
static bool
go_view_func(void *arg, uint64_t pc, uint64_t *start, uint64_t *end,
	     enum rec_gofuncs_kind *kind)
{
	bool found = go_func(arg, pc, start, end, kind);

	/* a caller's frame in runtime.clone is any other function's */
	if (found && *kind == REC_GOFUNC_CLONE)
		*kind = REC_GOFUNC_OTHER;
	return found;
}

static int
go_view_code(void *arg, uint64_t addr, void *buf, size_t len)
{
	const struct rec_regcache_region *r;
	int why;

	return (r = rec_unwind_code_region(arg, addr, &why))
		   ? rec_mapped_read(r->f, addr - r->bias, buf, len)
		   : -1;
}

static bool
go_view_is_code(void *arg, uint64_t addr)
{
	return rec_unwind_code_is_code(arg, addr);
}

/*
 * Whether a stack of `n` frames stopped in runtime.clone is a new
 * thread's: that frame is the leaf, with the system call's 0 in rax.  Its stack
 * is a fresh one that runtime.clone switches to (the thread's g0), and rbp
 * still holds the parent's, so it is the whole stack.
 */
static bool
new_thread(struct rec_unwind_ctx *c, size_t n)
{
	uint64_t ax;

	return n == 1 &&
	       rec_perfrec_regs_value(c->regs, c->mask, PERF_REG_X86_AX, &ax) &&
	       ax == 0;
}

/*
 * Where the step from the Go frame at pcs[*n - 1] failed: at a root
 * (runtime.mstart, runtime.mcall) the stack ends, as in Go's
 * traceback.  At a stack switch (the frame's BP is the goroutine's) or
 * where the frame's BP lies above the copy, the kernel's frame-pointer
 * walk of the sample goes on, when recorded (goexe.h), frame by frame
 * checked (goframes.h).  The goroutine's stack read now would be read
 * too late: its thread has left the switch by then (most of such reads
 * were refused by the checks when tried), so without the kernel's walk
 * the stack stays truncated.  Returns 0 when the stack was completed,
 * -1 when it stays truncated.
 */
int
rec_unwind_go_continue(struct rec_unwind_go *g, struct rec_unwind_ctx *c,
		       uint64_t *pcs, size_t *n, size_t max)
{
	const struct rec_goframes_view v = { c, go_view_func, go_view_code,
					     go_view_is_code, &c->p->tails };
	enum rec_gofuncs_kind kind;
	uint64_t start, end;

	if (c->stop_fallback != FB_NO_UNWIND_DATA ||
	    !go_func(c, pcs[*n - 1], &start, &end, &kind))
		return -1;
	if (kind == REC_GOFUNC_ROOT ||
	    (kind == REC_GOFUNC_CLONE && new_thread(c, *n))) {
		g->roots++;
		return 0;
	}
	if (kind == REC_GOFUNC_CLONE)
		kind = REC_GOFUNC_OTHER;
	if (kind == REC_GOFUNC_OTHER && c->stop_bp < c->sp + c->stack_len)
		return -1;
	if (!g->nfp) {
		g->no_chain += kind != REC_GOFUNC_OTHER;
		return -1;
	}
	return rec_goframes_splice(&g->frames, &v, g->fp, g->nfp, pcs, n, max);
}

/* The counters of Go's stacks (goframes.h), "unwind_go.KIND". */
void
rec_unwind_go_counters(const struct rec_unwind_go *g,
		       void (*fn)(const char *key, uint64_t value, void *arg),
		       void *arg)
{
	if (g->frames.spliced)
		fn("unwind_go.fpchain_completed", g->frames.spliced, arg);
	if (g->frames.refused)
		fn("unwind_go.fpchain_refused", g->frames.refused, arg);
	if (g->no_chain)
		fn("unwind_go.switch_without_fpchain", g->no_chain, arg);
	if (g->roots)
		fn("unwind_go.roots", g->roots, arg);
}
