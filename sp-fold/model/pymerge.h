/*
 * pymerge.h: Python frames merged into native stacks.  Each native
 * evaluator frame a sample's pystack names is replaced by the Python
 * frames it ran, outermost first, and the interpreter's call glue between
 * the outermost and the innermost evaluator frame is left out (the names
 * of fold_pymerge_glue); native frames above the innermost (C extensions)
 * and below the outermost (start-up) stay.  CPython 3.12+ `-X perf`
 * stacks, whose Python functions are the trampoline frames called by
 * py_trampoline_evaluator, lose the same glue.  --interpreter-frames
 * keeps every native frame, evaluators under their Python frames.
 */
#ifndef SP_FOLD_MODEL_PYMERGE_H
#define SP_FOLD_MODEL_PYMERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/ext_py.h"
#include "common/htab.h"
#include "sp-fold/model/model.h"
#include "sp-fold/model/pytab.h"
#include "sp-fold/model/model_opts.h"

struct fold_pymerge {
	struct sp_htab *cache; /* (stack, pid, pystack) -> merged stack */
	struct sp_buf ids, seq, chain, key; /* scratch */
	bool trampolines; /* the stream has -X perf trampoline frames */
};

/* Sets up `pm`; returns 0 or -ENOMEM.  Release is due after either. */
int fold_pymerge_init(struct fold_pymerge *pm);
void fold_pymerge_release(struct fold_pymerge *pm);
/*
 * Notes a symbol name the stream defines: one of the -X perf trampolines'
 * makes later samples worth a look for them.
 */
void fold_pymerge_note_symbol(struct fold_pymerge *pm, const char *name);
/*
 * Sets *out to the stack a sample of process `pid` with native stack
 * `stack` (SP_NONE: none) and Python part `ps` (NULL: none) is counted
 * under, made in `m` on first use, and *native_only to whether its
 * Python part could not be merged (inconsistent: flagged so, or groups
 * that do not fit the native stack).  A stack with nothing to merge or
 * hide is `stack` itself.  Returns 0 or -ENOMEM.
 */
int fold_pymerge_stack(struct fold_pymerge *pm, struct fold_model *m,
		       const struct fold_name_opts *o, int32_t pid,
		       uint32_t stack, const struct sp_ext_pystack *ps,
		       uint32_t *out, bool *native_only);
/*
 * Forgets the merges of process `pid` (a forget record): a new process
 * with that pid merges its own.  Returns 0 or -ENOMEM.
 */
int fold_pymerge_forget(struct fold_pymerge *pm, int32_t pid);
/* Whether a function name is interpreter call glue (".cold" and other
 * suffixes of compiler clones ignored). */
bool fold_pymerge_glue(const char *name);

#endif
