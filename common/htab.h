/*
 * htab.h: a hash table from byte-string keys to 64-bit values, hashed
 * with XXH3.  It grows by itself; keys are dropped only by sp_htab_del.
 *
 * Keys are copied into the table, so callers may reuse their key memory.
 * Struct keys must be fully initialized, padding included (memset them),
 * because keys compare as bytes.
 */
#ifndef SP_HTAB_H
#define SP_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sp_htab;

/* Returns a new empty table, or NULL with errno set. */
struct sp_htab *sp_htab_new(void);
/* Frees the table and its key copies; NULL is allowed. */
void sp_htab_free(struct sp_htab *h);
/* Returns true and sets *val (if not NULL) when the key is present. */
bool sp_htab_get(const struct sp_htab *h, const void *key, size_t len,
		 uint64_t *val);
/*
 * Returns a pointer to the key's value, inserting it with value `init`
 * if absent (then *inserted is set to true).  The pointer stays valid
 * until the next insertion.  Returns NULL on allocation failure.
 */
uint64_t *sp_htab_slot(struct sp_htab *h, const void *key, size_t len,
		       uint64_t init, bool *inserted);
/* Inserts or replaces; returns 0 or -ENOMEM. */
int sp_htab_put(struct sp_htab *h, const void *key, size_t len, uint64_t val);
/*
 * Removes the key; returns whether it was present.  Invalidates slot
 * pointers and iteration positions; the table keeps its size.
 */
bool sp_htab_del(struct sp_htab *h, const void *key, size_t len);
size_t sp_htab_count(const struct sp_htab *h);
/*
 * Removes every key for which `match(key, len, val, ctx)` is true; the
 * callback sees each key once and must neither read nor change the table
 * (it is rearranged as the pass goes).  Returns 0 (-ENOMEM is kept in
 * the contract for callers written against it).  Invalidates as
 * sp_htab_del.
 */
typedef bool sp_htab_match_fn(const void *key, size_t len, uint64_t val,
			      void *ctx);
int sp_htab_del_if(struct sp_htab *h, sp_htab_match_fn *match, void *ctx);

/* Iteration in unspecified order: start with *pos = 0. */
bool sp_htab_next(const struct sp_htab *h, size_t *pos, const void **key,
		  size_t *len, uint64_t *val);

/* XXH3 of a byte string, for callers that need a stable hash. */
uint64_t sp_hash(const void *p, size_t n);

#endif
