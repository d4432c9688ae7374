/*
 * pycode.c: code objects read from a CPython process and kept by address
 * and fingerprint (see pycode.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/htab.h"
#include "sp-record/python/pycode.h"
#include "sp-record/python/pydecode.h"
#include "common/banned.h"

/* The header bytes read of a code object, at most. */
#define CO_HDR_MAX REC_PYLAYOUT_SPAN_MAX

/*
 * The longest str object read at all, in characters, so that its size
 * in bytes (4 a character at most) fits 32 bits.
 */
#define STR_CHARS_MAX (UINT32_MAX / 4)

/* CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR (Include/code.h). */
#define RESUMABLE (0x20 | 0x80 | 0x200)

/* What identifies a code object besides its address. */
struct fingerprint {
	uint64_t name, qualname, filename, lines;
	uint64_t shape; /* pylayout.h's co_shape */
	int64_t firstlineno;
	uint64_t flags;
};

/* The key of a kept code (no padding: hashed as bytes). */
struct codekey {
	uint64_t addr;
	struct fingerprint fp;
};

/*
 * A reference count no live object has: a freed object's first word is
 * the allocator's link to the next free block (an address, or 0).
 */
#define REFS_MAX (1ULL << 40)

/* Lines looked up of one code object, kept: a sample's frames stop at
 * the few call sites of their functions. */
#define LINES_KEPT 4

struct code {
	struct rec_pycode pub; /* first: a rec_py_code is a struct code */
	struct fingerprint fp;
	uint8_t *lines;
	size_t nlines;
	bool cut;                /* lines is the start of a longer table */
	uint32_t at[LINES_KEPT]; /* offsets looked up, +1 (0: none) */
	int32_t line[LINES_KEPT];
	unsigned next; /* the entry to replace */
};

struct rec_pycode_cache {
	const struct rec_pylayout *l;
	uint64_t code_type;
	struct sp_htab *by_key; /* struct codekey -> index into codes */
	struct code **codes;
	size_t ncodes, alloc;
};

struct rec_pycode_cache *
rec_pycode_new(const struct rec_pylayout *l, uint64_t code_type)
{
	struct rec_pycode_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->l = l;
	c->code_type = code_type;
	c->by_key = sp_htab_new();
	if (!c->by_key) {
		free(c);
		return NULL;
	}
	return c;
}

static void
code_free(struct code *k)
{
	if (!k)
		return;
	free((char *)k->pub.name);
	free((char *)k->pub.filename);
	free(k->lines);
	free(k);
}

void
rec_pycode_free(struct rec_pycode_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->ncodes; i++)
		code_free(c->codes[i]);
	free(c->codes);
	sp_htab_free(c->by_key);
	free(c);
}

static uint64_t
u64_at(const uint8_t *p, uint32_t off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

/*
 * Reads `len` bytes at `off` in the object at `addr`: from `raw`, its
 * bytes copied at the sample, when they hold them, else through `mem`.
 */
static int
obj_bytes(struct rec_pymem *mem, uint64_t addr,
	  const struct rec_pycode_raw *raw, uint32_t off, void *buf, size_t len)
{
	if (raw && off <= raw->len && len <= raw->len - off) {
		memcpy(buf, raw->bytes + off, len);
		return 0;
	}
	return rec_pymem_read(mem, addr + off, buf, len);
}

/* Where a name or file name too long to keep was cut (pycode.h). */
#define CUT_MARK "[...]"

/*
 * Appends characters [from, from + n) of the str object of shape `s` at
 * `addr` (or `raw`) to `b` as UTF-8.
 */
static int
add_chars(struct rec_pymem *mem, uint64_t addr,
	  const struct rec_pycode_raw *raw,
	  const struct rec_pydecode_strshape *s, uint32_t from, uint32_t n,
	  struct sp_buf *b)
{
	uint8_t *data = malloc(n ? (size_t)n * s->kind : 1);
	int rc;

	if (!data)
		return -ENOMEM;
	rc = obj_bytes(mem, addr, raw, s->data_off + from * s->kind, data,
		       (size_t)n * s->kind);
	if (rc == 0)
		rc = rec_pydecode_str_utf8(data, (size_t)n * s->kind, s->kind,
					   b);
	free(data);
	return rc;
}

/*
 * Reads the str object at `addr` (or `raw`) as a new UTF-8 C string.
 * One longer than `max_chars` keeps its first and last characters, half
 * of `max_chars` each, joined by CUT_MARK: a file's base name and a
 * qualified name's last part are at the end.
 */
static int
read_str(struct rec_pymem *mem, const struct rec_pydecode_strlayout *sl,
	 uint64_t addr, const struct rec_pycode_raw *raw, uint32_t max_chars,
	 char **out)
{
	struct sp_buf b = SP_BUF_INIT;
	struct rec_pydecode_strshape s;
	uint8_t hdr[CO_HDR_MAX];
	uint32_t head;
	int rc;

	if (sl->ascii_size > sizeof(hdr))
		return -EBADMSG;
	rc = obj_bytes(mem, addr, raw, 0, hdr, sl->ascii_size);
	if (rc == 0)
		rc = rec_pydecode_str_shape(hdr, sl->ascii_size, sl,
					    STR_CHARS_MAX, &s);
	if (rc < 0)
		return rc;
	head = s.nchars > max_chars ? max_chars / 2 : s.nchars;
	rc = add_chars(mem, addr, raw, &s, 0, head, &b);
	if (rc == 0 && head < s.nchars) {
		rc = sp_buf_adds(&b, CUT_MARK);
		if (rc == 0)
			rc = add_chars(mem, addr, raw, &s,
				       s.nchars - (max_chars - head),
				       max_chars - head, &b);
	}
	if (rc == 0)
		rc = sp_buf_add(&b, "", 0); /* a C string even when empty */
	if (rc < 0) {
		sp_buf_release(&b);
		return rc;
	}
	*out = (char *)b.data; /* taken over from the buffer */
	return 0;
}

/* A line table's bytes object: ob_size at 16, ob_sval at 32. */
#define BYTES_HDR 32

/*
 * The size of the line table whose bytes object starts with `hdr`;
 * -EBADMSG, or -E2BIG for one too long to keep (it gives no lines).
 */
static int64_t
table_size(const uint8_t *hdr)
{
	int64_t n;

	memcpy(&n, hdr + 16, 8);
	if (n < 0)
		return -EBADMSG;
	return n > REC_PYCODE_LINES_MAX ? -E2BIG : n;
}

/*
 * Reads the line table, the bytes object at `addr` (or in `raw` when it
 * holds it whole).
 */
static int
read_lines(struct rec_pymem *mem, uint64_t addr,
	   const struct rec_pycode_raw *raw, struct code *k)
{
	uint8_t hdr[BYTES_HDR];
	int64_t n;
	int rc;

	if ((rc = obj_bytes(mem, addr, raw, 0, hdr, sizeof(hdr))) < 0)
		return rc;
	if ((n = table_size(hdr)) < 0)
		return n == -E2BIG ? 0 : (int)n;
	if (!(k->lines = malloc(n ? (size_t)n : 1)))
		return -ENOMEM;
	k->nlines = (size_t)n;
	return obj_bytes(mem, addr, raw, BYTES_HDR, k->lines, k->nlines);
}

/*
 * The code gone before its line table was read: keeps what `raw`, the
 * table's bytes object as copied at the sample, holds of it (all, or its
 * start: then lines past it are not known).  Returns 0 or -ENOMEM.
 */
static int
lines_at_sample(struct code *k, const struct rec_pycode_raw *raw)
{
	int64_t n = raw->len > BYTES_HDR ? table_size(raw->bytes) : 0;
	size_t have;

	if (n <= 0)
		return 0;
	have =
	    raw->len - BYTES_HDR < (size_t)n ? raw->len - BYTES_HDR : (size_t)n;
	if (!(k->lines = malloc(have)))
		return -ENOMEM;
	memcpy(k->lines, raw->bytes + BYTES_HDR, have);
	k->nlines = have;
	k->cut = have < (size_t)n;
	return 0;
}

static int
load(struct rec_pycode_cache *c, struct rec_pymem *mem, struct code *k,
     const struct rec_pycode_seed *seed)
{
	const struct rec_pylayout *l = c->l;
	char *s = NULL;
	int rc;

	rc =
	    read_str(mem, &l->str, k->fp.qualname ? k->fp.qualname : k->fp.name,
		     seed ? &seed->name : NULL, REC_PYCODE_NAME_MAX, &s);
	if (rc < 0)
		return rc;
	k->pub.name = s;
	rc = read_str(mem, &l->str, k->fp.filename, seed ? &seed->file : NULL,
		      REC_PYCODE_FILE_MAX, &s);
	if (rc < 0)
		return rc;
	k->pub.filename = s;
	return read_lines(mem, k->fp.lines, seed ? &seed->lines : NULL, k);
}

/* The fingerprint of code header `hdr`; false when not a code's. */
static bool
fingerprint_of(const struct rec_pycode_cache *c, const uint8_t *hdr,
	       struct fingerprint *fp)
{
	const struct rec_pylayout *l = c->l;
	int32_t v;

	if (u64_at(hdr, 8) != c->code_type) /* ob_type */
		return false;
	memset(fp, 0, sizeof(*fp));
	fp->name = u64_at(hdr, l->co_name);
	if (l->co_qualname != REC_PYLAYOUT_NONE)
		fp->qualname = u64_at(hdr, l->co_qualname);
	fp->filename = u64_at(hdr, l->co_filename);
	fp->lines = u64_at(hdr, l->co_lines);
	fp->shape = u64_at(hdr, l->co_shape);
	memcpy(&v, hdr + l->co_firstlineno, 4);
	fp->firstlineno = v;
	if (l->co_flags != REC_PYLAYOUT_NONE) {
		memcpy(&v, hdr + l->co_flags, 4);
		fp->flags = (uint32_t)v;
	}
	return true;
}

/*
 * Whether the code object at `addr` is still, now, the one of `fp`: then
 * the strings and line table it holds, read before, were its own.  A
 * freed object may keep its fields, not its reference count.
 */
static bool
still_there(struct rec_pycode_cache *c, struct rec_pymem *mem, uint64_t addr,
	    const struct fingerprint *fp)
{
	uint8_t hdr[CO_HDR_MAX];
	struct rec_pymem_block b = { addr, hdr, c->l->co_span, false };
	struct fingerprint now;
	uint64_t refs;

	if (rec_pymem_readv(mem, &b, 1) < 0 || !b.ok ||
	    !fingerprint_of(c, hdr, &now))
		return false;
	refs = u64_at(hdr, 0);
	return refs > 0 && refs < REFS_MAX && !memcmp(&now, fp, sizeof(now));
}

static void
key_of(uint64_t addr, const struct fingerprint *fp, struct codekey *key)
{
	memset(key, 0, sizeof(*key));
	key->addr = addr;
	key->fp = *fp;
}

/* Keeps the new code `k`. */
static int
keep(struct rec_pycode_cache *c, struct code *k)
{
	struct codekey key;

	if (SP_GROW(c->codes, c->alloc, c->ncodes + 1) < 0)
		return -ENOMEM;
	k->pub.id = (uint32_t)c->ncodes;
	key_of(k->pub.addr, &k->fp, &key);
	if (sp_htab_put(c->by_key, &key, sizeof(key), c->ncodes) < 0)
		return -ENOMEM;
	c->codes[c->ncodes++] = k;
	return 0;
}

/*
 * Makes the code at `addr`: its strings and line table from `seed` or
 * read now.  A code gone by the end of the reads is given up (-ESTALE)
 * when its strings were read now, or kept with what `seed` holds of its
 * line table when they came with it.
 */
static const struct rec_pycode *
make(struct rec_pycode_cache *c, struct rec_pymem *mem, uint64_t addr,
     const struct fingerprint *fp, const struct rec_pycode_seed *seed, int *err)
{
	struct code *k = calloc(1, sizeof(*k));

	if (!k) {
		*err = -ENOMEM;
		return NULL;
	}
	k->pub.addr = addr;
	k->pub.firstlineno = (int32_t)fp->firstlineno;
	k->pub.resumable = (fp->flags & RESUMABLE) != 0;
	k->fp = *fp;
	*err = load(c, mem, k, seed);
	if (*err == 0 && !still_there(c, mem, addr, fp)) {
		free(k->lines);
		k->lines = NULL;
		k->nlines = 0;
		*err = seed ? lines_at_sample(k, &seed->lines) : -ESTALE;
	}
	if (*err == 0)
		*err = keep(c, k);
	if (*err < 0) {
		code_free(k);
		return NULL;
	}
	return &k->pub;
}

const struct rec_pycode *
rec_pycode_get(struct rec_pycode_cache *c, struct rec_pymem *mem, uint64_t addr,
	       int *err)
{
	uint8_t hdr[CO_HDR_MAX];

	if (c->l->co_span > sizeof(hdr)) {
		*err = -EBADMSG;
		return NULL;
	}
	*err = rec_pymem_read(mem, addr, hdr, c->l->co_span);
	if (*err < 0)
		return NULL;
	return rec_pycode_from_header(c, mem, addr, hdr, err);
}

/* The kept code of `addr` and `fp`, or NULL. */
static const struct rec_pycode *
kept(const struct rec_pycode_cache *c, uint64_t addr,
     const struct fingerprint *fp)
{
	struct codekey key;
	uint64_t idx;

	key_of(addr, fp, &key);
	return sp_htab_get(c->by_key, &key, sizeof(key), &idx)
		   ? &c->codes[idx]->pub
		   : NULL;
}

const struct rec_pycode *
rec_pycode_from_header(struct rec_pycode_cache *c, struct rec_pymem *mem,
		       uint64_t addr, const uint8_t *hdr, int *err)
{
	const struct rec_pycode *code;
	struct fingerprint fp;

	if (!fingerprint_of(c, hdr, &fp)) {
		*err = -EBADMSG;
		return NULL;
	}
	if ((code = kept(c, addr, &fp)))
		return code;
	return make(c, mem, addr, &fp, NULL, err);
}

int
rec_pycode_seed(struct rec_pycode_cache *c, struct rec_pymem *mem,
		uint64_t addr, const uint8_t *hdr,
		const struct rec_pycode_seed *seed)
{
	struct fingerprint fp;
	int err = 0;

	if (!fingerprint_of(c, hdr, &fp))
		return -EBADMSG;
	if (!kept(c, addr, &fp))
		make(c, mem, addr, &fp, seed, &err);
	return err;
}

size_t
rec_pycode_count(const struct rec_pycode_cache *c)
{
	return c->ncodes;
}

int32_t
rec_pycode_line(struct rec_pycode_cache *c, const struct rec_pycode *code,
		int64_t offset)
{
	struct code *k = c->codes[code->id];
	unsigned i;

	if (offset < 0)
		return code->firstlineno;
	if (offset >= UINT32_MAX || !k->lines)
		return -1;
	for (i = 0; i < LINES_KEPT; i++)
		if (k->at[i] == (uint32_t)offset + 1)
			return k->line[i];
	i = k->next;
	k->next = (k->next + 1) % LINES_KEPT;
	k->at[i] = (uint32_t)offset + 1;
	k->line[i] = (k->cut ? rec_pydecode_line_cut : rec_pydecode_line)(
	    c->l->lines, k->lines, k->nlines, code->firstlineno,
	    (uint32_t)offset);
	return k->line[i];
}
