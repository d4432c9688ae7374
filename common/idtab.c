/*
 * idtab.c: chunked id tables.  The directory holds each chunk's bitmap
 * of live ids, so a retired id is told from a live one without a flag in
 * every caller's struct.  The lookup is inline in idtab.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/idtab.h"
#include "common/banned.h"

#define CHUNK_SHIFT SP_IDTAB_CHUNK_SHIFT

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
	size_t i;

	if (!t)
		return;
	for (i = 0; i < ((size_t)t->count + SP_IDTAB_CHUNK - 1) >> CHUNK_SHIFT;
	     i++)
		free(t->dir[i].data);
	free(t->dir);
	free(t);
}

void *
sp_idtab_add(struct sp_idtab *t)
{
	uint32_t id = t->count, slot = id & (SP_IDTAB_CHUNK - 1);
	size_t c = id >> CHUNK_SHIFT;
	struct sp_idtab_chunk *ch;

	if (id == UINT32_MAX) {
		errno = EOVERFLOW;
		return NULL;
	}
	if (!slot) {
		if (SP_GROW(t->dir, t->adir, c + 1) ||
		    !(t->dir[c].data = malloc(SP_IDTAB_CHUNK * t->elem))) {
			errno = ENOMEM;
			return NULL;
		}
		t->dir[c].live = 0;
	}
	ch = &t->dir[c];
	ch->live |= (uint64_t)1 << slot;
	t->count++;
	t->nlive++;
	return memset(ch->data + slot * t->elem, 0, t->elem);
}

void
sp_idtab_retire(struct sp_idtab *t, uint32_t id)
{
	size_t c = id >> CHUNK_SHIFT;
	uint32_t slot = id & (SP_IDTAB_CHUNK - 1);
	struct sp_idtab_chunk *ch;

	if (id >= t->count || !(t->dir[c].live >> slot & 1))
		return;
	ch = &t->dir[c];
	ch->live &= ~((uint64_t)1 << slot);
	t->nlive--;
	/* The chunk still being filled stays for the ids to come. */
	if (!ch->live && (c + 1) << CHUNK_SHIFT <= t->count) {
		free(ch->data);
		ch->data = NULL;
	}
}

size_t
sp_idtab_live(const struct sp_idtab *t)
{
	return t->nlive;
}
