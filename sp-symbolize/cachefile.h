/*
 * cachefile.h: the resolved frames of one module file, by the module
 * file offset they were asked for, and the codec of the cache file that
 * keeps them between runs (symcache.h).
 *
 * A set owns copies of every result in it.  A cache file is, all
 * integers LEB128 varints unless said otherwise:
 *
 *   "SPSYMC\0" VERSION(1 byte)  CTX(8 bytes, little-endian)  COUNT
 *   COUNT x { KEY  NFRAMES  NFRAMES x { FLAGS  OFFSET+1|0  LINE
 *                                       NAMELEN NAME  FILELEN+1|0 FILE } }
 *   XXH3 of every byte before it (8 bytes, little-endian)
 *
 * CTX says what the results depend on besides the build id (options,
 * debug files; fileid.h).  NFRAMES 0 records that nothing in the file
 * covers KEY.  Names and files hold no NUL byte.
 */
#ifndef SP_SYMBOLIZE_CACHEFILE_H
#define SP_SYMBOLIZE_CACHEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "sp-symbolize/symres.h"

#define SYM_CACHEFILE_VERSION 2
/* More frames than this for one address is no result sp-symbolize made. */
#define SYM_CACHEFILE_MAX_FRAMES 4096

struct sym_cset;

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

/* Appends the cache file of `s` with context `ctx`; 0 or -ENOMEM. */
int sym_cset_encode(const struct sym_cset *s, uint64_t ctx, struct sp_buf *out);
/*
 * Adds the entries of the cache file p[0..len) to `s` (keys present
 * keep their results).  Everything is checked before anything is
 * added: on -EBADMSG (not a cache file, another version, truncated,
 * checksum or structure wrong) and -ESTALE (a sound file for another
 * context than `ctx`) `s` is unchanged.  Returns 0, one of those, or
 * -ENOMEM (then `s` may hold some of the file's entries, all sound).
 */
int sym_cset_decode(struct sym_cset *s, const uint8_t *p, size_t len,
		    uint64_t ctx);

#endif
