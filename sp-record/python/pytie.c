/*
 * pytie.c: a Python stack's groups tied to their evaluator frames
 * (pytie.h).
 */
#include "sp-record/python/pyfind.h"
#include "sp-record/python/pytie.h"
#include "common/banned.h"

bool
rec_pytie(const struct rec_pyfind_target *t, const struct sp_frame *frames,
	  size_t n, uint32_t entries, bool at_sample, struct sp_ext_pystack *s)
{
	uint32_t eval[SP_PYSTACK_GROUPS_MAX], m = 0, g, from;
	size_t i;

	for (i = 0; i < n && m < SP_PYSTACK_GROUPS_MAX; i++)
		if (frames[i].mode == SP_FRAME_USER &&
		    frames[i].abs_ip >= t->eval_start &&
		    frames[i].abs_ip <= t->eval_end && t->eval_end)
			eval[m++] = (uint32_t)i;
	s->ngroups = 0;
	if (s->leaf == SP_NONE) {
		/* Evaluator frames but no chain: read too late (or given up) */
		if (m && !(s->flags & SP_PYSTACK_TRUNCATED))
			s->flags = SP_PYSTACK_INCONSISTENT;
		return false;
	}
	/* as many evaluator frames as groups, or a cut chain's inner ones */
	from = entries;
	if (at_sample && entries + 1 == m && !(s->flags & SP_PYSTACK_TRUNCATED))
		from = m; /* the outer `entries`: the innermost left native */
	else if (entries > m ||
		 (entries < m && !(s->flags & SP_PYSTACK_TRUNCATED))) {
		s->flags = SP_PYSTACK_INCONSISTENT;
		return false;
	}
	/* Group g (outermost first) ran in the from-1-g'th innermost. */
	for (g = 0; g < entries; g++)
		s->index[g] = eval[from - 1 - g];
	s->ngroups = entries;
	return from != entries;
}
