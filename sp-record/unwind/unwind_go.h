/*
 * unwind_go.h: the unwinder's Go part.  Where a Go frame's step fails,
 * the stack ends at a root (runtime.mstart, runtime.mcall) or goes on
 * with the kernel's frame-pointer walk of the sample, each frame checked
 * (goframes.h).  Private to the unwinder's files.
 */
#ifndef SP_RECORD_UNWIND_UNWIND_GO_H
#define SP_RECORD_UNWIND_UNWIND_GO_H

#include <stddef.h>
#include <stdint.h>

#include "sp-record/unwind/goframes.h"

struct rec_unwind_ctx;

/*
 * The Go part's state: the kernel's walk of the sample being unwound
 * (rec_unwind_set_fpchain; borrowed, cleared after each sample) and
 * its counters.  Zeroed is ready.
 */
struct rec_unwind_go {
	const uint64_t *fp; /* the kernel's walk of this sample ... */
	size_t nfp;         /* ... and its length, 0: none */
	uint64_t roots;     /* Go stacks ending at mstart, mcall */
	uint64_t no_chain;  /* switches without the kernel's walk */
	struct rec_goframes frames;
};

/*
 * Where the step from the Go frame at pcs[*n - 1] failed (c's
 * stop_fallback, stop_bp): returns 0 when the stack ends there or was
 * completed from the kernel's walk (pcs[*n...max), *n updated), -1
 * when it stays truncated or the frame is not Go's.
 */
int rec_unwind_go_continue(struct rec_unwind_go *g, struct rec_unwind_ctx *c,
			   uint64_t *pcs, size_t *n, size_t max);

/* Calls fn for each nonzero counter, "unwind_go.KIND", in a fixed order. */
void rec_unwind_go_counters(const struct rec_unwind_go *g,
			    void (*fn)(const char *key, uint64_t value,
				       void *arg),
			    void *arg);

#endif
