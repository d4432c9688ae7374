/*
 * idtab.h: a table from sequential ids (0, 1, 2... in the order a stream
 * defines them) to fixed-size entries, whose ids can be retired one by
 * one.  Entries live in chunks of SP_IDTAB_CHUNK ids that never move; a
 * chunk is freed once every id in it is retired, so the table's memory
 * follows the live ids, plus one pointer per chunk of ids ever defined.
 * A lookup is two loads.
 */
#ifndef SP_IDTAB_H
#define SP_IDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SP_IDTAB_CHUNK 64

struct sp_idtab;

/* A table of entries of `elem` bytes; NULL with errno set. */
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
void *sp_idtab_get(const struct sp_idtab *t, uint32_t id);
/* Retires a live id (others are ignored); its entry may be freed. */
void sp_idtab_retire(struct sp_idtab *t, uint32_t id);
/* The number of ids defined so far, retired ones included. */
uint32_t sp_idtab_count(const struct sp_idtab *t);
/* The number of live ids. */
size_t sp_idtab_live(const struct sp_idtab *t);

#endif
