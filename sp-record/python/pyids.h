/*
 * pyids.h: the spool ids of Python functions and Python stack nodes,
 * interned by content across processes, with their records written as
 * they appear (pycode and pynode, common/ext_py.h).
 *
 * A function is its name, file and first line: two processes running the
 * same script share its ids.  A node is (prefix, function, line, entry),
 * a prefix tree as the native stacks are, so a repeated stack costs one
 * varint a sample.
 */
#ifndef SP_RECORD_PYTHON_PYIDS_H
#define SP_RECORD_PYTHON_PYIDS_H

#include <stdbool.h>
#include <stdint.h>

#include "sp-record/python/pycode.h"
#include "sp-record/out/spoolout.h"

struct rec_pyids;

/* Returns an empty table writing through `out` (borrowed), or NULL. */
struct rec_pyids *rec_pyids_new(struct rec_spoolout *out);
void rec_pyids_free(struct rec_pyids *ids);

/*
 * The pycode id of `c`, its record written when the content is new.
 * Returns 0 or the output's negative errno (-ENOMEM included).
 */
int rec_pyids_code(struct rec_pyids *ids, const struct rec_pycode *c,
		   uint32_t *id);
/*
 * The pynode id of a frame running pycode `code` at `line` under node
 * `prefix` (SP_NONE at the root), its record written when new.  Returns
 * 0 or the output's negative errno.
 */
int rec_pyids_node(struct rec_pyids *ids, uint32_t prefix, uint32_t code,
		   int32_t line, bool entry, uint32_t *id);

#endif
