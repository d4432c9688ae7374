/*
 * read_ps_blocks.c: the cache of blocks of frame lines (read_ps_state.h).
 * Stacks repeat: after a sample header, the frame lines up to the blank line
 * are looked up whole, and a block seen before is folded from the cache
 * without reading its lines again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
/* Compiled in: each tool maps one shared library fewer as it starts. */
#define XXH_INLINE_ALL
#include <xxhash.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "common/grow.h"
#include "sp-fold/model/filter.h"
#include "sp-fold/read/read_ps_state.h"
#include "common/banned.h"

/* Whether every line of a block starts with a space or a tab. */
static bool
all_frame_lines(struct fold_span b)
{
	const char *p = b.p, *end = b.p + b.n;

	for (; p < end; p++) {
		if (*p != ' ' && *p != '\t')
			return false;
		p = memchr(p, '\n', (size_t)(end - p));
		if (!p)
			return false;
	}
	return true;
}

/*
 * The cache key of a block of frame lines: its 128-bit hash, not its
 * text, so a hit reads the block once (to hash it) instead of twice (to
 * hash and compare it), and the cache holds 16 bytes a block.  Two blocks
 * share a hash with a chance of about n^2 / 2^129: none in practice.
 */
static void
block_digest(struct fold_span key, uint8_t digest[16])
{
	XXH128_hash_t h = XXH3_128bits(key.p, key.n);

	memcpy(digest, &h.low64, 8);
	memcpy(digest + 8, &h.high64, 8);
}

/* Remembers the folded frames of the block in st->pend. */
int
fold_ps_cache_put(struct fold_ps *st, const char *frames, size_t n)
{
	uint32_t hdr[2] = { 0, (uint32_t)n };
	struct fold_span key = st->pend;
	const char *p = key.p, *end = key.p + key.n;
	size_t at = st->cdata.len;
	uint8_t digest[16];

	st->pend.p = NULL;
	if (st->unrecognized != st->pend_unrec || n > UINT32_MAX ||
	    !all_frame_lines(key))
		return 0;
	for (; p < end && (p = memchr(p, '\n', (size_t)(end - p))); p++)
		hdr[0]++;
	if (sp_buf_add(&st->cdata, hdr, sizeof(hdr)) ||
	    sp_buf_add(&st->cdata, frames, n))
		return -ENOMEM;
	st->cached_bytes += 16 + sizeof(hdr) + n;
	block_digest(key, digest);
	return sp_htab_put(st->cache[st->is_java], digest, sizeof(digest), at);
}

/* The first "\n\n" in [p, end), 16 bytes a step where SSE2 is there. */
static const char *
find_blank(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n');
	__m128i a, b;
	int m;

	while (end - p >= 17) {
		a = _mm_loadu_si128((const __m128i *)(const void *)p);
		b = _mm_loadu_si128((const __m128i *)(const void *)(p + 1));
		m = _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, nl),
						    _mm_cmpeq_epi8(b, nl)));
		if (m)
			return p + __builtin_ctz((unsigned)m);
		p += 16;
	}
#endif
	for (; end - p >= 2; p++)
		if (p[0] == '\n' && p[1] == '\n')
			return p;
	return NULL;
}

/*
 * The frame lines after a header: sets *blank to the blank line that
 * ends them.  Returns 1 when found, 0 when the buffer ends first.  The
 * lines are checked to be frame lines only when they are cached.
 */
int
fold_ps_block_end(const char *p, const char *end, const char **blank)
{
	const char *q;

	if (p < end && *p == '\n') {
		*blank = p;
		return 1;
	}
	q = find_blank(p, end);
	if (!q)
		return 0;
	*blank = q + 1;
	return 1;
}

/* Counts a sample of the current comm frame with cached frames. */
static int
count_hit(struct fold_ps *st, uint64_t at)
{
	struct fold_ps_hit h = { 0, at };
	uint64_t *slot;
	bool inserted = false;

	slot = sp_htab_slot(st->pnames, st->pname.data, st->pname.len, st->npn,
			    &inserted);
	if (!slot)
		return -ENOMEM;
	if (inserted) {
		if (SP_GROW(st->pnstr, st->apn, st->npn + 1))
			return -ENOMEM;
		if (!(st->pnstr[st->npn++] =
			  strndup((char *)st->pname.data, st->pname.len)))
			return -ENOMEM;
	}
	h.pname = *slot;
	slot = sp_htab_slot(st->agg, &h, sizeof(h), 0, NULL);
	if (!slot)
		return -ENOMEM;
	*slot += st->weight;
	return 0;
}

/* Adds the samples counted from the cache to the set. */
int
fold_ps_flush_hits(struct fold_ps *st)
{
	struct sp_buf *b = &st->stack;
	const struct fold_ps_hit *h;
	uint32_t hdr[2];
	const void *key;
	size_t pos = 0, len;
	uint64_t n;
	int rc = 0;

	while (!rc && sp_htab_next(st->agg, &pos, &key, &len, &n)) {
		h = key;
		memcpy(hdr, st->cdata.data + h->at, sizeof(hdr));
		sp_buf_reset(b);
		rc = sp_buf_adds(b, st->pnstr[h->pname]);
		if (!rc)
			rc = sp_buf_add(b, st->cdata.data + h->at + sizeof(hdr),
					hdr[1]);
		if (!rc && fold_filter_frames(&st->o->name.filter,
					      !st->o->name.no_comm,
					      (char *)b->data, &b->len))
			rc = fold_set_add(st->set, (char *)b->data, b->len, n);
	}
	return rc;
}

/*
 * After a header: folds the block at once when the same frame lines were
 * seen before, else marks them to be remembered.  Sets *next to the
 * first byte not consumed.  Returns 1 when the block was folded (the
 * caller then ends the sample), 0 when not, or -ENOMEM.
 */
int
fold_ps_cached_block(struct fold_ps *st, const char *p, const char *blank,
		     const char **next)
{
	struct fold_span key = { p, (size_t)(blank - p) };
	uint8_t digest[16];
	uint32_t hdr[2];
	uint64_t at;
	int rc;

	*next = p;
	block_digest(key, digest);
	if (!sp_htab_get(st->cache[st->is_java], digest, sizeof(digest), &at)) {
		if (st->cached_bytes < FOLD_PS_MAX_CACHE) {
			st->pend = key;
			st->pend_unrec = st->unrecognized;
		}
		return 0;
	}
	memcpy(hdr, st->cdata.data + at, sizeof(hdr));
	rc = count_hit(st, at);
	st->lineno += hdr[0] + 1;
	*next = blank + 1;
	return rc ? rc : 1;
}
