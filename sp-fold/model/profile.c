/* profile.c: what the writers take from the readers (profile.h). */
#include <errno.h>

#include "common/buf.h"
#include "sp-fold/model/expand.h"
#include "sp-fold/model/profile.h"
#include "common/banned.h"

int
fold_profile_fold(const struct fold_profile *p, const struct fold_name_opts *o,
		  struct fold_set *set)
{
	struct sp_buf tmp = SP_BUF_INIT;
	const struct fold_entry *e;
	const char *comm;
	size_t i;
	int rc = 0;

	for (i = 0; i < p->nents && !rc; i++) {
		e = &p->ents[i];
		comm = e->name == UINT32_MAX ? NULL : p->m->strs[e->name];
		rc = fold_model_add(p->m, o, set, comm, e->pid, e->tid,
				    e->stack, e->count, &tmp);
	}
	sp_buf_release(&tmp);
	return rc ? -ENOMEM : 0;
}

int
fold_profile_tick_cmp(const void *a, const void *b, void *profile)
{
	const struct fold_profile *p = profile;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct fold_entry *ex = &p->ents[p->ticks[x].entry];
	const struct fold_entry *ey = &p->ents[p->ticks[y].entry];

	if (ex->pid != ey->pid)
		return ex->pid < ey->pid ? -1 : 1;
	if (ex->tid != ey->tid)
		return ex->tid < ey->tid ? -1 : 1;
	return (x > y) - (x < y);
}
