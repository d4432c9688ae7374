/*
 * htab.c: open-addressing hash table with linear probing.  Keys of up to
 * 16 bytes live in their slot, so that a lookup touches one cache line;
 * longer ones live in one arena, so the table costs two allocations
 * however many keys it holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
/* Compiled in: each tool maps one shared library fewer as it starts. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/buf.h"
#include "common/htab.h"
#include "common/banned.h"

#define INLINE_KEY 16
#define USED 0x80000000u /* in klen: the slot holds a key */
#define KEY_MAX (USED - 1)

struct sp_htab_entry {
	uint32_t hash; /* the low half of the key's XXH3 */
	uint32_t klen; /* USED | the key's length; 0: empty */
	uint64_t val;
	union {
		size_t off; /* in the arena, for keys over INLINE_KEY */
		uint8_t bytes[INLINE_KEY];
	} key;
};

struct sp_htab {
	struct sp_htab_entry *slots;
	size_t nslots; /* a power of two, or 0 */
	size_t count;
	struct sp_buf keys;
	size_t dead; /* bytes of deleted keys still in the arena */
};

uint64_t
sp_hash(const void *p, size_t n)
{
	return XXH3_64bits(p, n);
}

struct sp_htab *
sp_htab_new(void)
{
	struct sp_htab *h = calloc(1, sizeof(*h));

	if (!h)
		errno = ENOMEM;
	return h;
}

void
sp_htab_free(struct sp_htab *h)
{
	if (!h)
		return;
	free(h->slots);
	sp_buf_release(&h->keys);
	free(h);
}

static size_t
key_len(const struct sp_htab_entry *e)
{
	return e->klen & ~USED;
}

/* The key bytes of a used slot. */
static const uint8_t *
key_of(const struct sp_htab *h, const struct sp_htab_entry *e)
{
	return key_len(e) > INLINE_KEY ? h->keys.data + e->key.off
				       : e->key.bytes;
}

static bool
entry_matches(const struct sp_htab *h, const struct sp_htab_entry *e,
	      uint32_t hash, const void *key, size_t len)
{
	return e->hash == hash && e->klen == (USED | len) &&
	       (len == 0 || !memcmp(key_of(h, e), key, len));
}

static struct sp_htab_entry *
find_slot(const struct sp_htab *h, uint32_t hash, const void *key, size_t len)
{
	size_t mask = h->nslots - 1, i = hash & mask;

	for (;; i = (i + 1) & mask) {
		struct sp_htab_entry *e = &h->slots[i];

		if (!e->klen || entry_matches(h, e, hash, key, len))
			return e;
	}
}

static int
rehash(struct sp_htab *h, size_t nslots)
{
	struct sp_htab_entry *old = h->slots, *slots;
	size_t i, oldn = h->nslots;

	slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	h->slots = slots;
	h->nslots = nslots;
	for (i = 0; i < oldn; i++) {
		size_t j;

		if (!old[i].klen)
			continue;
		for (j = old[i].hash & (nslots - 1); slots[j].klen;
		     j = (j + 1) & (nslots - 1))
			;
		slots[j] = old[i];
	}
	free(old);
	return 0;
}

bool
sp_htab_get(const struct sp_htab *h, const void *key, size_t len, uint64_t *val)
{
	struct sp_htab_entry *e;

	if (!h->count)
		return false;
	e = find_slot(h, (uint32_t)sp_hash(key, len), key, len);
	if (!e->klen)
		return false;
	if (val)
		*val = e->val;
	return true;
}

uint64_t *
sp_htab_slot(struct sp_htab *h, const void *key, size_t len, uint64_t init,
	     bool *inserted)
{
	uint32_t hash = (uint32_t)sp_hash(key, len);
	struct sp_htab_entry *e;

	if (inserted)
		*inserted = false;
	if (len > KEY_MAX)
		return NULL;
	/* Keep the load factor under 1/2 so probes stay short. */
	if ((h->count + 1) * 2 > h->nslots &&
	    rehash(h, h->nslots ? h->nslots * 2 : 16))
		return NULL;
	e = find_slot(h, hash, key, len);
	if (e->klen)
		return &e->val;
	if (len <= INLINE_KEY) {
		memset(e->key.bytes, 0, sizeof(e->key.bytes));
		if (len)
			memcpy(e->key.bytes, key, len);
	} else {
		e->key.off = h->keys.len;
		if (sp_buf_add(&h->keys, key, len))
			return NULL;
	}
	e->hash = hash;
	e->klen = USED | (uint32_t)len;
	e->val = init;
	h->count++;
	if (inserted)
		*inserted = true;
	return &e->val;
}

int
sp_htab_put(struct sp_htab *h, const void *key, size_t len, uint64_t val)
{
	uint64_t *slot = sp_htab_slot(h, key, len, val, NULL);

	if (!slot)
		return -ENOMEM;
	*slot = val;
	return 0;
}

/* Whether the slot `i` lies cyclically in (hole, j]: then it may not move. */
static bool
between(size_t hole, size_t i, size_t j)
{
	return hole <= j ? hole < i && i <= j : hole < i || i <= j;
}

/*
 * Copies the live keys into a fresh arena once deleted ones make up most
 * of it, so a table whose keys come and go stays as big as its content.
 */
static void
compact_keys(struct sp_htab *h)
{
	struct sp_buf fresh = SP_BUF_INIT;
	size_t i;

	if (h->dead < 4096 || h->dead * 2 < h->keys.len)
		return;
	for (i = 0; i < h->nslots; i++) {
		struct sp_htab_entry *e = &h->slots[i];
		size_t off = fresh.len;

		if (key_len(e) <= INLINE_KEY)
			continue;
		if (sp_buf_add(&fresh, h->keys.data + e->key.off, key_len(e))) {
			sp_buf_release(&fresh); /* keep the old arena: valid */
			return;
		}
		e->key.off = off;
	}
	sp_buf_release(&h->keys);
	h->keys = fresh;
	h->dead = 0;
}

bool
sp_htab_del(struct sp_htab *h, const void *key, size_t len)
{
	size_t mask = h->nslots - 1, hole, j;
	struct sp_htab_entry *e;

	if (!h->count)
		return false;
	e = find_slot(h, (uint32_t)sp_hash(key, len), key, len);
	if (!e->klen)
		return false;
	h->dead += key_len(e) > INLINE_KEY ? key_len(e) : 0;
	hole = (size_t)(e - h->slots);
	/* Backward shift: later entries of the probe run fill the hole. */
	for (j = (hole + 1) & mask; h->slots[j].klen; j = (j + 1) & mask) {
		size_t home = h->slots[j].hash & mask;

		if (between(hole, home, j))
			continue;
		h->slots[hole] = h->slots[j];
		hole = j;
	}
	memset(&h->slots[hole], 0, sizeof(h->slots[hole]));
	h->count--;
	compact_keys(h);
	return true;
}

size_t
sp_htab_count(const struct sp_htab *h)
{
	return h->count;
}

bool
sp_htab_next(const struct sp_htab *h, size_t *pos, const void **key,
	     size_t *len, uint64_t *val)
{
	while (*pos < h->nslots) {
		const struct sp_htab_entry *e = &h->slots[(*pos)++];

		if (!e->klen)
			continue;
		if (key)
			*key = key_of(h, e);
		if (len)
			*len = key_len(e);
		if (val)
			*val = e->val;
		return true;
	}
	return false;
}

/*
 * The first slot of a probe run: rebuilding from there keeps every run's
 * order, so the table comes out as deleting one key at a time leaves it.
 */
static size_t
run_start(const struct sp_htab *h)
{
	size_t i = 0;

	while (i < h->nslots && h->slots[i].klen)
		i++;
	return i < h->nslots ? i : 0;
}

/*
 * One pass in place: a removed entry's slot is emptied and each kept one
 * moves to the first free slot from its home, found by its stored hash,
 * so no key is hashed or compared again and nothing is allocated
 * (removing keys one by one did both, and shifted each probe run once
 * per removal).  Going from an empty slot in slot order, the slots
 * before a kept entry's new place are already final.
 */
int
sp_htab_del_if(struct sp_htab *h, sp_htab_match_fn *match, void *ctx)
{
	size_t mask = h->nslots - 1, j, k, p, start, gone = 0;
	struct sp_htab_entry *e;

	if (!h->count)
		return 0;
	start = run_start(h);
	for (k = 1; k <= h->nslots; k++) {
		p = (start + k) & mask;
		e = &h->slots[p];
		if (!e->klen)
			continue;
		if (match(key_of(h, e), key_len(e), e->val, ctx)) {
			h->dead += key_len(e) > INLINE_KEY ? key_len(e) : 0;
			gone++;
			memset(e, 0, sizeof(*e));
			continue;
		}
		for (j = e->hash & mask; j != p && h->slots[j].klen;
		     j = (j + 1) & mask)
			;
		if (j != p) {
			h->slots[j] = *e;
			memset(e, 0, sizeof(*e));
		}
	}
	h->count -= gone;
	if (gone)
		compact_keys(h);
	return 0;
}
