/*
 * deepcache.h: the outer part of a process's last verified deep stacks,
 * kept so that the next sample of the same stack need not unwind it
 * again (issue 28).
 *
 * A chain is the list of frames the recorder's own CFI rules stepped
 * through above a sample's stack copy: for each frame, the state its
 * step starts from (pc, return address, SP, BP) and the stack words the
 * step read, with their values.  A step is a function of that state and
 * those words alone (the rule at the pc, the module table, the words),
 * so a new sample whose unwind reaches a frame whose state equals one of
 * a chain's finds the same callers above it as long as the chain's words
 * still hold the same values: the unwinder takes the rest of the chain
 * from here and verifies those words against the live stack instead of
 * reading and unwinding the whole stack again (unwind_own.c, deepstack.h).
 * A frame's BP counts only where the chain above it depends on it (a CFA
 * computed from BP, or BP handed on unsaved to a frame that does).
 *
 *   struct rec_deepcache dc = REC_DEEPCACHE_INIT;    one per process
 *   if (rec_deepcache_find(&dc, &state, &chain, &i)) ... chain->v[i + 1 ...]
 *   after a sample verified: rec_deepcache_put(&dc, steps, n, chain)
 *   rec_deepcache_release(&dc);
 */
#ifndef SP_RECORD_UNWIND_DEEPCACHE_H
#define SP_RECORD_UNWIND_DEEPCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Chains kept per process: one per thread with a deep stack, about. */
#define REC_DEEPCACHE_CHAINS 4

/* One frame of a chain: its state and what its step to the caller read. */
struct rec_deepcache_step {
	uint64_t at;      /* the pc the frame's rule is looked up by */
	uint64_t ip;      /* its return address (the sampled pc: frame 0) */
	uint64_t sp, bp;  /* its SP and BP */
	uint64_t addr[2]; /* the words its step read ... */
	uint64_t val[2];  /* ... and their values */
	uint8_t nwords;
	bool have_bp;
	bool uses_bp;  /* its step computes the CFA from BP */
	bool keeps_bp; /* its step hands BP on unsaved (the rule "same") */
	bool needs_bp; /* the chain from it depends on its BP (set by put) */
};

/* A chain: its frames, innermost first, the outermost last. */
struct rec_deepcache_chain {
	struct rec_deepcache_step *v;
	size_t n;
	uint32_t *slot; /* frame index + 1 by SP, 0: empty; hmask + 1 slots */
	size_t hmask;
	size_t cap; /* frames v has room for */
};

struct rec_deepcache {
	struct rec_deepcache_chain chain[REC_DEEPCACHE_CHAINS];
	unsigned next; /* the chain replaced next when no other is named */
};

#define REC_DEEPCACHE_INIT                                                     \
	{                                                                      \
		{ { NULL, 0, NULL, 0, 0 } }, 0                                 \
	}

/*
 * Finds a frame whose state equals `s` (at, ip, sp; bp and have_bp where
 * the chain depends on them): true with *chain and *index set.  The
 * chain stays valid until the next put or release.
 */
bool rec_deepcache_find(const struct rec_deepcache *dc,
			const struct rec_deepcache_step *s,
			const struct rec_deepcache_chain **chain,
			size_t *index);

/*
 * Keeps a copy of the `n` frames at `v` (innermost first, the last the
 * outermost) as a chain, in place of `replaced` (a chain of `dc`, the
 * one the sample took frames from) or, when NULL, of the oldest one.
 * Returns 0 or -ENOMEM (the chain is dropped then).
 */
int rec_deepcache_put(struct rec_deepcache *dc,
		      const struct rec_deepcache_step *v, size_t n,
		      const struct rec_deepcache_chain *replaced);

/* Frees the chains; the cache is empty and reusable afterwards. */
void rec_deepcache_release(struct rec_deepcache *dc);

#endif
