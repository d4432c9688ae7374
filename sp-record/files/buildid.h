/*
 * buildid.h: reading a module file's GNU build id (the NT_GNU_BUILD_ID
 * note), cached per file so each costs at most one open.
 */
#ifndef SP_RECORD_FILES_BUILDID_H
#define SP_RECORD_FILES_BUILDID_H

#include <stddef.h>
#include <stdint.h>

#define REC_BUILDID_MAX 64

struct rec_buildid_set;
struct rec_filepin;
struct sp_module;

/*
 * Returns an empty cache or NULL with errno set; files are opened through
 * `pins` (borrowed, may be NULL) as a last resort.
 */
struct rec_buildid_set *rec_buildid_set_new(struct rec_filepin *pins);
void rec_buildid_set_free(struct rec_buildid_set *c);

/*
 * Gets the build id of the file behind user module `m` of process m->pid,
 * opened as modfile.h says (never a FIFO or device, never blocking).
 * Returns its length (1..REC_BUILDID_MAX) with the bytes in `out`, or 0
 * when the file has none or cannot be read.
 */
size_t rec_buildid_set_get(struct rec_buildid_set *c, const struct sp_module *m,
			   uint8_t *out);

/*
 * Finds the build id in an ELF64 little-endian file open as `fd`.
 * Returns its length or 0.  Every read is bounded by the file's size.
 */
size_t rec_buildid_from_fd(int fd, uint8_t *out);

#endif
