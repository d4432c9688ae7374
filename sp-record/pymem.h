/*
 * pymem.h: bounded reads of another process's writable memory, for the
 * CPython frame reader.
 *
 * Reads go through process_vm_readv, so the target never stops.  Every
 * read must lie inside one run of the target's writable mappings (a
 * frame, thread state or code object anywhere else is a pointer gone
 * stale), and a sample's reads share a byte budget, so a chain that
 * changes under the reader costs a bounded amount.  The mappings are
 * reread at most once per sample, when an address misses them.
 */
#ifndef SP_RECORD_PYMEM_H
#define SP_RECORD_PYMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_pymem_range {
	uint64_t start, end; /* end exclusive */
};

/* Embedded in its user; start with rec_pymem_init. */
struct rec_pymem {
	int32_t pid;
	struct rec_pymem_range *ranges; /* sorted, adjacent ones merged */
	size_t nranges, alloc;
	size_t budget; /* bytes this sample may still read */
	bool reread;   /* the maps were reread during this sample */
	uint64_t bytes_read, maps_reads; /* totals, for tests and costs */
};

/* Sets up reads of `pid` and reads its maps.  Returns 0 or -errno. */
int rec_pymem_init(struct rec_pymem *m, int32_t pid);
/* Frees the mappings; `m` may then be initialized again. */
void rec_pymem_release(struct rec_pymem *m);

/* Starts a sample: `budget` bytes may be read until the next start. */
void rec_pymem_begin(struct rec_pymem *m, size_t budget);

/*
 * Reads `len` bytes at `addr` into `buf`.  Returns 0; -EFAULT when the
 * range is not inside the writable mappings or the read came back short;
 * -E2BIG when the sample's budget would be passed (nothing is read);
 * -ESRCH when the process is gone.
 */
int rec_pymem_read(struct rec_pymem *m, uint64_t addr, void *buf, size_t len);

#endif
