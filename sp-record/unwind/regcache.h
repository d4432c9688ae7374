/*
 * regcache.h: where the module files of one process lie, as the unwinder
 * learns it: a sorted set of non-overlapping regions (runtime address =
 * bias + file vaddr), each learnt from the module table the first time
 * an address in it is read, and the module files the process holds.
 *
 * A region is never updated in place: when mappings are replaced (a
 * dlclose, then a dlopen at the same address) the caller releases the
 * whole cache and starts a new one.
 */
#ifndef SP_RECORD_UNWIND_REGCACHE_H
#define SP_RECORD_UNWIND_REGCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "common/modtab.h"
#include "sp-record/unwind/mapped.h"

/* A module file as placed in the process. */
struct rec_regcache_region {
	uint64_t lo, hi, bias;
	const struct rec_mapped *f;
};

struct rec_modinfo;

/* Embedded by value; all zero but the pid after rec_regcache_init(). */
struct rec_regcache {
	int32_t pid;
	struct rec_regcache_region *regions; /* sorted by lo */
	size_t nregions, aregions, last;
	struct sp_htab *modids; /* module id -> index into mods */
	struct rec_modinfo *mods;
	size_t nmods, amods;
};

/* Why rec_regcache_get() found no region. */
enum rec_regcache_miss {
	REC_REGION_NO_MODULE = 1, /* no module covers the address */
	REC_REGION_NO_FILE,       /* its module file is not usable */
};

void rec_regcache_init(struct rec_regcache *rc, int32_t pid);
/* Frees the regions and gives the module files back to `files`. */
void rec_regcache_release(struct rec_regcache *rc,
			  struct rec_mapped_cache *files);

/*
 * The region holding `addr`, learnt from `mods` (modules of rc->pid) and
 * opened from `files` the first time; NULL with *miss set when there is
 * none (also out of memory, or when the module's region would overlap
 * one already known: REC_REGION_NO_FILE).  The pointer stays valid until
 * the next call.
 */
const struct rec_regcache_region *
rec_regcache_get(struct rec_regcache *rc, struct rec_mapped_cache *files,
		 struct sp_modtab *mods, uint64_t addr, int *miss);

#endif
