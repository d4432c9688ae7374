/*
 * goframes.c: checks of Go frames past a stack switch, and their splice
 * from the kernel's frame-pointer walk (goframes.h).
 */
#include <string.h>

#include "common/htab.h"
#include "sp-record/unwind/callsite.h"
#include "sp-record/unwind/goframes.h"
#include "common/banned.h"

/*
 * Whether Go function `fn` (starting there) holds a direct call to
 * function `to`, or when `to` is 0 to a function of `kind`, in its first
 * REC_GOFRAMES_SCAN bytes; kept in the view's cache.  The bytes are
 * scanned, not decoded (as rec_callsite_jumps does): a false call only
 * accepts a frame that may have been refused.
 */
static bool
calls(struct rec_goframes *g, const struct rec_goframes_view *v, uint64_t fn,
      uint64_t to, enum rec_gofuncs_kind kind)
{
	uint64_t key[3] = { fn, to ? to : (uint64_t)kind, UINT64_MAX - 1 };
	uint64_t start, end, found = 0, *slot, target;
	enum rec_gofuncs_kind k;
	size_t len = 0, i;
	bool inserted;
	int32_t rel;

	if (!*v->cache && !(*v->cache = sp_htab_new()))
		return false;
	if (sp_htab_get(*v->cache, key, sizeof(key), &found))
		return found != 0;
	if (v->func(v->arg, fn, &start, &end, &k) && start == fn) {
		len = end - fn < sizeof(g->code) ? end - fn : sizeof(g->code);
		while (len && v->read_code(v->arg, fn, g->code, len) < 0)
			len /= 2; /* the module's end: read less */
	}
	for (i = 0; i + 5 <= len && !found; i++) {
		if (g->code[i] != 0xe8)
			continue;
		memcpy(&rel, g->code + i + 1, sizeof(rel));
		target = fn + i + 5 + (uint64_t)(int64_t)rel;
		found = to ? target == to
			   : v->func(v->arg, target, &start, &end, &k) &&
				 start == target && k == kind;
	}
	slot = sp_htab_slot(*v->cache, key, sizeof(key), 0, &inserted);
	if (slot)
		*slot = found;
	return found != 0;
}

int
rec_goframes_check(struct rec_goframes *g, const struct rec_goframes_view *v,
		   uint64_t callee, uint64_t ra)
{
	uint8_t before[REC_CALLSITE_INDIRECT];
	enum rec_gofuncs_kind kind, ck;
	uint64_t start, end, target, cstart, cend;

	if (!v->is_code(v->arg, ra) ||
	    !v->func(v->arg, ra - 1, &start, &end, &kind))
		return -1;
	if (kind == REC_GOFUNC_ROOT)
		return 1; /* goexit's return address follows no call */
	if (v->read_code(v->arg, ra - sizeof(before), before, sizeof(before)) <
		0 ||
	    !v->func(v->arg, callee, &cstart, &cend, &ck))
		return -1;
	if (!rec_callsite_target(before + sizeof(before) - REC_CALLSITE_BEFORE,
				 ra, &target))
		return ck == REC_GOFUNC_OTHER && rec_callsite_indirect(before)
			   ? 0
			   : -1;
	if (ck == REC_GOFUNC_SYSTEMSTACK || ck == REC_GOFUNC_MORESTACK)
		return calls(g, v, target, 0, ck) ? 0 : -1;
	return target == cstart || calls(g, v, target, cstart, ck) ? 0 : -1;
}

int
rec_goframes_splice(struct rec_goframes *g, const struct rec_goframes_view *v,
		    const uint64_t *fp, size_t nfp, uint64_t *pcs, size_t *n,
		    size_t max)
{
	uint64_t callee = pcs[*n - 1];
	size_t j, k, n0 = *n;
	int r;

	/* a leaf whose step failed (in systemstack past its switch, or
	 * before its frame is made) is the sampled pc, the walk's first */
	if (*n == 1 && nfp > 0 && fp[0] == callee)
		j = 0;
	else
		for (j = 1; j < nfp; j++)
			if (fp[j] == callee &&
			    (*n < 2 || fp[j - 1] == pcs[*n - 2]))
				break;
	for (k = j + 1; k < nfp && *n < max; k++) {
		if ((r = rec_goframes_check(g, v, callee, fp[k] + 1)) < 0)
			break;
		pcs[(*n)++] = callee = fp[k];
		if (r == 1) {
			g->spliced++;
			return 0;
		}
	}
	*n = n0;
	g->refused++;
	return -1;
}
