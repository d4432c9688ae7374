/*
 * goframes.h: the checks of a Go program's frames found past a stack
 * switch, and how they are taken from the kernel's frame-pointer walk of
 * the sample (issue 28).
 *
 * Past runtime.systemstack or runtime.morestack on g0 (gofuncs.h), the
 * unwinder's stack copy holds nothing of the goroutine's stack.  The
 * kernel's walk of the frame records (PERF_SAMPLE_CALLCHAIN, asked for
 * Go programs: goexe.h) read it at the sample; each frame taken from it
 * is checked before it is taken:
 *
 *   - the return address is code in a Go function, after a call;
 *   - a direct call names the callee's function, or a function that
 *     calls it directly (a function without a frame of its own saves no
 *     BP, so the chain skips it); an indirect call says nothing;
 *   - right past the switch, whose caller's frame the records do not
 *     link, a direct call names a function that calls that switch;
 *   - the chain ends at a root (runtime.goexit, runtime.mstart, ...).
 *
 * The unwinder describes the process through struct rec_goframes_view; the
 * answers of the code scans are kept in its cache, per process.
 */
#ifndef SP_RECORD_UNWIND_GOFRAMES_H
#define SP_RECORD_UNWIND_GOFRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp-record/unwind/gofuncs.h"

struct sp_htab;

/* Bytes of a function's code scanned for its direct calls, at most. */
#define REC_GOFRAMES_SCAN (16u << 10)

/* One per unwinder: scratch and counters. */
struct rec_goframes {
	uint8_t code[REC_GOFRAMES_SCAN];
	uint64_t spliced; /* stacks completed from the kernel's walk */
	uint64_t refused; /* walks that did not hold together */
};

/* What the unwinder knows of one process, for the checks. */
struct rec_goframes_view {
	void *arg;
	/* The Go function holding pc (runtime addresses); false if none. */
	bool (*func)(void *arg, uint64_t pc, uint64_t *start, uint64_t *end,
		     enum rec_gofuncs_kind *kind);
	/* Copies module code at addr; 0, or < 0 when it is not there. */
	int (*read_code)(void *arg, uint64_t addr, void *buf, size_t len);
	/* Whether addr is code of the process (a module, JIT code). */
	bool (*is_code)(void *arg, uint64_t addr);
	struct sp_htab **cache; /* created on first use, the caller frees */
};

/*
 * The check above of return address `ra`, whose callee has pc `callee`:
 * < 0 refused, 0 a caller, 1 a caller where the stack ends (a root).
 */
int rec_goframes_check(struct rec_goframes *g,
		       const struct rec_goframes_view *v, uint64_t callee,
		       uint64_t ra);

/*
 * Takes the frames past pcs[*n - 1] from the kernel's walk `fp` (`nfp`
 * pcs: the sampled pc, then call sites): where it holds the same last
 * two frames, every frame after them must pass rec_goframes_check() up
 * to a root.  Returns 0 with pcs[*n..] written and *n advanced, or -1
 * with *n as it was.  *n must be at least 1.
 */
int rec_goframes_splice(struct rec_goframes *g,
			const struct rec_goframes_view *v, const uint64_t *fp,
			size_t nfp, uint64_t *pcs, size_t *n, size_t max);

#endif
