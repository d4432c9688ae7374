/*
 * ext_py.h: the Python frame records, extensions of the spool (ext.h) and
 * of the text record stream (records.h), their codecs and their checks.
 *
 *   26 pycode   id firstline(s) len name len file
 *               a function: its code object's name (co_qualname where
 *               the version has it), file and first line
 *   27 pynode   id prefix pycode_id line(s) flags(byte)
 *               one node of a prefix tree of Python stacks, like `stack`:
 *               prefix 0xffffffff at the root; flags bit 0 (entry): the
 *               outermost frame of its evaluator call
 *   28 pystack  leaf flags(byte) ngroups native_index...
 *               of the next sample, like `weight`: its innermost pynode
 *               (0xffffffff: the thread ran no Python); flags bit 0
 *               truncated, bit 1 inconsistent; one index per entry node
 *               on the chain from leaf, outermost first: the native
 *               evaluator frame that ran that group, counted from the
 *               sample's native leaf (0), strictly decreasing
 *
 * pycode and pynode ids count from 0 in the order written, each kind
 * apart.  Decoders return 0 or -EBADMSG; strings point into the payload
 * (not NUL-terminated) and live as long as it does.
 */
#ifndef SP_EXT_PY_H
#define SP_EXT_PY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

enum {
	SP_EXT_PYCODE = 26,
	SP_EXT_PYNODE = 27,
	SP_EXT_PYSTACK = 28,
};

/* pynode flags */
#define SP_PYNODE_ENTRY 0x1
/* pystack flags */
#define SP_PYSTACK_TRUNCATED 0x1
#define SP_PYSTACK_INCONSISTENT 0x2
/* The most groups a pystack holds (a decoder refuses more). */
#define SP_PYSTACK_GROUPS_MAX 256

struct sp_ext_pycode {
	uint32_t id;
	int32_t firstline;
	const char *name;
	size_t name_len;
	const char *file;
	size_t file_len;
};

struct sp_ext_pynode {
	uint32_t id;
	uint32_t prefix; /* SP_NONE at the root */
	uint32_t code;
	int32_t line; /* the line executing; -1 unknown */
	uint8_t flags;
};

struct sp_ext_pystack {
	uint32_t leaf; /* SP_NONE: no Python */
	uint8_t flags;
	uint32_t ngroups;
	uint32_t index[SP_PYSTACK_GROUPS_MAX];
};

/* Encoders append a payload (without tag and length) to `out`. */
int sp_ext_pycode_encode(struct sp_buf *out, const struct sp_ext_pycode *c);
int sp_ext_pynode_encode(struct sp_buf *out, const struct sp_ext_pynode *n);
/* ngroups above SP_PYSTACK_GROUPS_MAX is -EINVAL. */
int sp_ext_pystack_encode(struct sp_buf *out, const struct sp_ext_pystack *s);

/* Ids of SP_NONE (but a prefix or leaf) and unknown flags are -EBADMSG. */
int sp_ext_pycode_decode(const uint8_t *p, size_t n, struct sp_ext_pycode *c);
int sp_ext_pynode_decode(const uint8_t *p, size_t n, struct sp_ext_pynode *nd);
int sp_ext_pystack_decode(const uint8_t *p, size_t n, struct sp_ext_pystack *s);

/*
 * What a reader has defined so far, for the checks below: zero it to
 * start, release it at the end.  It keeps, per pynode, the number of
 * entry nodes on its chain.
 */
struct sp_py_bounds {
	uint32_t ncodes;
	uint32_t nnodes;
	size_t anodes;
	uint32_t *entries; /* [nnodes] */
	/*
	 * A pystack waits for its sample, whose stack must be at least
	 * need_depth frames deep (its deepest index + 1).
	 */
	bool stack_pending;
	uint32_t need_depth;
};

void sp_py_bounds_release(struct sp_py_bounds *b);

/*
 * Checks a decoded record against what came before, then counts it:
 * pycode ids in order, no NUL in a name or file; a pynode id in order
 * with its prefix and pycode defined; a pystack's leaf defined, ngroups
 * equal to the entry nodes on its chain (0 when inconsistent or without
 * leaf) and its indexes strictly decreasing.  Returns NULL when it is
 * good, else a static reason (and counts nothing); a pynode may also
 * fail for memory: "out of memory".
 */
const char *sp_py_check_code(struct sp_py_bounds *b,
			     const struct sp_ext_pycode *c);
const char *sp_py_check_node(struct sp_py_bounds *b,
			     const struct sp_ext_pynode *nd);
const char *sp_py_check_stack(struct sp_py_bounds *b,
			      const struct sp_ext_pystack *s);
/*
 * A sample of a stack `depth` frames deep (UINT32_MAX: not checked):
 * refuses one too shallow for the pystack before it (an index past its
 * frames); then no pystack is pending.  A second pystack before a sample
 * is refused by sp_py_check_stack().
 */
const char *sp_py_check_sample(struct sp_py_bounds *b, uint32_t depth);

/*
 * The same for a spool payload of tag 26-28: NULL when good, `malformed`
 * when it does not decode, else the reason.  Other tags are good.
 */
const char *sp_py_check_ext(struct sp_py_bounds *b, uint8_t tag,
			    const uint8_t *p, size_t n, const char *malformed);

/* A pystack's flags word in text records: "ok", "truncated", ... */
const char *sp_pystack_flags_name(uint8_t flags);
/* The flags a word names; -1 when it names none. */
int sp_pystack_flags_parse(const char *word);

#endif
