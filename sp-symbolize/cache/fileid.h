/*
 * fileid.h: what the cached results of a module file are filed under:
 * its GNU build id, and a context hash of everything else its results
 * depend on, read without loading its symbols or DWARF; and the same
 * for the running kernel's symbols.
 */
#ifndef SP_SYMBOLIZE_CACHE_FILEID_H
#define SP_SYMBOLIZE_CACHE_FILEID_H

#include <stdint.h>

#include <sys/stat.h>

#include "sp-symbolize/cache/cachefile.h"
#include "sp-symbolize/image/image.h"

struct sym_fileid {
	char buildid[2 * 64 + 1]; /* lowercase hex */
	/*
	 * XXH3 of: the cache format, the caller's `tool` string, the options
	 * of `opts` that change results, the file's size (a stripped copy
	 * shares the build id of the file it came from), its owner when that
	 * is neither root nor the running user (another user's files never
	 * share results with root's or one's own), and the device, inode,
	 * size, modification and change times of every debug file candidate
	 * that exists (elffile.h), so that installing or removing a debug
	 * file starts another context.
	 */
	uint64_t ctx;
	/* The file itself, as fstat(2) saw the descriptor that was read. */
	struct sym_filestat st;
};

/*
 * Reads the identity of the ELF file `path`.  `tool` names what makes
 * the results (sp-symbolize's version and build id), so that another
 * build does not take this one's results.  Returns 0, -ENOENT when the
 * file has no build id (its results are never cached), or another
 * negative errno (-EINVAL not a regular file, -ENOEXEC not ELF, -ENOMEM).
 */
int sym_fileid_read(const char *path, const struct sym_symopts *opts,
		    const char *tool, struct sym_fileid *id);

/* The identity of `st`, as the cache keeps it. */
void sym_fileid_stat(const struct stat *st, struct sym_filestat *out);

/*
 * A file larger than this is not hashed, so not cached: modules this
 * large are rare, and reading a sparse one of any size takes minutes.
 */
#define SYM_FILEID_MAX_HASH (4ull << 30)

/*
 * XXH3 of every byte of the file at `path`, provided the file opened is
 * `want` (same identity before and after the read): what tells two
 * files that claim one build id apart.  Returns 0, -ESTALE when the
 * file is not `want` (any more), -EFBIG when `want` is larger than
 * SYM_FILEID_MAX_HASH, or another negative errno.
 */
int sym_fileid_hash(const char *path, const struct sym_filestat *want,
		    uint64_t *hash);

/*
 * The identity of the running kernel's core text symbols, as this
 * process sees them in /proc/kallsyms: the build id slot holds a hash
 * of the release and boot id (the kernel's text moves at each boot),
 * the context one of `tool`.  Returns 0, or -ENOENT when the host facts
 * cannot be read or /proc/kallsyms hides its addresses from this
 * process (then it has nothing to cache), or -ENOMEM.
 */
int sym_fileid_kernel(const char *tool, struct sym_fileid *id);

#endif
