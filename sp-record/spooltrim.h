/*
 * spooltrim.h: cutting a spool that a write error left with a partial
 * record (a full disk) back to a record boundary, so that readers see a
 * clean end instead of a truncated record.
 */
#ifndef SP_RECORD_SPOOLTRIM_H
#define SP_RECORD_SPOOLTRIM_H

#include <stdint.h>

/*
 * When `fd` (open for writing) is a regular file whose spool ends inside
 * a record, truncates it at the start of its last whole record (where
 * that one ends is not known, so it is dropped too), or right after the
 * header when no record is whole.  Returns 1 with the file's size, cut or
 * not, in *kept; 0 when `fd` is not a regular file; or a negative errno.
 */
int rec_spool_trim(int fd, uint64_t *kept);

#endif
