/*
 * perfscript.c: folds the text `perf script` prints, with the rules of
 * FlameGraph's stackcollapse-perf.pl so the output is the same line for
 * line: the comm (and pid/tid) as the root frame, offsets stripped,
 * [unknown] frames named after their module, names tidied, the _[k] _[j]
 * _[i] annotations, and only the first event type unless --event-filter
 * names one.  Its patterns are matched by hand, with the backtracking
 * the original regular expressions would do, because this is the hot path.
 */
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <xxhash.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "common/grow.h"
#include "common/buf.h"
#include "common/htab.h"
#include "common/records.h"
#include "common/spool.h"
#include "sp-fold/filter.h"
#include "sp-fold/perfscript.h"
#include "sp-fold/psmatch.h"
#include "common/banned.h"

#define MAX_WARN 10
/*
 * The cache of folded blocks stops growing here, so that input whose
 * blocks rarely repeat (every leaf address different) cannot make memory
 * grow with the input; such blocks are folded line by line.
 */
#define MAX_CACHE ((size_t)256 << 20)

/* Samples of a comm frame whose frame lines were in the cache. */
struct hit {
	uint64_t pname;
	uint64_t at; /* cdata offset */
};

struct ps {
	const struct fold_opts *o;
	struct fold_set *set;
	const char *name;
	uint64_t lineno;
	bool have_pname, is_java;
	uint64_t weight; /* of the current sample */
	struct sp_buf pname;
	struct sp_buf frames; /* names of the current sample's lines */
	size_t *marks;        /* per frame line: end offset in frames */
	size_t nmarks, amarks, acounts;
	unsigned *counts;         /* per frame line: number of names */
	struct sp_buf stack;      /* the folded stack being built */
	struct sp_buf tmp;        /* one name being tidied */
	char *event;              /* the event filter, owned */
	struct sp_htab *cache[2]; /* frame lines -> cdata offset, by is_java */
	struct sp_buf cdata; /* cached: u32 lines, u32 len, folded frames */
	struct span pend;    /* frame lines of the block being cached */
	size_t cached_bytes; /* keys and data, up to MAX_CACHE */
	uint64_t pend_unrec;
	struct sp_htab *pnames; /* comm frame -> index in pnstr */
	char **pnstr;
	size_t npn, apn;
	struct sp_htab *agg; /* struct hit -> samples from the cache */
	bool event_defaulted, event_warned;
	uint64_t unrecognized;
	/* --srcline: names of the current frame line waiting for sources */
	struct pending {
		size_t off, len; /* in qbuf */
		bool wants_src;
	} * q;
	size_t nq, aq, qhead;
	unsigned qcount; /* names of the line in st->frames so far */
	struct sp_buf qbuf;
};

static int
unknown_name(struct sp_buf *b, const struct ps *st, struct span pc,
	     struct span mod)
{
	const char *base = "unknown", *slash;
	size_t n = 7;

	if (!fold_ps_span_eq(mod, "[unknown]")) {
		slash = memrchr(mod.p, '/', mod.n);
		base = slash ? slash + 1 : mod.p;
		n = (size_t)(mod.p + mod.n - base);
	}
	if (sp_buf_addc(b, '[') || sp_buf_add(b, base, n))
		return -ENOMEM;
	if (st->o->addrs && (sp_buf_adds(b, " <") ||
			     sp_buf_add(b, pc.p, pc.n) || sp_buf_addc(b, '>')))
		return -ENOMEM;
	return sp_buf_addc(b, ']');
}

static const char *
annotation(const struct ps *st, const struct sp_buf *b, unsigned index,
	   struct span mod)
{
	const char *s = (const char *)b->data;

	if (index > 0 || (st->o->inl && fold_ps_span_eq(mod, "inlined")))
		return fold_ps_contains(s, b->len, "_[i]") ? NULL : "_[i]";
	if (st->o->kernel && fold_ps_is_kernel_module(mod))
		return "_[k]";
	if (st->o->jit && fold_ps_is_jit_module(mod))
		return fold_ps_contains(s, b->len, "_[j]") ? NULL : "_[j]";
	return NULL;
}

/* Makes one name of a frame line in st->tmp: tidied and annotated. */
static int
make_name(struct ps *st, struct span part, struct span pc, struct span mod,
	  unsigned index)
{
	struct sp_buf *b = &st->tmp;
	const char *ann;
	int rc;

	sp_buf_reset(b);
	if (fold_ps_span_eq(part, "[unknown]"))
		rc = unknown_name(b, st, pc, mod);
	else
		rc = sp_buf_add(b, part.p, part.n);
	if (!rc) {
		fold_ps_tidy(b);
		if (st->is_java && b->len && b->data[0] == 'L' &&
		    memchr(b->data, '/', b->len))
			sp_buf_consume(b, 1);
		ann = annotation(st, b, index, mod);
		if (ann)
			rc = sp_buf_adds(b, ann);
	}
	return rc;
}

/* Appends a name to st->frames, the index-th of its frame line. */
static int
append_name(struct ps *st, const void *name, size_t n, unsigned index)
{
	if (index > 0 && sp_buf_addc(&st->frames, ';'))
		return -ENOMEM;
	return sp_buf_add(&st->frames, name, n);
}

/* Appends one name of a frame line to st->frames. */
static int
add_name(struct ps *st, struct span part, struct span pc, struct span mod,
	 unsigned index)
{
	int rc = make_name(st, part, pc, mod, index);

	return rc ? rc : append_name(st, st->tmp.data, st->tmp.len, index);
}

static int
push_mark(struct ps *st, unsigned count)
{
	if (SP_GROW(st->marks, st->amarks, st->nmarks + 1) ||
	    SP_GROW(st->counts, st->acounts, st->nmarks + 1))
		return -ENOMEM;
	st->marks[st->nmarks] = st->frames.len;
	st->counts[st->nmarks++] = count;
	return 0;
}

/*
 * --srcline (perf script -F+srcline): each name but an unknown one in an
 * unknown module takes the line that follows as its source, so names wait
 * in a queue until their lines come.
 */
static int
queue_name(struct ps *st, struct span part, struct span pc, struct span mod,
	   unsigned index)
{
	bool unknown = fold_ps_span_eq(part, "[unknown]") &&
		       fold_ps_span_eq(mod, "[unknown]");

	if (make_name(st, part, pc, mod, index) ||
	    SP_GROW(st->q, st->aq, st->nq + 1))
		return -ENOMEM;
	st->q[st->nq].off = st->qbuf.len;
	st->q[st->nq].len = st->tmp.len;
	st->q[st->nq++].wants_src = !unknown;
	return sp_buf_add(&st->qbuf, st->tmp.data, st->tmp.len);
}

/* Moves the names that need no more lines to st->frames. */
static int
flush_queue(struct ps *st)
{
	unsigned count;

	while (st->qhead < st->nq && !st->q[st->qhead].wants_src) {
		if (append_name(st, st->qbuf.data + st->q[st->qhead].off,
				st->q[st->qhead].len, st->qcount++))
			return -ENOMEM;
		st->qhead++;
	}
	if (st->qhead < st->nq)
		return 0;
	count = st->qcount;
	st->nq = st->qhead = 0;
	st->qcount = 0;
	sp_buf_reset(&st->qbuf);
	return push_mark(st, count);
}

/*
 * The source line of the first waiting name: its [...] parts and outer
 * blanks removed, as the script does, then ":" and it appended.
 */
static int
src_line(struct ps *st, const char *s, size_t n)
{
	const struct pending *q = &st->q[st->qhead];
	struct sp_buf *b = &st->tmp;
	size_t i, from, len, k;
	const char *close;

	sp_buf_reset(b);
	if (sp_buf_add(b, st->qbuf.data + q->off, q->len) ||
	    sp_buf_addc(b, ':'))
		return -ENOMEM;
	from = b->len;
	for (i = 0; i < n; i++) {
		close = s[i] == '[' ? memchr(s + i, ']', n - i) : NULL;
		if (close)
			i = (size_t)(close - s);
		else if (sp_buf_addc(b, (uint8_t)s[i]))
			return -ENOMEM;
	}
	for (k = from; k < b->len && is_space((char)b->data[k]); k++)
		;
	memmove(b->data + from, b->data + k, b->len - k);
	b->len -= k - from;
	for (len = b->len; len > from && is_space((char)b->data[len - 1]);)
		len--;
	b->len = len == from ? from - 1 : len; /* no ':' for an empty line */
	if (append_name(st, b->data, b->len, st->qcount++))
		return -ENOMEM;
	st->qhead++;
	return flush_queue(st);
}

/* One frame line: its names, split at "->" for inlined functions. */
static int
frame_line(struct ps *st, struct span pc, struct span func, struct span mod)
{
	const char *p, *end, *arrow;
	unsigned count = 0;
	size_t i;
	int rc = 0;

	/* a "+0x1a" offset at the end is stripped */
	for (i = func.n; i > 0 && is_lhex(func.p[i - 1]); i--)
		;
	if (i < func.n && i >= 3 && !memcmp(func.p + i - 3, "+0x", 3))
		func.n = i - 3;
	if (func.n && func.p[0] == '(')
		return 0;
	end = func.p + func.n;
	/* split drops trailing empty fields */
	while (end - func.p >= 2 && !memcmp(end - 2, "->", 2))
		end -= 2;
	for (p = func.p; !rc && p < end; p = arrow + 2) {
		arrow = memmem(p, (size_t)(end - p), "->", 2);
		if (!arrow)
			arrow = end;
		if (st->o->srcline)
			rc = queue_name(st,
					(struct span){ p, (size_t)(arrow - p) },
					pc, mod, count++);
		else
			rc = add_name(st,
				      (struct span){ p, (size_t)(arrow - p) },
				      pc, mod, count++);
		if (arrow == end)
			break;
	}
	if (st->o->srcline)
		return rc ? rc : flush_queue(st);
	return rc ? rc : push_mark(st, count);
}

/* The count of a sample: the period perf printed, as stackcollapse-perf.pl
 * counts it, or 1 when there is none, it is 0 or --weight samples. */
static uint64_t
sample_weight(const struct ps *st, struct span period)
{
	uint64_t v = 0;
	size_t i;

	if (st->o->weight_samples)
		return 1;
	for (i = 0; i < period.n; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return UINT64_MAX;
		v = v * 10 + (uint64_t)(period.p[i] - '0');
	}
	return v ? v : 1;
}

/* Whether the sample of this header is filtered out by its event; sets
 * the sample's weight. */
static bool
event_skipped(struct ps *st, const char *s, size_t n)
{
	struct span ev, period;

	st->weight = 1;
	if (!fold_ps_match_event(s, n, &ev, &period))
		return false;
	st->weight = sample_weight(st, period);
	if (!st->event) {
		st->event = strndup(ev.p, ev.n);
		st->event_defaulted = true;
		return false;
	}
	if (fold_ps_span_eq(ev, st->event))
		return false;
	if (st->event_defaulted && !st->event_warned) {
		struct sp_buf b = SP_BUF_INIT;

		if (!sp_escape(&b, st->event, strlen(st->event)) &&
		    !sp_buf_addc(&b, 0))
			warnx("filtering for events of type: %s",
			      (char *)b.data);
		sp_buf_release(&b);
		st->event_warned = true;
	}
	return true;
}

static int
header_line(struct ps *st, const char *s, size_t n, struct span comm,
	    struct span pid, struct span tid)
{
	struct sp_buf *b = &st->pname;
	size_t i;
	int rc = 0;

	if (event_skipped(st, s, n))
		return 0;
	if (!tid.n || fold_ps_span_eq(tid, "0")) {
		tid = pid;
		pid = (struct span){ "?", 1 };
	}
	sp_buf_reset(b);
	rc |= sp_buf_add(b, comm.p, comm.n);
	if (st->o->tid || st->o->pid) {
		rc |= sp_buf_addc(b, '-');
		rc |= sp_buf_add(b, pid.p, pid.n);
	}
	if (st->o->tid) {
		rc |= sp_buf_addc(b, '/');
		rc |= sp_buf_add(b, tid.p, tid.n);
	}
	for (i = 0; i < b->len; i++)
		if (b->data[i] == ' ')
			b->data[i] = '_';
	st->have_pname = true;
	/* As the script: the name with its -PID/TID suffix starts with java. */
	st->is_java = b->len >= 4 && !memcmp(b->data, "java", 4);
	return rc ? -ENOMEM : 0;
}

/* A blank line ends a sample: root first, the comm, then the frames. */
/* Whether every line of a block starts with a space or a tab. */
static bool
all_frame_lines(struct span b)
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
block_digest(struct span key, uint8_t digest[16])
{
	XXH128_hash_t h = XXH3_128bits(key.p, key.n);

	memcpy(digest, &h.low64, 8);
	memcpy(digest + 8, &h.high64, 8);
}

/* Remembers the folded frames of the block in st->pend. */
static int
cache_put(struct ps *st, const char *frames, size_t n)
{
	uint32_t hdr[2] = { 0, (uint32_t)n };
	struct span key = st->pend;
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

static int
add_stack(struct ps *st, struct sp_buf *b)
{
	if (!fold_filter_frames(st->o, (char *)b->data, &b->len))
		return 0;
	return fold_set_add(st->set, (char *)b->data, b->len, st->weight);
}

static void
sample_done(struct ps *st)
{
	sp_buf_reset(&st->frames);
	sp_buf_reset(&st->qbuf);
	st->nq = st->qhead = 0;
	st->qcount = 0;
	st->nmarks = 0;
	st->have_pname = false;
}

/* A blank line ends a sample: root first, the comm, then the frames. */
static int
end_sample(struct ps *st)
{
	struct sp_buf *b = &st->stack;
	size_t i, from;
	int rc = 0;

	if (!st->have_pname)
		return 0;
	sp_buf_reset(b);
	rc |= sp_buf_add(b, st->pname.data, st->pname.len);
	for (i = st->nmarks; i-- > 0;) {
		if (!st->counts[i])
			continue;
		from = i ? st->marks[i - 1] : 0;
		rc |= sp_buf_addc(b, ';');
		rc |=
		    sp_buf_add(b, st->frames.data + from, st->marks[i] - from);
	}
	if (!rc && st->pend.p)
		rc = cache_put(st, (char *)b->data + st->pname.len,
			       b->len - st->pname.len);
	if (!rc)
		rc = add_stack(st, b);
	sample_done(st);
	return rc ? -ENOMEM : 0;
}

/* Names an unrecognized line, escaped: input never reaches a terminal raw. */
static void
warn_line(const struct ps *st, const char *s, size_t n)
{
	struct sp_buf b = SP_BUF_INIT;

	if (sp_escape(&b, s, n > 80 ? 80 : n) || sp_buf_addc(&b, 0))
		warnx("%sline %llu: unrecognized line", st->name,
		      (unsigned long long)st->lineno);
	else
		warnx("%sline %llu: unrecognized line: %s", st->name,
		      (unsigned long long)st->lineno, (char *)b.data);
	sp_buf_release(&b);
}

static int
one_line(struct ps *st, const char *s, size_t n)
{
	struct span a, b, c;

	/* --srcline: the script takes the next line as it is, whatever */
	if (st->qhead < st->nq)
		return src_line(st, s, n);
	if (n && s[0] == '#')
		return 0;
	if (!n)
		return end_sample(st);
	if (fold_ps_match_header(s, n, &a, &b, &c))
		return header_line(st, s, n, a, b, c);
	if (fold_ps_match_frame(s, n, &a, &b, &c))
		return st->have_pname ? frame_line(st, a, b, c) : 0;
	if (st->unrecognized++ < MAX_WARN)
		warn_line(st, s, n);
	return 0;
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
static int
block_end(const char *p, const char *end, const char **blank)
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
count_hit(struct ps *st, uint64_t at)
{
	struct hit h = { 0, at };
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
static int
flush_hits(struct ps *st)
{
	struct sp_buf *b = &st->stack;
	const struct hit *h;
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
		if (!rc && fold_filter_frames(st->o, (char *)b->data, &b->len))
			rc = fold_set_add(st->set, (char *)b->data, b->len, n);
	}
	return rc;
}

/*
 * After a header: folds the block at once when the same frame lines were
 * seen before, else marks them to be remembered.  Sets *next to the
 * first byte not consumed.
 */
static int
cached_block(struct ps *st, const char *p, const char *blank, const char **next)
{
	struct span key = { p, (size_t)(blank - p) };
	uint8_t digest[16];
	uint32_t hdr[2];
	uint64_t at;
	int rc;

	*next = p;
	block_digest(key, digest);
	if (!sp_htab_get(st->cache[st->is_java], digest, sizeof(digest), &at)) {
		if (st->cached_bytes < MAX_CACHE) {
			st->pend = key;
			st->pend_unrec = st->unrecognized;
		}
		return 0;
	}
	memcpy(hdr, st->cdata.data + at, sizeof(hdr));
	rc = count_hit(st, at);
	st->lineno += hdr[0] + 1;
	sample_done(st);
	*next = blank + 1;
	return rc;
}

/* Feeds the complete lines of buf[0..len) and returns the bytes used. */
static int
feed(struct ps *st, const char *buf, size_t len, bool eof, size_t *used)
{
	const char *p = buf, *end = buf + len, *nl, *blank = NULL;
	int rc = 0, blk = -1;

	while (!rc && p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl && !eof)
			break;
		blk = -1;
		if (nl && *p != '\n' && *p != ' ' && *p != '\t' && *p != '#') {
			blk = block_end(nl + 1, end, &blank);
			if (!blk && !eof)
				break;
		}
		st->lineno++;
		rc = one_line(st, p, (size_t)((nl ? nl : end) - p));
		p = nl ? nl + 1 : end;
		if (!rc && blk == 1 && st->have_pname && !st->nmarks)
			rc = cached_block(st, p, blank, &p);
	}
	*used = (size_t)(p - buf);
	return rc;
}

static void
ps_release(struct ps *st)
{
	sp_buf_release(&st->pname);
	sp_buf_release(&st->frames);
	sp_buf_release(&st->stack);
	sp_buf_release(&st->tmp);
	free(st->marks);
	free(st->counts);
	free(st->event);
	sp_htab_free(st->cache[0]);
	sp_htab_free(st->cache[1]);
	sp_htab_free(st->pnames);
	sp_htab_free(st->agg);
	while (st->npn)
		free(st->pnstr[--st->npn]);
	free(st->pnstr);
	sp_buf_release(&st->cdata);
	sp_buf_release(&st->qbuf);
	free(st->q);
}

/*
 * Turns each CR LF in buf[from..*len) into LF (text saved on Windows
 * folds as the same text).  A CR at the very end stays: its LF may come
 * with the next read, so the next call starts one byte back.
 */
static void
strip_crlf(uint8_t *buf, size_t from, size_t *len)
{
	size_t r, w = from;

	for (r = from; r < *len; r++)
		if (buf[r] != '\r' || r + 1 == *len || buf[r + 1] != '\n')
			buf[w++] = buf[r];
	*len = w;
}

/* Folds through a buffer of reads (mapping files costs more page faults). */
static int
feed_read(struct ps *st, FILE *in)
{
	struct sp_buf buf = SP_BUF_INIT;
	size_t got, used, from;
	bool eof = false, first = true, crlf = false;
	int rc = 0;

	while (!rc && !eof) {
		if (buf.alloc - buf.len < 32768 && sp_buf_grow(&buf, 1 << 18)) {
			rc = -ENOMEM;
			break;
		}
		got = fread(buf.data + buf.len, 1, buf.alloc - buf.len - 1, in);
		if (st->lineno == 0 &&
		    sp_spool_magic(buf.data, buf.len + got)) {
			warnx("%sthis is a spool, not perf script text: read "
			      "it with sp-dump first (sp-dump FILE | sp-fold)",
			      st->name);
			rc = -EBADMSG;
			break;
		}
		from = buf.len ? buf.len - 1 : 0;
		buf.len += got;
		/* Whether lines end in CR LF is told by the first line, so
		 * LF text, the usual, is not scanned once more. */
		if (first) {
			const uint8_t *nl = memchr(buf.data, '\n', buf.len);

			crlf = nl && nl > buf.data && nl[-1] == '\r';
			first = !nl && got;
		}
		if (crlf)
			strip_crlf(buf.data, from, &buf.len);
		eof = got == 0;
		rc = feed(st, (char *)buf.data, buf.len, eof, &used);
		sp_buf_consume(&buf, used);
	}
	sp_buf_release(&buf);
	return rc;
}

int
fold_perf_script(FILE *in, const char *name, const struct fold_opts *o,
		 struct fold_set *set)
{
	struct ps st = { .o = o, .set = set, .name = name };
	int rc = 0;

	st.cache[0] = sp_htab_new();
	st.cache[1] = sp_htab_new();
	st.pnames = sp_htab_new();
	st.agg = sp_htab_new();
	if (!st.cache[0] || !st.cache[1] || !st.pnames || !st.agg ||
	    (o->event_filter && !(st.event = strdup(o->event_filter))))
		rc = -ENOMEM;
	if (!rc)
		rc = feed_read(&st, in);
	if (!rc)
		rc = flush_hits(&st);
	if (!rc && ferror(in)) {
		warnx("%sread error", name);
		rc = -EIO;
	} else if (rc == -ENOMEM) {
		warnx("%sline %llu: out of memory", name,
		      (unsigned long long)st.lineno);
	}
	if (st.unrecognized > MAX_WARN)
		warnx("%s%llu unrecognized lines in all", name,
		      (unsigned long long)st.unrecognized);
	ps_release(&st);
	return rc ? 1 : 0;
}
