/*
 * idtab.h: a table from sequential ids (0, 1, 2... in the order a stream
 * defines them) to fixed-size entries, whose ids can be retired one by
 * one.  Entries live in chunks of SP_IDTAB_CHUNK ids that never move; a
 * chunk is freed once every id in it is retired, so the table's memory
 * follows the live ids, plus one pointer per chunk of ids ever defined.
 * A lookup is two loads, inline: readers look ids up for every sample.
 */
#ifndef SP_IDTAB_H
#define SP_IDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SP_IDTAB_CHUNK_SHIFT 6
#define SP_IDTAB_CHUNK (1 << SP_IDTAB_CHUNK_SHIFT)

/*
 * Defined here only for the inline lookup: callers use the functions.
 * The live bits sit next to the chunk pointer, so a lookup reads the
 * directory's line and the entry's, nothing else.
 */
struct sp_idtab_chunk {
	uint64_t live;       /* bit i: id (chunk base + i) is live */
	unsigned char *data; /* NULL once every id of it was retired */
};

struct sp_idtab {
	struct sp_idtab_chunk *dir; /* by id >> SP_IDTAB_CHUNK_SHIFT */
	size_t adir;
	size_t elem; /* bytes per entry */
	uint32_t count;
	size_t nlive;
};

/*
 * A table of entries of `elem` bytes (the sizeof of a struct that needs
 * at most 8-byte alignment); NULL with errno set.
 */
struct sp_idtab *sp_idtab_new(size_t elem);
/* Frees the table and every entry; NULL is allowed. */
void sp_idtab_free(struct sp_idtab *t);
/*
 * Defines the next id (sp_idtab_count() before the call) and returns its
 * entry, zeroed.  The pointer stays valid until that id is retired.
 * Returns NULL with errno ENOMEM, or EOVERFLOW once ids would reach
 * UINT32_MAX (the "no id" value).
 */
void *sp_idtab_add(struct sp_idtab *t);
/* The entry of a live id, or NULL for an id retired or not defined. */
static inline void *
sp_idtab_get(const struct sp_idtab *t, uint32_t id)
{
	const struct sp_idtab_chunk *ch;
	uint32_t slot = id & (SP_IDTAB_CHUNK - 1);

	if (id >= t->count)
		return NULL;
	ch = &t->dir[id >> SP_IDTAB_CHUNK_SHIFT];
	if (!(ch->live >> slot & 1))
		return NULL;
	return ch->data + slot * t->elem;
}
/* Retires a live id (others are ignored); its entry may be freed. */
void sp_idtab_retire(struct sp_idtab *t, uint32_t id);
/* The number of ids defined so far, retired ones included. */
static inline uint32_t
sp_idtab_count(const struct sp_idtab *t)
{
	return t->count;
}
/* The number of live ids. */
size_t sp_idtab_live(const struct sp_idtab *t);

#endif
