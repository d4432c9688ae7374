/*
 * idtab.c: chunked id tables.  Each chunk holds a bitmap of its live ids
 * before its entries, so a retired id is told from a live one without a
 * flag in every caller's struct.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/idtab.h"
#include "common/banned.h"

#define CHUNK_SHIFT 6 /* SP_IDTAB_CHUNK == 1 << CHUNK_SHIFT */

struct chunk {
	uint64_t live; /* bit i: id (chunk base + i) is live */
	unsigned char data[];
};

struct sp_idtab {
	struct chunk **dir; /* by id >> CHUNK_SHIFT; NULL once freed */
	size_t adir;
	size_t elem;
	uint32_t count;
	size_t nlive;
};

_Static_assert(SP_IDTAB_CHUNK == 1 << CHUNK_SHIFT, "chunk size");

struct sp_idtab *
sp_idtab_new(size_t elem)
{
	struct sp_idtab *t = calloc(1, sizeof(*t));

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	/* Entries stay 8-byte aligned after the bitmap. */
	t->elem = (elem + 7) & ~(size_t)7;
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
		free(t->dir[i]);
	free(t->dir);
	free(t);
}

void *
sp_idtab_add(struct sp_idtab *t)
{
	uint32_t id = t->count, slot = id & (SP_IDTAB_CHUNK - 1);
	size_t c = id >> CHUNK_SHIFT;
	struct chunk *ch;

	if (id == UINT32_MAX) {
		errno = EOVERFLOW;
		return NULL;
	}
	if (!slot) {
		if (SP_GROW(t->dir, t->adir, c + 1)) {
			errno = ENOMEM;
			return NULL;
		}
		t->dir[c] =
		    malloc(sizeof(struct chunk) + SP_IDTAB_CHUNK * t->elem);
		if (!t->dir[c]) {
			errno = ENOMEM;
			return NULL;
		}
		t->dir[c]->live = 0;
	}
	ch = t->dir[c];
	ch->live |= (uint64_t)1 << slot;
	t->count++;
	t->nlive++;
	return memset(ch->data + slot * t->elem, 0, t->elem);
}

void *
sp_idtab_get(const struct sp_idtab *t, uint32_t id)
{
	struct chunk *ch;
	uint32_t slot = id & (SP_IDTAB_CHUNK - 1);

	if (id >= t->count)
		return NULL;
	ch = t->dir[id >> CHUNK_SHIFT];
	if (!ch || !(ch->live >> slot & 1))
		return NULL;
	return ch->data + slot * t->elem;
}

void
sp_idtab_retire(struct sp_idtab *t, uint32_t id)
{
	size_t c = id >> CHUNK_SHIFT;
	uint32_t slot = id & (SP_IDTAB_CHUNK - 1);
	struct chunk *ch;

	if (id >= t->count || !(ch = t->dir[c]) || !(ch->live >> slot & 1))
		return;
	ch->live &= ~((uint64_t)1 << slot);
	t->nlive--;
	/* The chunk still being filled stays for the ids to come. */
	if (!ch->live && (c + 1) << CHUNK_SHIFT <= t->count) {
		free(ch);
		t->dir[c] = NULL;
	}
}

uint32_t
sp_idtab_count(const struct sp_idtab *t)
{
	return t->count;
}

size_t
sp_idtab_live(const struct sp_idtab *t)
{
	return t->nlive;
}
