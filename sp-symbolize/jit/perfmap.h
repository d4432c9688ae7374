/*
 * perfmap.h: JIT symbol maps, /tmp/perf-PID.map, as written by node
 * --perf-basic-prof, Java agents and CPython's perf trampolines.
 *
 * Each line is "START SIZE NAME" with START and SIZE in hex (an optional
 * 0x prefix).  An address resolves only inside a declared range
 * [START, START+SIZE): the gaps between entries stay unresolved.  When
 * ranges overlap, the entry written last wins, since JITs append a new
 * entry when they recompile code.  Malformed lines are skipped, as perf
 * does.
 */
#ifndef SP_SYMBOLIZE_JIT_PERFMAP_H
#define SP_SYMBOLIZE_JIT_PERFMAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * A perf map holds a line of about 60 bytes per JIT-compiled function:
 * one larger than this is no map (a sparse file of 8 GiB took half a
 * minute and 2 GB to read), and is not read.
 */
#define SYM_PERFMAP_MAX_SIZE (512ull << 20)

struct sym_perfmap;

/* What identifies one version of a map file: a change means reload. */
struct sym_perfmap_id {
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns;
};

/* An empty map, or NULL on ENOMEM. */
struct sym_perfmap *sym_perfmap_new(void);
/*
 * Adds the entry [start, start+size) named name[0..len) (copied); call
 * sym_perfmap_sort() before lookups.  Returns 0 or -ENOMEM.
 */
int sym_perfmap_add(struct sym_perfmap *m, uint64_t start, uint64_t size,
		    const char *name, size_t len);
/* Orders the entries for lookups (the last added wins an overlap). */
void sym_perfmap_sort(struct sym_perfmap *m);
/*
 * Reads a map from `f`; NULL with errno set on failure (EFBIG past
 * SYM_PERFMAP_MAX_SIZE bytes).
 */
struct sym_perfmap *sym_perfmap_read(FILE *f);
/*
 * Loads `path`, as perf does only when it is a regular file (not a
 * symlink, never waiting on a FIFO) owned by `owner` or root; fills *id
 * (when not NULL) with the identity of the file read.  NULL with errno
 * set: ENOENT when there is no map, ELOOP for a symlink, EPERM for a
 * file of another kind or owner, EFBIG for a file larger than
 * SYM_PERFMAP_MAX_SIZE.
 */
struct sym_perfmap *sym_perfmap_load(const char *path, uid_t owner,
				     struct sym_perfmap_id *id);
/*
 * Opens `path` for reading only when it may be trusted (see
 * sym_perfmap_load) and fills *st (zeroed on failure); returns the
 * descriptor, or -1 with errno set (EPERM when it is not trusted).
 */
int sym_perfmap_open(const char *path, uid_t owner, struct stat *st);
/* The identity of the file `st` describes. */
void sym_perfmap_id_of(const struct stat *st, struct sym_perfmap_id *id);
/* Fills *id from lstat(2); returns false when the file does not exist. */
bool sym_perfmap_stat(const char *path, struct sym_perfmap_id *id);
bool sym_perfmap_id_equal(const struct sym_perfmap_id *a,
			  const struct sym_perfmap_id *b);
/* NULL is allowed. */
void sym_perfmap_free(struct sym_perfmap *m);
size_t sym_perfmap_count(const struct sym_perfmap *m);
/*
 * Finds the entry whose range holds `addr`.  Returns true and sets *name
 * (owned by the map) and *start.
 */
bool sym_perfmap_lookup(const struct sym_perfmap *m, uint64_t addr,
			const char **name, uint64_t *start);

/*
 * Splits a CPython entry "py::FUNC:FILE".  Returns false when `name` is
 * not one; otherwise sets *func and *file (FILE may be empty) as
 * malloc'ed strings the caller frees.
 */
bool sym_perfmap_python(const char *name, char **func, char **file);

#endif
