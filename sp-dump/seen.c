/*
 * seen.c: the (id, pid) sets of seen.h.  Each process also lists the
 * keys it added, apart from the sets, so a lookup stays one probe and
 * forgetting a process costs its own keys only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/htab.h"
#include "sp-dump/seen.h"
#include "common/banned.h"

/* The ids one process added to each set. */
struct proc {
	uint32_t *ids[2];
	size_t n[2], a[2];
};

/*
 * Keys known to be in a set, by a few bits of id and pid, before its
 * hash table: most samples repeat a stack seen just before.
 */
#define RECENT 1024

struct recent {
	uint32_t id;
	int32_t pid;
	bool used;
};

struct dump_seen {
	struct sp_htab *set[2]; /* (id, pid) of each kind */
	struct recent recent[2][RECENT];
	struct sp_htab *procs; /* pid -> struct proc * */
	struct proc *last;     /* the process last added to, or NULL */
	int32_t last_pid;
};

static void
proc_free(struct proc *p)
{
	if (!p)
		return;
	free(p->ids[0]);
	free(p->ids[1]);
	free(p);
}

struct dump_seen *
dump_seen_new(void)
{
	struct dump_seen *s = calloc(1, sizeof(*s));

	if (s && (s->set[0] = sp_htab_new()) && (s->set[1] = sp_htab_new()) &&
	    (s->procs = sp_htab_new()))
		return s;
	dump_seen_free(s);
	errno = ENOMEM;
	return NULL;
}

void
dump_seen_free(struct dump_seen *s)
{
	size_t pos = 0;
	uint64_t val;

	if (!s)
		return;
	while (s->procs && sp_htab_next(s->procs, &pos, NULL, NULL, &val))
		proc_free((struct proc *)(uintptr_t)val);
	sp_htab_free(s->procs);
	sp_htab_free(s->set[0]);
	sp_htab_free(s->set[1]);
	free(s);
}

static struct recent *
recent_of(struct dump_seen *s, enum dump_seen_kind kind, uint32_t id,
	  int32_t pid)
{
	return &s->recent[kind][(id * 61 + (uint32_t)pid) % RECENT];
}

bool
dump_seen_has(struct dump_seen *s, enum dump_seen_kind kind, uint32_t id,
	      int32_t pid)
{
	uint64_t key[2] = { id, (uint64_t)(int64_t)pid };
	struct recent *c = recent_of(s, kind, id, pid);

	if (c->used && c->id == id && c->pid == pid)
		return true;
	if (!sp_htab_get(s->set[kind], key, sizeof(key), NULL))
		return false;
	*c = (struct recent){ id, pid, true };
	return true;
}

/* The process's list of keys, made on first use; NULL: out of memory. */
static struct proc *
proc_of(struct dump_seen *s, int32_t pid)
{
	uint64_t pkey = (uint64_t)(int64_t)pid, val;
	struct proc *p;

	if (s->last && s->last_pid == pid)
		return s->last;
	if (sp_htab_get(s->procs, &pkey, sizeof(pkey), &val)) {
		p = (struct proc *)(uintptr_t)val;
	} else {
		p = calloc(1, sizeof(*p));
		if (!p ||
		    sp_htab_put(s->procs, &pkey, sizeof(pkey), (uintptr_t)p)) {
			free(p);
			return NULL;
		}
	}
	s->last = p;
	s->last_pid = pid;
	return p;
}

int
dump_seen_add(struct dump_seen *s, enum dump_seen_kind kind, uint32_t id,
	      int32_t pid)
{
	uint64_t key[2] = { id, (uint64_t)(int64_t)pid };
	struct proc *p = proc_of(s, pid);

	if (!p || SP_GROW(p->ids[kind], p->a[kind], p->n[kind] + 1) ||
	    sp_htab_put(s->set[kind], key, sizeof(key), 0))
		return -ENOMEM;
	p->ids[kind][p->n[kind]++] = id;
	return 0;
}

void
dump_seen_forget(struct dump_seen *s, int32_t pid)
{
	uint64_t key[2] = { 0, (uint64_t)(int64_t)pid }, val;
	struct proc *p;
	size_t i;
	int k;

	if (!sp_htab_get(s->procs, &key[1], sizeof(key[1]), &val))
		return;
	p = (struct proc *)(uintptr_t)val;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < p->n[k]; i++) {
			key[0] = p->ids[k][i];
			sp_htab_del(s->set[k], key, sizeof(key));
		}
	}
	sp_htab_del(s->procs, &key[1], sizeof(key[1]));
	proc_free(p);
	s->last = NULL;
	memset(s->recent, 0, sizeof(s->recent));
}
