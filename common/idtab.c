/*
 * idtab.c: chunked id tables.  A page holds its chunks' bitmaps of live
 * ids, so a retired id is told from a live one without a flag in every
 * caller's struct.  The lookup is inline in idtab.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/idtab.h"
#include "common/banned.h"

#define CHUNK_SHIFT SP_IDTAB_CHUNK_SHIFT
#define PAGE_SHIFT SP_IDTAB_PAGE_SHIFT

struct sp_idtab *
sp_idtab_new(size_t elem)
{
	struct sp_idtab *t = calloc(1, sizeof(*t));

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	/* malloc's alignment holds for every entry: sizeof is a multiple of
	 * the struct's own. */
	t->elem = elem ? elem : 1;
	return t;
}

void
sp_idtab_free(struct sp_idtab *t)
{
	size_t p, c;

	if (!t)
		return;
	for (p = 0; p < t->ndir; p++) {
		for (c = 0; t->dir[p] && c < SP_IDTAB_PAGE; c++)
			free(t->dir[p]->ch[c].data);
		free(t->dir[p]);
	}
	free(t->dir);
	free(t);
}

/* The page of chunk `c`, made when the chunk is its first. */
static struct sp_idtab_page *
page_for(struct sp_idtab *t, size_t c)
{
	size_t p = c >> PAGE_SHIFT;

	/* A page is only freed once all its ids were defined, so the page
	 * of the next chunk is either the last one or a new one. */
	if (p < t->ndir)
		return t->dir[p];
	if (SP_GROW(t->dir, t->adir, p + 1) ||
	    !(t->dir[p] = calloc(1, sizeof(*t->dir[p]))))
		return NULL;
	t->ndir = p + 1;
	return t->dir[p];
}

void *
sp_idtab_add(struct sp_idtab *t)
{
	uint32_t id = t->count, slot = id & (SP_IDTAB_CHUNK - 1);
	size_t c = id >> CHUNK_SHIFT;
	struct sp_idtab_page *pg;
	struct sp_idtab_chunk *ch;

	if (id == UINT32_MAX) {
		errno = EOVERFLOW;
		return NULL;
	}
	if (!(pg = page_for(t, c))) {
		errno = ENOMEM;
		return NULL;
	}
	ch = &pg->ch[c & (SP_IDTAB_PAGE - 1)];
	if (!slot) {
		if (!(ch->data = malloc(SP_IDTAB_CHUNK * t->elem))) {
			errno = ENOMEM;
			return NULL;
		}
		ch->live = 0;
		pg->nheld++;
	}
	ch->live |= (uint64_t)1 << slot;
	t->count++;
	t->nlive++;
	return memset(ch->data + slot * t->elem, 0, t->elem);
}

void
sp_idtab_retire(struct sp_idtab *t, uint32_t id)
{
	size_t c = id >> CHUNK_SHIFT, p = c >> PAGE_SHIFT;
	uint32_t slot = id & (SP_IDTAB_CHUNK - 1);
	struct sp_idtab_page *pg;
	struct sp_idtab_chunk *ch;

	if (id >= t->count || !(pg = t->dir[p]))
		return;
	ch = &pg->ch[c & (SP_IDTAB_PAGE - 1)];
	if (!(ch->live >> slot & 1))
		return;
	ch->live &= ~((uint64_t)1 << slot);
	t->nlive--;
	/* The chunk still being filled stays for the ids to come. */
	if (ch->live || (uint64_t)(c + 1) << CHUNK_SHIFT > t->count)
		return;
	free(ch->data);
	ch->data = NULL;
	/* So does a page whose chunks are not all made yet. */
	if (--pg->nheld ||
	    (uint64_t)(p + 1) << (CHUNK_SHIFT + PAGE_SHIFT) > t->count)
		return;
	free(pg);
	t->dir[p] = NULL;
}

size_t
sp_idtab_live(const struct sp_idtab *t)
{
	return t->nlive;
}

size_t
sp_idtab_pages(const struct sp_idtab *t)
{
	size_t p, n = 0;

	for (p = 0; p < t->ndir; p++)
		n += t->dir[p] != NULL;
	return n;
}
