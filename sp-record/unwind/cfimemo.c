/*
 * cfimemo.c: CFI rules by file identity and address (cfimemo.h), in one
 * hash table keyed by both.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/htab.h"
#include "sp-record/unwind/cfimemo.h"
#include "common/banned.h"

struct rec_cfimemo {
	struct sp_htab *words; /* struct key -> word */
	size_t max;
	uint64_t resets;
};

struct key {
	struct rec_filememo_id id;
	uint64_t vaddr;
};

static void
key_of(struct key *k, const struct rec_filememo_id *id, uint64_t vaddr)
{
	memcpy(&k->id, id,
	       sizeof(*id)); /* rec_filememo_id_of zeroed its padding */
	k->vaddr = vaddr;
}

struct rec_cfimemo *
rec_cfimemo_new(size_t max)
{
	struct rec_cfimemo *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->max = max ? max : 1;
	if (!(m->words = sp_htab_new())) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void
rec_cfimemo_free(struct rec_cfimemo *m)
{
	if (!m)
		return;
	sp_htab_free(m->words);
	free(m);
}

bool
rec_cfimemo_get(const struct rec_cfimemo *m, const struct rec_filememo_id *id,
		uint64_t vaddr, uint64_t *word)
{
	struct key k;

	key_of(&k, id, vaddr);
	return sp_htab_get(m->words, &k, sizeof(k), word);
}

int
rec_cfimemo_put(struct rec_cfimemo *m, const struct rec_filememo_id *id,
		uint64_t vaddr, uint64_t word)
{
	struct sp_htab *empty;
	struct key k;

	key_of(&k, id, vaddr);
	if (sp_htab_count(m->words) >= m->max &&
	    !sp_htab_get(m->words, &k, sizeof(k), NULL)) {
		if (!(empty = sp_htab_new()))
			return -ENOMEM;
		sp_htab_free(m->words);
		m->words = empty;
		m->resets++;
	}
	return sp_htab_put(m->words, &k, sizeof(k), word);
}

size_t
rec_cfimemo_count(const struct rec_cfimemo *m)
{
	return sp_htab_count(m->words);
}

uint64_t
rec_cfimemo_resets(const struct rec_cfimemo *m)
{
	return m->resets;
}
