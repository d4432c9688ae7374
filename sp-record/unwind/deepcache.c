/*
 * deepcache.c: the outer frames of a process's last verified deep stacks
 * (deepcache.h).  Each chain has an open-addressed index by SP (a
 * frame's SP is unique within a chain: each CFA lies above the last or
 * on another stack), so a lookup at each step of an unwind costs a hash
 * and a compare or two per chain.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/unwind/deepcache.h"
#include "common/banned.h"

/* Fibonacci hashing: the product's top bits (chains hold < 2^16 frames). */
static size_t
hash_sp(uint64_t sp, size_t hmask)
{
	return (size_t)(((sp >> 3) * 0x9e3779b97f4a7c15ull) >> 44) & hmask;
}

/* Whether frame `f` of a chain has the state `s`. */
static bool
same_state(const struct rec_deepcache_step *f,
	   const struct rec_deepcache_step *s)
{
	if (f->at != s->at || f->ip != s->ip || f->sp != s->sp)
		return false;
	return !f->needs_bp ||
	       (f->have_bp == s->have_bp && (!f->have_bp || f->bp == s->bp));
}

bool
rec_deepcache_find(const struct rec_deepcache *dc,
		   const struct rec_deepcache_step *s,
		   const struct rec_deepcache_chain **chain, size_t *index)
{
	const struct rec_deepcache_chain *c;
	size_t i, h;

	for (i = 0; i < REC_DEEPCACHE_CHAINS; i++) {
		c = &dc->chain[i];
		if (!c->n)
			continue;
		for (h = hash_sp(s->sp, c->hmask); c->slot[h];
		     h = (h + 1) & c->hmask)
			if (c->v[c->slot[h] - 1].sp == s->sp) {
				if (!same_state(&c->v[c->slot[h] - 1], s))
					break;
				*chain = c;
				*index = c->slot[h] - 1;
				return true;
			}
	}
	return false;
}

static void
chain_free(struct rec_deepcache_chain *c)
{
	free(c->v);
	free(c->slot);
	memset(c, 0, sizeof(*c));
}

/*
 * Sets each frame's needs_bp, outermost first: a step depends on its BP
 * when it computes the CFA from it, or hands it on unsaved to a frame
 * that depends on it.
 */
static void
mark_bp(struct rec_deepcache_step *v, size_t n)
{
	bool above = false;
	size_t i;

	for (i = n; i-- > 0;) {
		v[i].needs_bp = v[i].uses_bp || (v[i].keeps_bp && above);
		above = v[i].needs_bp;
	}
}

int
rec_deepcache_put(struct rec_deepcache *dc, const struct rec_deepcache_step *v,
		  size_t n, const struct rec_deepcache_chain *replaced)
{
	struct rec_deepcache_chain *c;
	size_t i, h, size = 4;

	if (replaced)
		c = &dc->chain[replaced - dc->chain];
	else
		c = &dc->chain[dc->next++ % REC_DEEPCACHE_CHAINS];
	c->n = 0; /* its arrays are reused when large enough */
	if (!n || n > UINT16_MAX)
		return 0;
	while (size < 2 * n)
		size *= 2;
	if (n > c->cap || size - 1 > c->hmask) {
		chain_free(c);
		c->v = malloc(n * sizeof(*v));
		c->slot = malloc(size * sizeof(*c->slot));
		if (!c->v || !c->slot) {
			chain_free(c);
			return -ENOMEM;
		}
		c->cap = n;
		c->hmask = size - 1;
	}
	memset(c->slot, 0, (c->hmask + 1) * sizeof(*c->slot));
	memcpy(c->v, v, n * sizeof(*v));
	mark_bp(c->v, n);
	for (i = 0; i < n; i++) {
		for (h = hash_sp(v[i].sp, c->hmask); c->slot[h];
		     h = (h + 1) & c->hmask)
			;
		c->slot[h] = (uint32_t)i + 1;
	}
	c->n = n;
	return 0;
}

void
rec_deepcache_release(struct rec_deepcache *dc)
{
	size_t i;

	for (i = 0; i < REC_DEEPCACHE_CHAINS; i++)
		chain_free(&dc->chain[i]);
	dc->next = 0;
}
