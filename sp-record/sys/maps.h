/*
 * maps.h: parsing /proc/PID/maps, and which mappings are code modules.
 *
 * A line reads
 *   START-END PERMS OFFSET MAJOR:MINOR INODE [PATH]
 * with hexadecimal START, END, OFFSET, MAJOR, MINOR and decimal INODE;
 * PATH may hold spaces and is everything after the inode's padding.
 */
#ifndef SP_RECORD_SYS_MAPS_H
#define SP_RECORD_SYS_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct rec_maps_entry {
	uint64_t start;
	uint64_t end; /* exclusive */
	uint64_t offset;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint64_t inode;
	char perms[5];    /* "r-xp", NUL-terminated */
	const char *path; /* points into the parsed text; may be "" */
	size_t path_len;
};

/*
 * Parses one line of `len` bytes (a trailing newline is allowed).
 * Returns 0, or -EBADMSG when the line is not a maps line.
 */
int rec_maps_parse_line(const char *line, size_t len, struct rec_maps_entry *m);

/*
 * Whether a mapping is a module worth recording: executable, and backed by
 * a file (a path starting with '/') or the [vdso].  Anonymous executable
 * memory (JIT code) has no file to symbolize from, so it is left out; a
 * JIT's perf map covers it by pid.
 */
bool rec_maps_is_module(const struct rec_maps_entry *m);

/*
 * Reads the whole maps file of `pid` into `out` (reset first).  Returns
 * 0 or a negative errno (-ENOENT or -ESRCH when the process is gone,
 * -EACCES without permission).
 */
int rec_maps_read(int32_t pid, struct sp_buf *out);

/*
 * Walks the lines of a maps text: returns 1 with *m set, 0 at the end,
 * skipping lines that do not parse (counted in *bad when not NULL).
 * Start with *pos = 0.
 */
int rec_maps_next(const char *text, size_t len, size_t *pos,
		  struct rec_maps_entry *m, uint64_t *bad);

#endif
