/*
 * runs.c: the run table of runs.h: a hash table from a sample's identity
 * to its run, and the runs in the order they began.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/htab.h"
#include "sp-dump/runs.h"
#include "common/banned.h"

/* What makes two samples one run: all but their times.  No padding. */
struct run_key {
	uint64_t tid, weight;
	int32_t pid;
	uint32_t stack, event, state; /* event SP_NONE: none given */
};

/*
 * The last run of each (stack, thread), by a few bits of both, before the hash
 * table: a profile's samples mostly repeat a few stacks, and a hit costs
 * a compare instead of a hash.  Index + 1; 0 for none.
 */
#define RECENT 1024

struct dump_runs {
	FILE *out;
	struct sp_htab *idx; /* struct run_key -> index in v */
	struct sp_rec *v;    /* the runs, as SP_REC_RUN records */
	size_t n, a;
	uint32_t recent[RECENT];
};

struct dump_runs *
dump_runs_new(FILE *out)
{
	struct dump_runs *r = calloc(1, sizeof(*r));

	if (!r || !(r->idx = sp_htab_new())) {
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	r->out = out;
	return r;
}

void
dump_runs_free(struct dump_runs *r)
{
	if (!r)
		return;
	sp_htab_free(r->idx);
	free(r->v);
	free(r);
}

static void
key_of(const struct sp_rec *s, struct run_key *k)
{
	const typeof(s->u.sample) *u = &s->u.sample;

	memset(k, 0, sizeof(*k));
	k->tid = u->tid;
	k->pid = u->pid;
	k->stack = u->stack;
	k->event = u->has_event ? u->event : SP_NONE;
	k->weight = u->has_event ? u->weight : 0;
	k->state = u->has_event ? (uint32_t)u->state : 0;
}

/* Whether sample `s` belongs to `run`. */
static bool
same_run(const struct sp_rec *run, const struct sp_rec *s)
{
	struct run_key a, b;

	key_of(run, &a);
	key_of(s, &b);
	return !memcmp(&a, &b, sizeof(a));
}

/* The run keeps its first sample's time, and the latest of them all. */
static void
count(struct sp_rec *run, uint64_t ts)
{
	run->u.sample.count++;
	if (ts > run->u.sample.last_ts)
		run->u.sample.last_ts = ts;
}

int
dump_runs_add(struct dump_runs *r, const struct sp_rec *s)
{
	uint32_t *recent =
	    &r->recent[(s->u.sample.stack * 61 + s->u.sample.tid) % RECENT];
	struct run_key k;
	struct sp_rec *run;
	uint64_t *slot;
	bool inserted = false;

	if (*recent && same_run(&r->v[*recent - 1], s)) {
		count(&r->v[*recent - 1], s->u.sample.ts);
		return 0;
	}
	if (r->n >= DUMP_RUNS_MAX)
		dump_runs_flush(r);
	key_of(s, &k);
	slot = sp_htab_slot(r->idx, &k, sizeof(k), r->n, &inserted);
	if (!slot)
		return -ENOMEM;
	if (!inserted) {
		*recent = (uint32_t)*slot + 1;
		count(&r->v[*slot], s->u.sample.ts);
		return 0;
	}
	if (SP_GROW(r->v, r->a, r->n + 1)) {
		sp_htab_del(r->idx, &k, sizeof(k));
		return -ENOMEM;
	}
	*recent = (uint32_t)r->n + 1;
	run = &r->v[r->n++];
	*run = *s;
	run->kind = SP_REC_RUN;
	run->u.sample.count = 1;
	run->u.sample.last_ts = s->u.sample.ts;
	run->u.sample.py = NULL;
	return 0;
}

void
dump_runs_flush(struct dump_runs *r)
{
	struct run_key k;
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++) {
		sp_rec_write(r->out, &r->v[i]);
		key_of(&r->v[i], &k);
		sp_htab_del(r->idx, &k, sizeof(k));
	}
	r->n = 0;
	memset(r->recent, 0, sizeof(r->recent));
}
