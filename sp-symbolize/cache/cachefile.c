/*
 * cachefile.c: sets of resolved frames and their cache file codec (see
 * cachefile.h).  The decoder is written for hostile bytes: every length
 * is checked against the end before it is used, and a first pass checks
 * the whole file before the second one allocates anything.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/htab.h"
#include "common/records.h"
#include "common/varint.h"
#include "sp-symbolize/cache/cachefile.h"
#include "common/banned.h"

static const uint8_t magic[8] = { 'S', 'P', 'S', 'Y',
				  'M', 'C', 0,   SYM_CACHEFILE_VERSION };
#define HEAD_LEN 24 /* magic, context and the origin's hash */
#define SUM_LEN 8
#define ALL_FLAGS ((1u << (sizeof(SP_SYM_LETTERS) - 1)) - 1)

struct sym_cset {
	struct sp_htab *idx; /* key -> index into res */
	uint64_t *keys;
	struct sym_res *res;
	size_t n, alloc, kalloc;
};

struct sym_cset *
sym_cset_new(void)
{
	struct sym_cset *s = calloc(1, sizeof(*s));

	if (s && !(s->idx = sp_htab_new())) {
		free(s);
		return NULL;
	}
	return s;
}

void
sym_cset_free(struct sym_cset *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		sym_res_release(&s->res[i]);
	free(s->res);
	free(s->keys);
	sp_htab_free(s->idx);
	free(s);
}

size_t
sym_cset_count(const struct sym_cset *s)
{
	return s->n;
}

const struct sym_res *
sym_cset_find(const struct sym_cset *s, uint64_t key)
{
	uint64_t i;

	return sp_htab_get(s->idx, &key, sizeof(key), &i) ? &s->res[i] : NULL;
}

/* A new empty result under `key`, or NULL when present or out of memory. */
static struct sym_res *
slot(struct sym_cset *s, uint64_t key, bool *present)
{
	bool inserted = false;
	uint64_t *v;

	*present = false;
	if (SP_GROW(s->res, s->alloc, s->n + 1) ||
	    SP_GROW(s->keys, s->kalloc, s->n + 1))
		return NULL;
	v = sp_htab_slot(s->idx, &key, sizeof(key), s->n, &inserted);
	if (!v || !inserted) {
		*present = v != NULL;
		return NULL;
	}
	s->keys[s->n] = key;
	s->res[s->n] = (struct sym_res)SYM_RES_INIT;
	return &s->res[s->n++];
}

int
sym_cset_add(struct sym_cset *s, uint64_t key, const struct sym_res *src,
	     size_t from)
{
	struct sym_res part = { src->v + from, src->n - from, 0 };
	bool present;
	struct sym_res *r = slot(s, key, &present);

	if (!r)
		return present ? 0 : -ENOMEM;
	return sym_res_append(r, &part) ? -ENOMEM : 0;
}

void
sym_corigin_release(struct sym_corigin *o)
{
	free(o->path);
	*o = (struct sym_corigin)SYM_CORIGIN_INIT;
}

bool
sym_filestat_same(const struct sym_filestat *a, const struct sym_filestat *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns &&
	       a->uid == b->uid;
}

bool
sym_corigin_knows(const struct sym_corigin *o, const struct sym_filestat *st)
{
	size_t i;

	for (i = 0; i < o->nids; i++)
		if (sym_filestat_same(&o->ids[i], st))
			return true;
	return false;
}

bool
sym_corigin_note(struct sym_corigin *o, const struct sym_filestat *st)
{
	struct sym_filestat keep = *st;
	size_t i;

	if (o->nids > 0 && sym_filestat_same(&o->ids[0], st))
		return false;
	for (i = 0; i < o->nids && !sym_filestat_same(&o->ids[i], st); i++)
		;
	if (i == o->nids && o->nids < SYM_CACHEFILE_MAX_IDS)
		o->nids++;
	if (i == SYM_CACHEFILE_MAX_IDS)
		i--;
	memmove(&o->ids[1], &o->ids[0], i * sizeof(o->ids[0]));
	o->ids[0] = keep;
	return true;
}

int
sym_corigin_set_path(struct sym_corigin *o, const char *path)
{
	char *copy = strdup(path);

	if (!copy)
		return -ENOMEM;
	free(o->path);
	o->path = copy;
	return 0;
}

static void
put_le64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t
get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int
put_str(struct sp_buf *b, const char *s, bool nullable)
{
	size_t n = s ? strlen(s) : 0;

	if (!nullable)
		return sp_varint_put_u64(b, n) || sp_buf_add(b, s, n);
	return sp_varint_put_u64(b, s ? n + 1 : 0) || sp_buf_add(b, s, n);
}

static int
put_entry(struct sp_buf *b, const struct sym_entry *e)
{
	return sp_varint_put_u64(b, e->flags) ||
	       sp_varint_put_u64(b, e->has_offset ? e->offset + 1 : 0) ||
	       sp_varint_put_u64(b, e->line) ||
	       sp_varint_put_u64(b, e->start_line) ||
	       put_str(b, e->name, false) || put_str(b, e->file, true);
}

static int
put_stat(struct sp_buf *b, const struct sym_filestat *st)
{
	return sp_varint_put_u64(b, st->dev) || sp_varint_put_u64(b, st->ino) ||
	       sp_varint_put_u64(b, st->size) ||
	       sp_varint_put_u64(b, (uint64_t)st->mtime_ns) ||
	       sp_varint_put_u64(b, (uint64_t)st->ctime_ns) ||
	       sp_varint_put_u64(b, st->uid);
}

/* The origin's part after the header: PATHLEN PATH NIDS identities. */
static int
put_origin(struct sp_buf *b, const struct sym_corigin *o)
{
	size_t i;
	int bad;

	bad = put_str(b, o ? o->path : NULL, true) ||
	      sp_varint_put_u64(b, o ? o->nids : 0);
	for (i = 0; !bad && o && i < o->nids; i++)
		bad = put_stat(b, &o->ids[i]);
	return bad;
}

int
sym_cset_encode(const struct sym_cset *s, uint64_t ctx,
		const struct sym_corigin *o, struct sp_buf *out)
{
	size_t start = out->len, i, j;
	uint8_t word[8];
	int bad;

	put_le64(word, ctx);
	bad = sp_buf_add(out, magic, sizeof(magic)) || sp_buf_add(out, word, 8);
	put_le64(word, o ? o->hash : 0);
	bad = bad || sp_buf_add(out, word, 8) || put_origin(out, o) ||
	      sp_varint_put_u64(out, s->n);
	for (i = 0; !bad && i < s->n; i++) {
		bad = sp_varint_put_u64(out, s->keys[i]) ||
		      sp_varint_put_u64(out, s->res[i].n);
		for (j = 0; !bad && j < s->res[i].n; j++)
			bad = put_entry(out, &s->res[i].v[j]);
	}
	if (!bad) {
		put_le64(word, sp_hash(out->data + start, out->len - start));
		bad = sp_buf_add(out, word, 8);
	}
	return bad ? -ENOMEM : 0;
}

/* A bounded reader over the body of a file. */
struct rd {
	const uint8_t *p, *end;
};

static bool
get_u64(struct rd *r, uint64_t *v)
{
	return sp_varint_get_u64(&r->p, r->end, v) == 0;
}

/* A string without NUL bytes; *s points into the input, not terminated. */
static bool
get_str(struct rd *r, bool nullable, const char **s, size_t *len, bool *null)
{
	uint64_t n;

	if (!get_u64(r, &n))
		return false;
	*null = nullable && n == 0;
	if (nullable && n > 0)
		n--;
	if (n > (uint64_t)(r->end - r->p) || memchr(r->p, '\0', n))
		return false;
	*s = (const char *)r->p;
	*len = (size_t)n;
	r->p += n;
	return true;
}

/* One frame, checked; appended to `out` when it is not NULL. */
static int
get_entry(struct rd *r, struct sym_res *out)
{
	uint64_t flags, off, line, start;
	const char *name, *file;
	size_t nlen, flen;
	bool nonull, nofile;
	struct sym_entry *e;
	char *copy;

	if (!get_u64(r, &flags) || (flags & ~(uint64_t)ALL_FLAGS) ||
	    !get_u64(r, &off) || !get_u64(r, &line) || line > UINT32_MAX ||
	    !get_u64(r, &start) || start > UINT32_MAX ||
	    !get_str(r, false, &name, &nlen, &nonull) ||
	    !get_str(r, true, &file, &flen, &nofile))
		return -EBADMSG;
	if (!out)
		return 0;
	copy = strndup(name, nlen);
	e = copy ? sym_res_add(out, copy) : NULL;
	free(copy);
	if (!e)
		return -ENOMEM;
	e->flags = (unsigned)flags;
	e->has_offset = off != 0;
	e->offset = off - (off != 0);
	e->line = (unsigned)line;
	e->start_line = (unsigned)start;
	if (!nofile && !(e->file = strndup(file, flen)))
		return -ENOMEM;
	return 0;
}

/* One key and its frames; stored in `s` when it is not NULL. */
static int
get_result(struct rd *r, struct sym_cset *s)
{
	uint64_t key, n, i;
	struct sym_res tmp = SYM_RES_INIT, *dst = s ? &tmp : NULL;
	bool present;
	int rc = 0;

	if (!get_u64(r, &key) || !get_u64(r, &n) ||
	    n > SYM_CACHEFILE_MAX_FRAMES)
		return -EBADMSG;
	for (i = 0; i < n && rc == 0; i++)
		rc = get_entry(r, dst);
	if (s && rc == 0) {
		struct sym_res *slotp = slot(s, key, &present);

		if (slotp)
			*slotp = tmp;
		else if (!present)
			rc = -ENOMEM;
		if (slotp)
			return 0;
	}
	sym_res_release(&tmp);
	return rc;
}

static bool
get_stat(struct rd *r, struct sym_filestat *st)
{
	uint64_t mt, ct, uid;

	if (!get_u64(r, &st->dev) || !get_u64(r, &st->ino) ||
	    !get_u64(r, &st->size) || !get_u64(r, &mt) || !get_u64(r, &ct) ||
	    !get_u64(r, &uid) || uid > UINT32_MAX)
		return false;
	st->mtime_ns = (int64_t)mt;
	st->ctime_ns = (int64_t)ct;
	st->uid = (uint32_t)uid;
	return true;
}

/*
 * The origin's path and identities; into `o` when it is not NULL (its
 * path then allocated, which may fail: -ENOMEM).
 */
static int
get_origin(struct rd *r, struct sym_corigin *o)
{
	struct sym_filestat st;
	const char *path;
	size_t len;
	uint64_t n, i;
	bool null;

	if (!get_str(r, true, &path, &len, &null) ||
	    len > SYM_CACHEFILE_MAX_PATH || !get_u64(r, &n) ||
	    n > SYM_CACHEFILE_MAX_IDS)
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		if (!get_stat(r, &st))
			return -EBADMSG;
		if (o)
			o->ids[o->nids++] = st;
	}
	if (o && !null && !(o->path = strndup(path, len)))
		return -ENOMEM;
	return 0;
}

/* Walks the body: checks it when `s` is NULL, else adds it to `s`. */
static int
walk(struct rd r, struct sym_cset *s)
{
	uint64_t count, i;
	int rc = get_origin(&r, NULL);

	if (rc)
		return rc;
	if (!get_u64(&r, &count) || count > (uint64_t)(r.end - r.p))
		return -EBADMSG;
	for (i = 0; i < count && rc == 0; i++)
		rc = get_result(&r, s);
	return rc == 0 && r.p != r.end ? -EBADMSG : rc;
}

/* Checks the whole file p[0..len) for `ctx`; 0, -EBADMSG or -ESTALE. */
static int
check(const uint8_t *p, size_t len, uint64_t ctx, struct rd *body)
{
	int rc;

	if (len < HEAD_LEN + SUM_LEN || memcmp(p, magic, sizeof(magic)) ||
	    get_le64(p + len - SUM_LEN) != sp_hash(p, len - SUM_LEN))
		return -EBADMSG;
	body->p = p + HEAD_LEN;
	body->end = p + len - SUM_LEN;
	rc = walk(*body, NULL);
	if (rc == 0 && get_le64(p + sizeof(magic)) != ctx)
		return -ESTALE;
	return rc;
}

int
sym_cset_origin(const uint8_t *p, size_t len, uint64_t ctx,
		struct sym_corigin *o)
{
	struct rd body;
	struct sym_corigin got = SYM_CORIGIN_INIT;
	int rc = check(p, len, ctx, &body);

	sym_corigin_release(o);
	if (rc)
		return rc;
	/* The origin comes first: get_origin() alone reads it. */
	got.hash = get_le64(p + 16);
	rc = get_origin(&body, &got);
	if (rc)
		sym_corigin_release(&got);
	else
		*o = got;
	return rc;
}

int
sym_cset_decode(struct sym_cset *s, const uint8_t *p, size_t len, uint64_t ctx)
{
	struct rd body;
	int rc = check(p, len, ctx, &body);

	return rc ? rc : walk(body, s);
}
