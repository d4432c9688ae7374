/*
 * pytie.h: which native evaluator frames a Python stack's groups ran in
 * (issue 27).
 *
 * A Python chain read for a sample is a list of groups, each the Python
 * frames one call of _PyEval_EvalFrameDefault runs, innermost first from
 * its leaf; the sample's native stack holds those calls.  The spool's
 * pystack record ties each group to its native frame (ext_py.h), which
 * is how readers put Python frames in place of the evaluator's.
 */
#ifndef SP_RECORD_PYTHON_PYTIE_H
#define SP_RECORD_PYTHON_PYTIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ext_py.h"
#include "common/spool.h"

struct rec_pyfind_target;

/*
 * Sets s->index and s->ngroups for the `entries` groups of the chain
 * s->leaf against the native frames[0..n) (leaf first), or sets
 * s->flags to SP_PYSTACK_INCONSISTENT when they do not fit: as many
 * evaluator frames as groups are needed, or (a chain cut before its
 * root, SP_PYSTACK_TRUNCATED) no fewer.  A chain read at its sample
 * (`at_sample`) with one evaluator frame more is of a thread entering or
 * leaving a call (the innermost evaluator has not linked its frame into
 * the chain yet, or has unlinked it): the groups ran in the outer ones,
 * the innermost stays native, and the return is true.  False otherwise.
 */
bool rec_pytie(const struct rec_pyfind_target *t, const struct sp_frame *frames,
	       size_t n, uint32_t entries, bool at_sample,
	       struct sp_ext_pystack *s);

#endif
