/*
 * cachefile.h: the resolved frames of one module file, by the module
 * file offset they were asked for, and the codec of the cache file that
 * keeps them between runs (symcache.h).
 *
 * A set owns copies of every result in it.  A cache file is, all
 * integers LEB128 varints unless said otherwise:
 *
 *   "SPSYMC\0" VERSION(1 byte)  CTX(8 bytes, little-endian)
 *   HASH(8 bytes, little-endian)  PATHLEN PATH
 *   NIDS  NIDS x { DEV INO SIZE MTIME_NS CTIME_NS UID }
 *   COUNT
 *   COUNT x { KEY  NFRAMES  NFRAMES x { FLAGS  OFFSET+1|0  LINE
 *                                       NAMELEN NAME  FILELEN+1|0 FILE } }
 *   XXH3 of every byte before it (8 bytes, little-endian)
 *
 * CTX says what the results depend on besides the build id (options,
 * debug files; fileid.h).  HASH, PATH and the NIDS identities are the
 * origin of the results (struct sym_corigin): the file they were made
 * from.  NFRAMES 0 records that nothing in the file covers KEY.  Names,
 * files and PATH hold no NUL byte.
 */
#ifndef SP_SYMBOLIZE_CACHE_CACHEFILE_H
#define SP_SYMBOLIZE_CACHE_CACHEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "sp-symbolize/out/symres.h"

#define SYM_CACHEFILE_VERSION 3
/* More frames than this for one address is no result sp-symbolize made. */
#define SYM_CACHEFILE_MAX_FRAMES 4096
/* Identities an origin remembers (copies, reinstalls), newest first. */
#define SYM_CACHEFILE_MAX_IDS 8
#define SYM_CACHEFILE_MAX_PATH 4096

struct sym_cset;

/*
 * One file as fstat(2) saw it.  No user can set a file's ctime, and any
 * change to the file's bytes or owner moves it, so an equal identity is
 * the same file unchanged.
 */
struct sym_filestat {
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns;
	uint32_t uid;
};

/*
 * What the results of a cache file were made from: XXH3 of the whole
 * module file (0 for results of no file, the kernel's), the path it was
 * last read at (for messages; NULL when unknown) and the identities the
 * same bytes were seen with, newest first.  Owns `path`.
 */
struct sym_corigin {
	uint64_t hash;
	char *path;
	size_t nids;
	struct sym_filestat ids[SYM_CACHEFILE_MAX_IDS];
};

/* Whether two identities are the same file, unchanged. */
bool sym_filestat_same(const struct sym_filestat *a,
		       const struct sym_filestat *b);

/* Everything zero: no hash, path or identity. */
#define SYM_CORIGIN_INIT                                                       \
	{                                                                      \
		0                                                              \
	}

/* Frees the path; `o` becomes SYM_CORIGIN_INIT. */
void sym_corigin_release(struct sym_corigin *o);
/* Whether `st` is one of the identities of `o`. */
bool sym_corigin_knows(const struct sym_corigin *o,
		       const struct sym_filestat *st);
/*
 * Puts `st` first among the identities of `o` (the oldest one goes past
 * SYM_CACHEFILE_MAX_IDS).  Returns whether the list changed.
 */
bool sym_corigin_note(struct sym_corigin *o, const struct sym_filestat *st);
/* Replaces the path of `o` by a copy of `path`; 0 or -ENOMEM. */
int sym_corigin_set_path(struct sym_corigin *o, const char *path);

/* Returns an empty set, or NULL with errno set. */
struct sym_cset *sym_cset_new(void);
/* NULL is allowed. */
void sym_cset_free(struct sym_cset *s);
/* Keys held. */
size_t sym_cset_count(const struct sym_cset *s);
/*
 * The result stored under `key`, or NULL.  The pointer stays valid
 * until the next sym_cset_add() or sym_cset_decode() on `s`.
 */
const struct sym_res *sym_cset_find(const struct sym_cset *s, uint64_t key);
/*
 * Stores a copy of the frames src->v[from..src->n) under `key`; a key
 * already present keeps its result.  Returns 0 or -ENOMEM.
 */
int sym_cset_add(struct sym_cset *s, uint64_t key, const struct sym_res *src,
		 size_t from);

/*
 * Appends the cache file of `s` with context `ctx` and origin `o` (NULL:
 * none, hash 0); 0 or -ENOMEM.
 */
int sym_cset_encode(const struct sym_cset *s, uint64_t ctx,
		    const struct sym_corigin *o, struct sp_buf *out);
/*
 * Reads the origin of the cache file p[0..len) into `o` (released
 * first), after checking the whole file as sym_cset_decode() does.
 * Returns 0, -EBADMSG, -ESTALE or -ENOMEM; `o` is SYM_CORIGIN_INIT on
 * failure.
 */
int sym_cset_origin(const uint8_t *p, size_t len, uint64_t ctx,
		    struct sym_corigin *o);
/*
 * Adds the entries of the cache file p[0..len) to `s` (keys present
 * keep their results), whatever its origin says: callers check that
 * with sym_cset_origin() first.  Everything is checked before anything is
 * added: on -EBADMSG (not a cache file, another version, truncated,
 * checksum or structure wrong) and -ESTALE (a sound file for another
 * context than `ctx`) `s` is unchanged.  Returns 0, one of those, or
 * -ENOMEM (then `s` may hold some of the file's entries, all sound).
 */
int sym_cset_decode(struct sym_cset *s, const uint8_t *p, size_t len,
		    uint64_t ctx);

#endif
