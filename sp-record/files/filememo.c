/*
 * filememo.c: per-file results kept by file identity (filememo.h).
 *
 * The values live in one array used as a ring: slot `next` is the
 * oldest when the ring is full, so dropping it is overwriting it.  The
 * table maps an identity to its slot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/htab.h"
#include "sp-record/files/filememo.h"
#include "common/banned.h"

struct rec_filememo {
	struct sp_htab *slots;       /* struct rec_filememo_id -> slot index */
	struct rec_filememo_id *ids; /* each slot's key */
	unsigned char *values;       /* max * size bytes */
	size_t size, max, n, next;
};

void
rec_filememo_id_of(const struct stat *st, struct rec_filememo_id *id)
{
	memset(id, 0, sizeof(*id));
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_sec = (int64_t)st->st_mtim.tv_sec;
	id->mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
}

struct rec_filememo *
rec_filememo_new(size_t size, size_t max)
{
	struct rec_filememo *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->size = size;
	m->max = max ? max : 1;
	m->slots = sp_htab_new();
	m->ids = calloc(m->max, sizeof(*m->ids));
	m->values = calloc(m->max, size ? size : 1);
	if (!m->slots || !m->ids || !m->values) {
		rec_filememo_free(m);
		errno = ENOMEM;
		return NULL;
	}
	return m;
}

void
rec_filememo_free(struct rec_filememo *m)
{
	if (!m)
		return;
	sp_htab_free(m->slots);
	free(m->ids);
	free(m->values);
	free(m);
}

bool
rec_filememo_get(const struct rec_filememo *m, const struct rec_filememo_id *id,
		 void *value)
{
	uint64_t slot;

	if (!sp_htab_get(m->slots, id, sizeof(*id), &slot))
		return false;
	memcpy(value, m->values + slot * m->size, m->size);
	return true;
}

int
rec_filememo_put(struct rec_filememo *m, const struct rec_filememo_id *id,
		 const void *value)
{
	uint64_t slot;

	if (!sp_htab_get(m->slots, id, sizeof(*id), &slot)) {
		slot = m->next;
		if (m->n == m->max)
			sp_htab_del(m->slots, &m->ids[slot], sizeof(*id));
		if (sp_htab_put(m->slots, id, sizeof(*id), slot) < 0) {
			if (m->n == m->max)
				m->n--; /* the dropped slot stays free */
			return -ENOMEM;
		}
		m->ids[slot] = *id;
		m->next = (m->next + 1) % m->max;
		if (m->n < m->max)
			m->n++;
	}
	memcpy(m->values + slot * m->size, value, m->size);
	return 0;
}

size_t
rec_filememo_count(const struct rec_filememo *m)
{
	return m->n;
}
