/*
 * symcache.h: the persistent cache of resolved frames, one file per
 * module build id and context (fileid.h) in one directory, so that a
 * later run answers the addresses seen before without opening the
 * module's symbols or DWARF.
 *
 * Files are only ever replaced whole (a temporary file in the same
 * directory, then rename(2)), so a reader sees one complete file or
 * none, and concurrent runs are safe: each merges what is on disk when
 * it saves.  A file is touched when it is used; beyond the size bound,
 * the files used least recently are removed.  An unreadable, corrupt or
 * truncated file is ignored (corrupt ones with one warning) and
 * replaced at the save.  The cache never fails a run: problems are
 * warnings.
 *
 * Only files named the way the cache names them are read or evicted;
 * a file is read only when it is a regular file of the running user
 * that no one else may write.  A directory that is a symbolic link, not
 * the running user's or writable by others is refused with one warning
 * and the run goes on without a cache, as with --no-cache.
 */
#ifndef SP_SYMBOLIZE_CACHE_SYMCACHE_H
#define SP_SYMBOLIZE_CACHE_SYMCACHE_H

#include <stdint.h>

#include "common/buf.h"
#include "sp-symbolize/cache/cachefile.h"
#include "sp-symbolize/out/warn.h"

/* The default bound on the directory's size. */
#define SYM_CACHE_DEFAULT_MAX (64ull << 20)

struct sym_cache;

/*
 * A cache in `dir` (copied; created with its parents at the first save)
 * holding at most `max_bytes`.  Warnings go to `warn` (may be NULL); an
 * existing directory is checked at once.  Returns NULL with errno set
 * on allocation failure.
 */
struct sym_cache *sym_cache_new(const char *dir, uint64_t max_bytes,
				sym_warn_fn *warn, void *warn_ctx);
/* Frees the sets without saving them; NULL is allowed. */
void sym_cache_free(struct sym_cache *c);

/* The module file a set's results are made from, as fileid.h read it. */
struct sym_csource {
	const char *path;
	struct sym_filestat st;
};

/*
 * The set of results for `buildid` (hex) in context `ctx`, made from
 * the file `src` (NULL: from no file, the kernel's), read from its
 * cache file at the first call (empty when there is none, or it is
 * unusable).  Results added to it are saved by sym_cache_save().  The
 * set is owned by the cache and lives until sym_cache_free().
 *
 * A cache file's results serve only the file they were made from: one
 * of the identities it recorded (device, inode, size, modification and
 * change times, owner), or else a file with the same bytes (the whole
 * file is hashed once then, and its identity recorded).  Results of
 * another file with the same build id are not used: one warning per
 * build id names both files, and the file's results replace them at
 * the save.  A set that starts afresh hashes the file too, and warns
 * the same way when the cache holds another file's results for the
 * build id under another context (another owner: fileid.h).
 *
 * Returns NULL for a build id that is not 4 to 128 hex digits, when the
 * directory was refused, when `src` cannot be hashed as the file
 * identified (it changed), when `src` is not the file whose results the
 * set already holds in this run, or on ENOMEM.
 */
struct sym_cset *sym_cache_set(struct sym_cache *c, const char *buildid,
			       uint64_t ctx, const struct sym_csource *src);

/*
 * Writes back every set that gained results since it was read or last
 * saved (merged with its file's current contents), then removes least
 * recently used files while the directory holds more than the bound.
 * May be called again later.  Returns the number of files written (0
 * also when the directory cannot be made: no cache then), or a
 * negative errno after a warning; after a failure, later calls write
 * nothing and return 0, so a live run warns once.
 */
int sym_cache_save(struct sym_cache *c);

/*
 * A whole file of the cache under a caller's `name`, BUILDID.KIND
 * (BUILDID 4 to 128 hex digits, KIND lowercase letters and digits, not
 * "tmp"), for data that is not a set of frames.  get reads it into
 * `out` and touches it (0, -ENOENT when absent, -EPERM when refused, or
 * another negative errno); put replaces it atomically, creating the
 * directory, and counts with the other files for the size bound (a
 * file over a quarter of the bound is not written).  put returns 0
 * (also when there is no cache to write) or a negative errno.  Both
 * return -EINVAL for another name.
 */
int sym_cache_get_file(struct sym_cache *c, const char *name,
		       struct sp_buf *out);
int sym_cache_put_file(struct sym_cache *c, const char *name,
		       const struct sp_buf *b);

#endif
