/*
 * spooltrim.h: cutting a spool that a write error left with a partial
 * record (a full disk) back to a record boundary, so that readers see a
 * clean end instead of a truncated record.
 */
#ifndef SP_RECORD_OUT_SPOOLTRIM_H
#define SP_RECORD_OUT_SPOOLTRIM_H

#include <stdint.h>

/*
 * Where a spool written to `fd` from now on starts: the file's size when
 * `fd` appends (`>>`: its offset says nothing until the first write), its
 * offset otherwise; 0 when `fd` cannot seek (a pipe).  Call it before the
 * first write.
 */
uint64_t rec_spooltrim_start(int fd);

/*
 * When `fd` (open for writing) is a regular file whose spool, starting at
 * byte `start` (from rec_spooltrim_start()), ends inside a record, truncates
 * it at the start of its last whole record (where that one ends is not
 * known, so it is dropped too), or right after the header when no record
 * is whole; the bytes before `start` (another spool, other data) are kept.
 * Returns 1 with the spool's size from `start`, cut or not, in *kept; 0
 * when `fd` is not a regular file; or a negative errno.
 */
int rec_spooltrim(int fd, uint64_t start, uint64_t *kept);

#endif
