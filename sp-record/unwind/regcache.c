/*
 * regcache.c: the unwinder's per-process region cache (regcache.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/htab.h"
#include "common/search.h"
#include "sp-record/unwind/regcache.h"
#include "common/banned.h"

/* What the cache knows about a module id; state 0 means not looked at. */
struct rec_modinfo {
	const struct rec_mapped *f;
	uint64_t bias;
	uint8_t state; /* 0 unknown, 1 usable file, 2 no file */
};

void
rec_regcache_init(struct rec_regcache *rc, int32_t pid)
{
	memset(rc, 0, sizeof(*rc));
	rc->pid = pid;
}

void
rec_regcache_release(struct rec_regcache *rc, struct rec_mapped_cache *files)
{
	size_t i;

	for (i = 0; i < rc->nmods; i++)
		if (rc->mods[i].state == 1)
			rec_mapped_put(files, rc->mods[i].f);
	sp_htab_free(rc->modids);
	free(rc->mods);
	free(rc->regions);
	memset(rc, 0, sizeof(*rc));
}

/*
 * What is known of module `id`, its file opened the first time.  Module
 * ids are per process: kept here, freed with the process, however many
 * processes come and go.
 */
static struct rec_modinfo *
modinfo_get(struct rec_regcache *rc, struct rec_mapped_cache *files,
	    const struct sp_modtab *mods, uint32_t id)
{
	const struct sp_module *m;
	struct rec_modinfo *mi;
	uint64_t *slot;
	bool fresh;

	if (!rc->modids && !(rc->modids = sp_htab_new()))
		return NULL;
	if (SP_GROW(rc->mods, rc->amods, rc->nmods + 1) ||
	    !(slot =
		  sp_htab_slot(rc->modids, &id, sizeof(id), rc->nmods, &fresh)))
		return NULL;
	mi = &rc->mods[*slot];
	if (fresh) {
		memset(mi, 0, sizeof(*mi));
		rc->nmods++;
	}
	if (mi->state == 0) {
		mi->state = 2;
		m = sp_modtab_get(mods, id);
		if (m && !m->is_kernel &&
		    (mi->f = rec_mapped_get(files, m, rc->pid))) {
			mi->bias = rec_mapped_bias(mi->f, m);
			mi->state = 1;
		}
	}
	return mi;
}

/*
 * The region holding `addr`.  Regions are kept sorted by address and do
 * not overlap, so a lookup costs log(modules), not one step per module;
 * consecutive reads mostly hit the same region, which is tried first.
 */
static struct rec_regcache_region *
region_find(struct rec_regcache *rc, uint64_t addr)
{
	struct rec_regcache_region *r;
	size_t i;

	if (rc->last < rc->nregions) {
		r = &rc->regions[rc->last];
		if (addr >= r->lo && addr < r->hi)
			return r;
	}
	i = SP_SEARCH_LAST_LE(rc->regions, rc->nregions, lo, addr);
	if (i == SIZE_MAX || addr >= rc->regions[i].hi)
		return NULL;
	rc->last = i;
	return &rc->regions[i];
}

/*
 * Adds the region of module `mi` in its place by address.  A region that
 * would overlap one already known is not added (the module table said
 * the address is in this module, so the old one is stale: the caller
 * forgets the process when mappings are replaced); NULL then.
 */
static struct rec_regcache_region *
region_add(struct rec_regcache *rc, const struct rec_modinfo *mi)
{
	struct rec_regcache_region *r;
	uint64_t lo = mi->bias + mi->f->min_vaddr;
	uint64_t hi = mi->bias + mi->f->max_vaddr;
	size_t at = 0, first = 0, last = rc->nregions;

	while (first < last) {
		at = first + (last - first) / 2;
		if (rc->regions[at].lo < lo)
			first = at + 1;
		else
			last = at;
	}
	at = first;
	if ((at > 0 && rc->regions[at - 1].hi > lo) ||
	    (at < rc->nregions && rc->regions[at].lo < hi) || lo >= hi)
		return NULL;
	if (SP_GROW(rc->regions, rc->aregions, rc->nregions + 1))
		return NULL;
	memmove(&rc->regions[at + 1], &rc->regions[at],
		(rc->nregions - at) * sizeof(*rc->regions));
	rc->nregions++;
	rc->last = at;
	r = &rc->regions[at];
	r->lo = lo;
	r->hi = hi;
	r->bias = mi->bias;
	r->f = mi->f;
	return r;
}

const struct rec_regcache_region *
rec_regcache_get(struct rec_regcache *rc, struct rec_mapped_cache *files,
		 struct sp_modtab *mods, uint64_t addr, int *miss)
{
	struct rec_regcache_region *r = region_find(rc, addr);
	struct rec_modinfo *mi;
	struct sp_frame fr;

	if (r)
		return r;
	sp_modtab_resolve(mods, rc->pid, addr, SP_FRAME_USER, &fr);
	if (fr.module_id == SP_NONE) {
		*miss = REC_REGION_NO_MODULE;
		return NULL;
	}
	*miss = REC_REGION_NO_FILE;
	if (!(mi = modinfo_get(rc, files, mods, fr.module_id)) ||
	    mi->state != 1)
		return NULL;
	return region_add(rc, mi);
}
