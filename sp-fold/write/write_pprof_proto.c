/* write_pprof_proto.c: the profile.proto encoder of write_pprof_proto.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/grow.h"
#include "common/varint.h"
#include "sp-fold/write/write_pprof_proto.h"
#include "common/banned.h"

/* Profile and sub-message field numbers of profile.proto. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING = 6,
	PROFILE_TIME = 9,
	PROFILE_DURATION = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
};

#define WIRE_VARINT 0
#define WIRE_BYTES 2

static int
pb_uint(struct sp_buf *b, unsigned field, uint64_t v)
{
	if (sp_varint_put_u64(b, (uint64_t)field << 3 | WIRE_VARINT))
		return -ENOMEM;
	return sp_varint_put_u64(b, v);
}

static int
pb_bytes(struct sp_buf *b, unsigned field, const void *p, size_t n)
{
	if (sp_varint_put_u64(b, (uint64_t)field << 3 | WIRE_BYTES) ||
	    sp_varint_put_u64(b, n))
		return -ENOMEM;
	return sp_buf_add(b, p, n);
}

/* Appends sub-message `m` as field `field` of `b`, then empties `m`. */
static int
pb_msg(struct sp_buf *b, unsigned field, struct sp_buf *m)
{
	int rc = pb_bytes(b, field, m->data, m->len);

	sp_buf_reset(m);
	return rc;
}

static int
pb_packed(struct sp_buf *b, unsigned field, const uint64_t *v, size_t n,
	  struct sp_buf *tmp)
{
	size_t i;

	sp_buf_reset(tmp);
	for (i = 0; i < n; i++)
		if (sp_varint_put_u64(tmp, v[i]))
			return -ENOMEM;
	return pb_msg(b, field, tmp);
}

int64_t
fold_pprof_str(struct fold_pprof *p, const char *s, size_t n)
{
	uint64_t *slot;
	bool inserted = false;

	slot = sp_htab_slot(p->strs, s, n, p->nstrs, &inserted);
	if (!slot)
		return -ENOMEM;
	if (inserted) {
		p->nstrs++;
		if (pb_bytes(&p->out, PROFILE_STRING, s, n))
			return -ENOMEM;
	}
	return (int64_t)*slot;
}

static int
value_type(struct fold_pprof *p, unsigned field, const char *type,
	   const char *unit)
{
	int64_t t = fold_pprof_str(p, type, strlen(type));
	int64_t u = fold_pprof_str(p, unit, strlen(unit));

	if (t < 0 || u < 0 || pb_uint(&p->msg, 1, (uint64_t)t) ||
	    pb_uint(&p->msg, 2, (uint64_t)u))
		return -ENOMEM;
	return pb_msg(&p->out, field, &p->msg);
}

int
fold_pprof_init(struct fold_pprof *p, const char *time_kind, uint64_t period_ns,
		uint64_t time_ns, uint64_t duration_ns)
{
	int rc = 0;

	memset(p, 0, sizeof(*p));
	p->strs = sp_htab_new();
	p->funcs = sp_htab_new();
	p->locs = sp_htab_new();
	p->maps = sp_htab_new();
	if (!p->strs || !p->funcs || !p->locs || !p->maps ||
	    fold_pprof_str(p, "", 0) < 0)
		return -ENOMEM;
	rc |= value_type(p, PROFILE_SAMPLE_TYPE, "samples", "count");
	if (time_kind) {
		rc |= value_type(p, PROFILE_SAMPLE_TYPE, time_kind,
				 "nanoseconds");
		rc |= value_type(p, PROFILE_PERIOD_TYPE, time_kind,
				 "nanoseconds");
		rc |= pb_uint(&p->out, PROFILE_PERIOD, period_ns);
	}
	if (time_ns)
		rc |= pb_uint(&p->out, PROFILE_TIME, time_ns);
	rc |= pb_uint(&p->out, PROFILE_DURATION, duration_ns);
	return rc ? -ENOMEM : 0;
}

void
fold_pprof_release(struct fold_pprof *p)
{
	sp_buf_release(&p->out);
	sp_buf_release(&p->msg);
	sp_buf_release(&p->sub);
	sp_buf_release(&p->fmsg);
	sp_htab_free(p->strs);
	sp_htab_free(p->funcs);
	sp_htab_free(p->locs);
	sp_htab_free(p->maps);
	free(p->mapv);
}

/*
 * The id of a function, made on first use (a function is its name and
 * file; the first start line met goes with it).
 */
static int64_t
function_id(struct fold_pprof *p, const char *name, const char *file,
	    int64_t start_line)
{
	int64_t n = fold_pprof_str(p, name, strlen(name));
	int64_t f = file ? fold_pprof_str(p, file, strlen(file)) : 0;
	uint64_t key[2], *slot;
	bool inserted = false;

	if (n < 0 || f < 0)
		return -ENOMEM;
	key[0] = (uint64_t)n;
	key[1] = (uint64_t)f;
	slot =
	    sp_htab_slot(p->funcs, key, sizeof(key), p->nfuncs + 1, &inserted);
	if (!slot)
		return -ENOMEM;
	if (!inserted)
		return (int64_t)*slot;
	p->nfuncs++;
	if (pb_uint(&p->fmsg, 1, *slot) || pb_uint(&p->fmsg, 2, key[0]) ||
	    pb_uint(&p->fmsg, 3, key[0]) || pb_uint(&p->fmsg, 4, key[1]) ||
	    (start_line > 0 && pb_uint(&p->fmsg, 5, (uint64_t)start_line)) ||
	    pb_msg(&p->out, PROFILE_FUNCTION, &p->fmsg))
		return -ENOMEM;
	return (int64_t)*slot;
}

int64_t
fold_pprof_mapping(struct fold_pprof *p, const void *key, size_t klen,
		   const struct fold_pprof_mapping *m)
{
	uint64_t *slot;
	bool inserted = false;

	slot = sp_htab_slot(p->maps, key, klen, p->nmaps + 1, &inserted);
	if (!slot)
		return -ENOMEM;
	if (!inserted)
		return (int64_t)*slot;
	if (SP_GROW(p->mapv, p->amapv, p->nmaps + 1))
		return -ENOMEM;
	p->mapv[p->nmaps++] = (struct fold_pprof_map){ .m = *m };
	return (int64_t)*slot;
}

/* Notes what a location's lines carry on its mapping. */
static void
map_note(struct fold_pprof *p, uint64_t mapping,
	 const struct fold_pprof_line *lines, size_t nlines)
{
	struct fold_pprof_map *m;
	size_t i;

	if (!mapping || mapping > p->nmaps)
		return;
	m = &p->mapv[mapping - 1];
	m->inline_frames |= nlines > 1;
	for (i = 0; i < nlines; i++) {
		m->functions |= lines[i].symbol;
		m->filenames |= lines[i].file != NULL;
		m->line_numbers |= lines[i].line > 0;
	}
}

static int
write_mapping(struct fold_pprof *p, uint64_t id, const struct fold_pprof_map *m)
{
	int64_t file = fold_pprof_str(p, m->m.path, strlen(m->m.path)), bid = 0;

	if (m->m.build_id)
		bid = fold_pprof_str(p, m->m.build_id, strlen(m->m.build_id));
	if (file < 0 || bid < 0 || pb_uint(&p->msg, 1, id) ||
	    pb_uint(&p->msg, 2, m->m.start) ||
	    pb_uint(&p->msg, 3, m->m.limit) ||
	    pb_uint(&p->msg, 4, m->m.file_offset) ||
	    pb_uint(&p->msg, 5, (uint64_t)file) ||
	    pb_uint(&p->msg, 6, (uint64_t)bid) ||
	    pb_uint(&p->msg, 7, m->functions) ||
	    pb_uint(&p->msg, 8, m->filenames) ||
	    pb_uint(&p->msg, 9, m->line_numbers) ||
	    pb_uint(&p->msg, 10, m->inline_frames) ||
	    pb_msg(&p->out, PROFILE_MAPPING, &p->msg))
		return -ENOMEM;
	return 0;
}

int64_t
fold_pprof_location(struct fold_pprof *p, const void *key, size_t klen,
		    uint64_t mapping, uint64_t address,
		    const struct fold_pprof_line *lines, size_t nlines)
{
	uint64_t *slot, id;
	bool inserted = false;
	int64_t fn;
	size_t i;

	if (sp_htab_get(p->locs, key, klen, &id))
		return (int64_t)id;
	for (i = 0; i < nlines; i++) {
		if ((fn = function_id(p, lines[i].name, lines[i].file,
				      lines[i].start_line)) < 0)
			return -ENOMEM;
		if (pb_uint(&p->sub, 1, (uint64_t)fn) ||
		    (lines[i].line &&
		     pb_uint(&p->sub, 2, (uint64_t)lines[i].line)) ||
		    pb_msg(&p->msg, 4, &p->sub))
			return -ENOMEM;
	}
	slot = sp_htab_slot(p->locs, key, klen, p->nlocs + 1, &inserted);
	if (!slot)
		return -ENOMEM;
	p->nlocs++;
	map_note(p, mapping, lines, nlines);
	/* the lines went first; field order does not matter */
	if (pb_uint(&p->msg, 1, *slot) ||
	    (mapping && pb_uint(&p->msg, 2, mapping)) ||
	    (address && pb_uint(&p->msg, 3, address)) ||
	    pb_msg(&p->out, PROFILE_LOCATION, &p->msg))
		return -ENOMEM;
	return (int64_t)*slot;
}

static int
label(struct fold_pprof *p, const char *key, const char *str, int64_t num)
{
	int64_t k = fold_pprof_str(p, key, strlen(key));
	int64_t s = str ? fold_pprof_str(p, str, strlen(str)) : 0;

	if (k < 0 || s < 0 || pb_uint(&p->sub, 1, (uint64_t)k) ||
	    (str && pb_uint(&p->sub, 2, (uint64_t)s)) ||
	    (!str && pb_uint(&p->sub, 3, (uint64_t)num)))
		return -ENOMEM;
	return pb_msg(&p->msg, 3, &p->sub);
}

int
fold_pprof_sample(struct fold_pprof *p, const uint64_t *locs, size_t nlocs,
		  const int64_t *values, size_t nvalues, const char *comm,
		  int64_t pid, int64_t tid)
{
	uint64_t v[2];
	size_t i;

	for (i = 0; i < nvalues && i < 2; i++)
		v[i] = (uint64_t)values[i];
	if ((comm && label(p, "thread", comm, 0)) ||
	    (pid >= 0 && label(p, "pid", NULL, pid)) ||
	    (tid >= 0 && label(p, "tid", NULL, tid)))
		return -ENOMEM;
	if (pb_packed(&p->msg, 1, locs, nlocs, &p->sub) ||
	    pb_packed(&p->msg, 2, v, i, &p->sub))
		return -ENOMEM;
	return pb_msg(&p->out, PROFILE_SAMPLE, &p->msg);
}

int
fold_pprof_emit(struct fold_pprof *p, FILE *out)
{
	unsigned char chunk[65536];
	z_stream z;
	uint64_t i;
	int zrc;

	for (i = 0; i < p->nmaps; i++)
		if (write_mapping(p, i + 1, &p->mapv[i]))
			return -ENOMEM;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = p->out.data;
	z.avail_in = (uInt)p->out.len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zrc = deflate(&z, Z_FINISH);
		if (zrc == Z_STREAM_ERROR)
			break;
		fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out);
	} while (zrc != Z_STREAM_END);
	deflateEnd(&z);
	return zrc == Z_STREAM_END && !ferror(out) ? 0 : -EIO;
}
