/*
 * pycode.h: the code objects of a CPython process, read once each and
 * kept by address and fingerprint.
 *
 * A code object's address may be reused by another once the first is
 * freed, so every lookup takes the object's header as read with its
 * frame and compares the pointers to its name, file name and line table
 * and its first line and sizes (the fingerprint) with the kept ones; a
 * difference makes a new code with a new id.
 *
 * A module's body is freed with its strings as soon as it has run, and
 * their memory reused: strings read after that may be another object's.
 * So a code is kept only if it is still in place, the same, once its
 * strings are read; strings the BPF program copied at the sample
 * (rec_pycode_seed) are the code's own either way.
 */
#ifndef SP_RECORD_PYTHON_PYCODE_H
#define SP_RECORD_PYTHON_PYCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp-record/python/pylayout.h"
#include "sp-record/python/pymem.h"

struct rec_pycode_cache;

/* A code object as first read; never changes once made. */
struct rec_pycode {
	uint32_t id;          /* 0, 1, 2, ... in the order first read */
	uint64_t addr;        /* where it was */
	const char *name;     /* co_qualname (3.11+), else co_name; UTF-8 */
	const char *filename; /* co_filename, UTF-8 */
	int32_t firstlineno;
	/* a generator's or coroutine's (known in 3.8-3.10 only) */
	bool resumable;
};

/*
 * The longest names and file names kept, in characters: a longer one is
 * kept cut, its first and last halves of these joined by "[...]".
 */
#define REC_PYCODE_NAME_MAX 1024
#define REC_PYCODE_FILE_MAX 4096
/* The longest line table kept; a longer one gives no lines. */
#define REC_PYCODE_LINES_MAX (64 * 1024)

/* Returns an empty cache for layout `l` (kept by pointer), or NULL. */
struct rec_pycode_cache *rec_pycode_new(const struct rec_pylayout *l,
					uint64_t code_type);
/* Frees the cache and every code; NULL is allowed. */
void rec_pycode_free(struct rec_pycode_cache *c);

/*
 * The code object at `addr`, read through `mem` when not kept.  Returns
 * it (valid until rec_pycode_free), or NULL with *err set: -EFAULT or
 * -E2BIG from the reads, -EBADMSG when it is not a code object or its
 * strings are not compact str objects, -ESTALE when it was gone once
 * they were read, -ENOMEM.
 */
const struct rec_pycode *rec_pycode_get(struct rec_pycode_cache *c,
					struct rec_pymem *mem, uint64_t addr,
					int *err);

/*
 * The same, from the first c->l->co_span bytes of the object, `hdr`,
 * already read (many at once: rec_pymem_readv).  A code not kept yet
 * is made: its name, file name and line table are read through `mem`.
 */
const struct rec_pycode *rec_pycode_from_header(struct rec_pycode_cache *c,
						struct rec_pymem *mem,
						uint64_t addr,
						const uint8_t *hdr, int *err);

/* A str object's bytes from its start, as copied at a sample. */
struct rec_pycode_raw {
	const uint8_t *bytes;
	size_t len;
};

/*
 * A code's name (co_qualname where the version has it), file name and
 * line table (its bytes object).
 */
struct rec_pycode_seed {
	struct rec_pycode_raw name, file, lines;
};

/*
 * Keeps the code at `addr` of header `hdr` (as rec_pycode_from_header
 * takes it), unless kept: its strings from `seed`, where what a long one
 * lacks is read through `mem`; its line table from `seed` when whole,
 * else read through `mem`, or, the code gone by then, the start of it
 * `seed` holds (lines past it are not known).  Returns 0, -EBADMSG,
 * -ENOMEM or a read's error.
 */
int rec_pycode_seed(struct rec_pycode_cache *c, struct rec_pymem *mem,
		    uint64_t addr, const uint8_t *hdr,
		    const struct rec_pycode_seed *seed);

/*
 * How many codes were made so far: a code whose id is not below a count
 * taken earlier was made since (its strings were read then).
 */
size_t rec_pycode_count(const struct rec_pycode_cache *c);

/*
 * The line code `code` (of cache `c`) executes at byte offset `offset`
 * (negative: not started, its first line), or -1.  The last few offsets
 * looked up of each code are kept with their lines.
 */
int32_t rec_pycode_line(struct rec_pycode_cache *c,
			const struct rec_pycode *code, int64_t offset);

#endif
