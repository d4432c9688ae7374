/*
 * pytab.h: the Python frames of a record stream (pycode and pynode
 * records, docs/python-frames.md): the code table and the prefix tree of
 * Python stacks that a sample's pystack (common/ext_py.h) points into.
 * Ids index the arrays directly; the record decoder checked they come in
 * order.
 */
#ifndef SP_FOLD_MODEL_PYTAB_H
#define SP_FOLD_MODEL_PYTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/htab.h"

/* A Python function: its code object's name, file and first line. */
struct fold_pycode {
	char *name, *file; /* owned */
	uint32_t firstline;
};

/* One frame of a Python stack, prefix SP_NONE at the root. */
struct fold_pynode {
	uint32_t prefix, code;
	int32_t line; /* executing, -1 when unknown */
	bool entry;   /* the outermost frame of its evaluator call */
};

struct fold_pytab {
	struct fold_pycode *codes;
	size_t ncodes, acodes;
	struct fold_pynode *nodes;
	size_t nnodes, anodes;
	struct sp_htab *frame_idx; /* (code, line) -> Python frame id */
	uint32_t marker; /* the truncated marker's frame, or SP_NONE */
};

/* Sets up empty tables; returns 0 or -ENOMEM; release is due after. */
int fold_pytab_init(struct fold_pytab *t);
void fold_pytab_release(struct fold_pytab *t);
/* Appends a code (strings copied); returns 0 or -ENOMEM. */
int fold_pytab_code(struct fold_pytab *t, const char *name, size_t name_len,
		    const char *file, size_t file_len, uint32_t firstline);
/*
 * Appends a node; returns 0, -ENOMEM, or -EBADMSG when its prefix or code
 * is not defined yet.
 */
int fold_pytab_node(struct fold_pytab *t, uint32_t prefix, uint32_t code,
		    int32_t line, bool entry);

#endif
