/*
 * filememo.h: what the recorder learnt from a file's contents, kept by
 * the file's identity so that the next process mapping the same file
 * (every cc1 of a build) does not read it again.
 *
 * The identity is device, inode, size and modification time: a file
 * replaced under the same path is another inode, and one rewritten in
 * place has another time or size, so neither is served from an entry of
 * the old contents.  Values are fixed-size blobs copied in and out; the
 * memo holds no descriptor and no mapping, only at most `max` values,
 * the oldest dropped first.
 *
 *   m = rec_filememo_new(sizeof(struct what), 64);
 *   rec_filememo_id_of(&st, &id);            st: fstat of the opened file
 *   if (!rec_filememo_get(m, &id, &what)) {
 *           ... read the file into what ...
 *           rec_filememo_put(m, &id, &what);
 *   }
 */
#ifndef SP_RECORD_FILES_FILEMEMO_H
#define SP_RECORD_FILES_FILEMEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* A key: set it with rec_filememo_id_of (it zeroes any padding). */
struct rec_filememo_id {
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec;
};

struct rec_filememo;

/* The identity of the file `st` describes. */
void rec_filememo_id_of(const struct stat *st, struct rec_filememo_id *id);

/*
 * An empty memo of values of `size` bytes, at most `max` (>= 1) kept.
 * Returns NULL with errno set.
 */
struct rec_filememo *rec_filememo_new(size_t size, size_t max);
/* NULL is allowed. */
void rec_filememo_free(struct rec_filememo *m);

/* Copies the value kept for `id` into `value`; false when none is. */
bool rec_filememo_get(const struct rec_filememo *m,
		      const struct rec_filememo_id *id, void *value);
/*
 * Keeps a copy of `value` for `id` (replacing one kept for it), first
 * dropping the oldest value when `max` are kept.  Returns 0 or -ENOMEM
 * (nothing is kept then).
 */
int rec_filememo_put(struct rec_filememo *m, const struct rec_filememo_id *id,
		     const void *value);
/* How many values are kept. */
size_t rec_filememo_count(const struct rec_filememo *m);

#endif
