/*
 * unwind_own.h: a sample unwound with the recorder's own CFI rules
 * (cfirule.h, kept per file by cfimemo.h), no libunwind, when every
 * frame has such a rule.  Private to the unwinder's files.
 */
#ifndef SP_RECORD_UNWIND_UNWIND_OWN_H
#define SP_RECORD_UNWIND_UNWIND_OWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp-record/unwind/deepcache.h"
#include "sp-record/unwind/unwind_ctx.h"

struct rec_cfimemo;

/*
 * The own rules' state: the rules read, kept by file (cfimemo.h, made
 * and freed by unwind.c), the counters, and the frames of the walk under
 * way, for the process's cache of deep stacks.
 */
struct rec_unwind_own {
	struct rec_cfimemo *rules;
	uint64_t samples;    /* unwound by those rules alone */
	uint64_t rules_read; /* rules read from files (memo misses) */
	struct rec_deepcache_step steps[REC_UNWIND_CTX_MAX_FRAMES];
};

/*
 * Unwinds the sample whose pc is pcs[0] (*n is 1) with the recorder's
 * own rules, again without the process's cached chains (deepcache.h)
 * when one did not fit.  Returns true with *n pcs kept and *truncated
 * set as rec_unwind_walk_settle() sets it; false, all live reads forgotten and
 * *n back to 1, when libunwind must take the sample from the start.
 */
bool rec_unwind_own_unwind(struct rec_unwind_own *o, struct rec_unwind_ctx *c,
			   uint64_t *pcs, size_t *n, size_t max,
			   bool *truncated);

#endif
