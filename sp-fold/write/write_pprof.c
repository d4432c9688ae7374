/*
 * write_pprof.c: --format pprof from folded stacks (perf script input):
 * one function and location per frame name, the comm as a thread label,
 * no addresses or mappings since folded stacks have none.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/satmath.h"
#include "sp-fold/write/write_pprof.h"
#include "sp-fold/write/write_pprof_proto.h"
#include "common/banned.h"

/* Location ids of a line, leaf first, into `ids`; the comm into *comm. */
static int
line_locations(struct fold_pprof *p, const struct fold_line *l, bool has_comm,
	       struct sp_buf *ids, struct sp_buf *comm)
{
	const char *s = l->stack, *end = s + l->len, *q;
	struct fold_pprof_line pl = { NULL, NULL, 0, true, 0 };
	uint64_t id;
	int64_t loc;

	sp_buf_reset(ids);
	sp_buf_reset(comm);
	for (; s <= end; s = q + 1) {
		q = memchr(s, ';', (size_t)(end - s));
		q = q ? q : end;
		if (has_comm && !comm->len) {
			if (sp_buf_add(comm, s, (size_t)(q - s)) ||
			    sp_buf_addc(comm, 0))
				return -ENOMEM;
			continue;
		}
		pl.name = strndup(s, (size_t)(q - s));
		loc = pl.name ? fold_pprof_location(p, s, (size_t)(q - s), 0, 0,
						    &pl, 1)
			      : -ENOMEM;
		free((char *)pl.name);
		id = (uint64_t)loc;
		if (loc < 0 || sp_buf_add(ids, &id, sizeof(id)))
			return -ENOMEM;
	}
	return 0;
}

static void
reverse_ids(struct sp_buf *ids)
{
	uint64_t *v = (uint64_t *)ids->data, t;
	size_t n = ids->len / sizeof(*v), i;

	for (i = 0; i < n / 2; i++) {
		t = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
}

int
fold_write_pprof(FILE *out, const struct fold_profile *prof, bool no_comm)
{
	const struct fold_meta *meta = &prof->meta;
	struct fold_set *set = prof->set;
	struct sp_buf ids = SP_BUF_INIT, comm = SP_BUF_INIT;
	const struct fold_line *l;
	struct fold_pprof p;
	size_t n, i;
	int64_t v[2];
	int rc;

	rc =
	    fold_pprof_init(&p, meta->period_ns ? "cpu" : NULL, meta->period_ns,
			    meta->start_ns, meta->duration_ns);
	if (!rc)
		rc = fold_set_lines(set, &l, &n);
	for (i = 0; !rc && i < n; i++) {
		rc = line_locations(&p, &l[i], !no_comm, &ids, &comm);
		reverse_ids(&ids);
		v[0] = sp_sat_i64(l[i].count);
		v[1] = sp_sat_i64(sp_sat_mul_u64(l[i].count, meta->period_ns));
		if (!rc)
			rc = fold_pprof_sample(
			    &p, (const uint64_t *)ids.data,
			    ids.len / sizeof(uint64_t), v,
			    meta->period_ns ? 2 : 1,
			    comm.len ? (char *)comm.data : NULL, -1, -1);
	}
	if (!rc)
		rc = fold_pprof_emit(&p, out);
	fold_pprof_release(&p);
	sp_buf_release(&ids);
	sp_buf_release(&comm);
	return rc;
}
