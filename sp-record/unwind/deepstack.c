/*
 * deepstack.c: the stack above a sample's copy, read live (deepstack.h).
 *
 * Why frames read after the sample can be trusted.  What the unwinder
 * reads above the copy are the return addresses and saved registers of
 * the callers of the copied frames: frames that were live at the sample.
 * A live frame's return address and register slots are written by its
 * call and prologue and not again until it returns, so the stack above
 * the copy keeps its sampled values until the thread returns past the
 * copy's end.  When it does, the words the unwinder read last from the
 * copy (the return addresses and saved registers of the outermost copied
 * frames) are popped, and the next call writes other frames over them.
 * rec_deepstack_verify() reads those words again after all the live
 * reads: when they still match, the thread has not returned past the
 * copy's end since the sample (or it made the same calls again from the
 * same frames, which writes the same callers back), so what was read
 * above is what was there at the sample.  A process that exited or a
 * stack unmapped in between fails the read: nothing is accepted then.
 *
 * The same holds across a switch of stacks (psm's trampoline, which
 * stacker calls to run a function on a new segment): the older segments
 * hold the callers of the frames on the newer one, written before the
 * switch and kept until the thread returns through it, which it cannot
 * do without returning past the copy's end first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "common/buf.h"
#include "sp-record/unwind/deepstack.h"
#include "sp-record/sys/maps.h"
#include "common/banned.h"

#define PAGE 4096u
#define CHUNK_MAX (64u << 10)
/*
 * How many lookups a page that no stack mapping held is refused without
 * reading /proc/PID/maps again: a stack segment may be mapped there later
 * (stacker maps and unmaps them as the recursion goes).
 */
#define MISS_KEPT 256
/* Reads of /proc/PID/maps one sample may make at most. */
#define LEARN_MAX 2
/* How near its mapping's top a stack's reads must end to switch stacks. */
#define TOP_SLACK 256
/*
 * The re-read of the marked words: a gap shorter than this between two
 * is read with them, as one piece (what the kernel's read costs is
 * mostly per page pinned and per piece: reading a page's words as one
 * piece costs less than each alone, and only a page without a marked
 * word is worth skipping); this many pieces a call (UIO_MAXIOV: 1024).
 */
#define GAP_MAX PAGE
#define IOV_BATCH 256

void
rec_deepstack_maps_release(struct rec_deepstack_maps *m)
{
	rec_coderange_release(&m->maps);
	m->miss_page = 0;
	m->miss_left = 0;
}

int
rec_deepstack_init(struct rec_deepstack *d, size_t budget)
{
	memset(d, 0, sizeof(*d));
	budget &= ~(size_t)(PAGE - 1);
	if (!budget)
		return 0;
	d->buf = malloc(budget);
	d->again = malloc(budget);
	d->words = calloc(budget / 8 / 64, sizeof(*d->words));
	if (!d->buf || !d->again || !d->words) {
		rec_deepstack_release(d);
		return -ENOMEM;
	}
	d->budget = budget;
	return 0;
}

void
rec_deepstack_release(struct rec_deepstack *d)
{
	free(d->buf);
	free(d->again);
	free(d->words);
	d->buf = d->again = NULL;
	d->words = NULL;
	d->budget = 0;
}

void
rec_deepstack_begin(struct rec_deepstack *d, int32_t pid,
		    struct rec_deepstack_maps *maps, uint64_t sp,
		    const uint8_t *copy, size_t copy_len)
{
	d->pid = pid;
	d->maps = maps;
	d->copy = copy;
	d->sp = sp;
	d->copy_end = sp + copy_len;
	if (d->used_end)
		memset(d->words, 0,
		       (d->used_end / 8 + 63) / 64 * sizeof(*d->words));
	d->used_end = 0;
	d->nspan = 0;
	d->learnt = 0;
	d->used = false;
	d->failed = d->budget == 0 || d->copy_end < sp + 8;
	d->nseen = 0;
}

void
rec_deepstack_saw(struct rec_deepstack *d, uint64_t addr)
{
	if (!d->used)
		d->seen[d->nseen++ % REC_DEEPSTACK_SEEN] = addr;
}

bool
rec_deepstack_used(const struct rec_deepstack *d)
{
	return d->used;
}

/* Sets [*lo, *hi) to the known stack mapping holding `addr`, or false. */
static bool
known_map(const struct rec_deepstack_maps *m, uint64_t addr, uint64_t *lo,
	  uint64_t *hi)
{
	size_t l = 0, h = m->maps.n, mid;

	while (l < h) {
		mid = l + (h - l) / 2;
		if (m->maps.v[mid].hi <= addr)
			l = mid + 1;
		else
			h = mid;
	}
	if (l == m->maps.n || m->maps.v[l].lo > addr)
		return false;
	*lo = m->maps.v[l].lo;
	*hi = m->maps.v[l].hi;
	return true;
}

/*
 * Whether a mapping can hold a stack: writable, without a file, and no
 * pseudo-file but the main thread's [stack] (not [heap], [vvar]...).
 */
static bool
stack_like(const struct rec_maps_entry *m)
{
	return m->perms[1] == 'w' && m->path[0] != '/' &&
	       (m->path[0] != '[' || strncmp(m->path, "[stack]", 7) == 0);
}

/*
 * Learns the stack mappings from /proc/PID/maps, all of them (a stack
 * that grows in segments maps new ones as it goes), replacing what was
 * known, and sets [*lo, *hi) to the one holding `addr`.  Returns false
 * when none does (remembered for that page a while).
 */
static bool
learn_map(struct rec_deepstack *d, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	struct sp_buf text = SP_BUF_INIT;
	struct rec_maps_entry m;
	size_t pos = 0;
	bool found = false;

	/* garbage addresses from a failed step cost one read a sample */
	if ((d->maps->miss_page == (addr & ~(uint64_t)(PAGE - 1)) &&
	     d->maps->miss_left && d->maps->miss_left--) ||
	    d->learnt == LEARN_MAX)
		return false;
	d->learnt++;
	d->maps_reads++;
	if (rec_maps_read(d->pid, &text) == 0) {
		rec_coderange_release(&d->maps->maps);
		while (rec_maps_next((const char *)text.data, text.len, &pos,
				     &m, NULL) == 1)
			if (stack_like(&m) &&
			    rec_coderange_add(&d->maps->maps, m.start, m.end) ==
				0 &&
			    m.start <= addr && addr < m.end) {
				*lo = m.start;
				*hi = m.end;
				found = true;
			}
	}
	sp_buf_release(&text);
	if (!found) {
		d->maps->miss_page = addr & ~(uint64_t)(PAGE - 1);
		d->maps->miss_left = MISS_KEPT;
	}
	return found;
}

static bool
stack_map(struct rec_deepstack *d, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	return known_map(d->maps, addr, lo, hi) || learn_map(d, addr, lo, hi);
}

/*
 * Opens the next span, from `start` in the mapping [lo, hi), with what
 * is left of the budget; the last span is closed at what it read.
 */
static bool
open_span(struct rec_deepstack *d, uint64_t start, uint64_t lo, uint64_t hi)
{
	struct rec_deepstack_span *s = &d->span[d->nspan], *last;
	size_t off = 0;

	if (d->nspan == REC_DEEPSTACK_SPANS)
		return false;
	if (d->nspan) {
		/* words taken from a cache lie past what was read */
		last = &d->span[d->nspan - 1];
		if (last->top > last->have)
			last->have = last->top;
		last->limit = last->start + last->have;
		off = last->off + last->have;
		d->segments++;
	}
	s->start = start;
	s->map_lo = lo;
	s->map_hi = hi;
	s->off = off;
	s->have = s->top = 0;
	s->limit =
	    hi - start < d->budget - off ? hi : start + (d->budget - off);
	d->chunk = d->nspan ? 2 * PAGE : PAGE;
	d->nspan++;
	return true;
}

/*
 * Whether the reads reached the top of the last span's mapping (within
 * TOP_SLACK bytes; the copy's last word counts for an empty span 0): a
 * switch of stacks happens there (psm's callback is the segment's first
 * frame), and a read elsewhere in another mapping is a stray one (a
 * register slot that a finished chain does not need, another thread's
 * stack), which must not tie the sample to memory that changes.
 */
static bool
reached_top(const struct rec_deepstack *d)
{
	const struct rec_deepstack_span *s = &d->span[d->nspan - 1];

	if (s->top)
		return s->start + s->top + TOP_SLACK >= s->map_hi;
	return d->nspan == 1 && d->nseen &&
	       d->seen[(d->nseen - 1) % REC_DEEPSTACK_SEEN] + 8 + TOP_SLACK >=
		   s->map_hi;
}

/*
 * The span that holds `addr`, opening one when it lies in a stack
 * mapping no span has entered and the reads reached the top of the last;
 * NULL when none may hold it.
 */
static struct rec_deepstack_span *
span_for(struct rec_deepstack *d, uint64_t addr)
{
	uint64_t lo, hi, start;
	size_t i;

	for (i = 0; i < d->nspan; i++)
		if (d->span[i].map_lo <= addr && addr < d->span[i].map_hi)
			return d->span[i].start <= addr &&
				       addr < d->span[i].limit
				   ? &d->span[i]
				   : NULL;
	if (!reached_top(d) || !stack_map(d, addr, &lo, &hi))
		return NULL;
	/* a page below the first word: the frame's other slots */
	start = (addr & ~(uint64_t)(PAGE - 1)) - PAGE;
	if (start < lo || start > addr)
		start = lo;
	return open_span(d, start, lo, hi) ? &d->span[d->nspan - 1] : NULL;
}

/*
 * Opens span 0: the mapping of the last word the unwinder read from the
 * copy, from the copy's end.  When the copy ran past that mapping's top
 * (the kernel copies on into whatever memory follows a stack), span 0 is
 * empty: the next read must be another stack's.  A mapping known that
 * explains neither is an older one: they are learnt again.  False when
 * no stack mapping holds the word.
 */
static bool
first_span(struct rec_deepstack *d)
{
	uint64_t lo, hi, end_lo, end_hi,
	    last = d->nseen ? d->seen[(d->nseen - 1) % REC_DEEPSTACK_SEEN]
			    : d->copy_end - 8;

	if (!stack_map(d, last, &lo, &hi))
		return false;
	if (hi < d->copy_end &&
	    !known_map(d->maps, d->copy_end - 8, &end_lo, &end_hi) &&
	    !learn_map(d, last, &lo, &hi))
		return false;
	return open_span(d, hi < d->copy_end ? hi : d->copy_end, lo, hi);
}

/* Reads the last span's next chunk (page-aligned end, doubling). */
static bool
read_chunk(struct rec_deepstack *d, struct rec_deepstack_span *s)
{
	uint64_t pos = s->start + s->have,
		 end = (pos & ~(uint64_t)(PAGE - 1)) + d->chunk;
	struct iovec local, remote;
	ssize_t got;

	if (end > s->limit)
		end = s->limit;
	if (end <= pos)
		return false;
	local.iov_base = d->buf + s->off + s->have;
	local.iov_len = end - pos;
	remote.iov_base = (void *)(uintptr_t)pos;
	remote.iov_len = end - pos;
	d->syscalls++;
	got = process_vm_readv(d->pid, &local, 1, &remote, 1, 0);
	if (got <= 0)
		return false;
	s->have += (size_t)got;
	d->bytes += (uint64_t)got;
	if (d->chunk < CHUNK_MAX)
		d->chunk *= 2;
	return true;
}

/*
 * The span that may hold the live word at `addr`, the first opened when
 * none is; NULL when none may (see rec_deepstack_read).
 */
static struct rec_deepstack_span *
live_span(struct rec_deepstack *d, uint64_t addr)
{
	struct rec_deepstack_span *s = &d->span[d->nspan ? d->nspan - 1 : 0];

	if (d->failed || addr % 8 || (addr >= d->sp && addr < d->copy_end))
		return NULL;
	/* most words lie in the last span, which no other's mapping holds */
	if (d->nspan && addr >= s->start && addr < s->limit &&
	    s->limit - addr >= sizeof(uint64_t) &&
	    (s->off + (addr - s->start)) % 8 == 0)
		return s;
	if (!d->nspan && !first_span(d)) {
		d->failed = true;
		return NULL;
	}
	if (!(s = span_for(d, addr)) || addr < s->start || addr >= s->limit ||
	    s->limit - addr < sizeof(uint64_t) ||
	    (s->off + (addr - s->start)) % 8)
		return NULL;
	return s;
}

/* Notes the unwinder's word at `addr` of span `s` for the re-read. */
static void
mark(struct rec_deepstack *d, struct rec_deepstack_span *s, uint64_t addr)
{
	size_t off = s->off + (addr - s->start);

	d->words[off / 8 / 64] |= (uint64_t)1 << (off / 8 % 64);
	if (addr - s->start + sizeof(uint64_t) > s->top)
		s->top = addr - s->start + sizeof(uint64_t);
	if (off + sizeof(uint64_t) > d->used_end)
		d->used_end = off + sizeof(uint64_t);
	d->used = true;
}

bool
rec_deepstack_read(struct rec_deepstack *d, uint64_t addr, uint64_t *val)
{
	struct rec_deepstack_span *s = live_span(d, addr);

	if (!s)
		return false;
	while (addr - s->start + sizeof(*val) > s->have)
		if (s != &d->span[d->nspan - 1] || !read_chunk(d, s))
			return false;
	memcpy(val, d->buf + s->off + (addr - s->start), sizeof(*val));
	mark(d, s, addr);
	return true;
}

/*
 * rec_deepstack_expect()'s common case, a cached chain's words one after
 * another: past what the last span read, within its limit, outside the
 * copy.  Takes the word and returns true, or false for the general case.
 */
static bool
expect_past(struct rec_deepstack *d, uint64_t addr, uint64_t val)
{
	struct rec_deepstack_span *s = &d->span[d->nspan ? d->nspan - 1 : 0];
	size_t off;

	if (!d->nspan || d->failed || addr % 8 || addr < s->start + s->have ||
	    addr >= s->limit || s->limit - addr < sizeof(val) ||
	    (addr >= d->sp && addr < d->copy_end) ||
	    (off = s->off + (addr - s->start)) % 8)
		return false;
	memcpy(d->buf + off, &val, sizeof(val));
	mark(d, s, addr);
	return true;
}

bool
rec_deepstack_expect(struct rec_deepstack *d, uint64_t addr, uint64_t val)
{
	struct rec_deepstack_span *s;
	uint8_t *at;

	if (expect_past(d, addr, val))
		return true;
	if (!(s = live_span(d, addr)))
		return false;
	at = d->buf + s->off + (addr - s->start);
	if (addr - s->start + sizeof(val) <= s->have) {
		if (memcmp(at, &val, sizeof(val)) != 0)
			return false;
	} else {
		if (s != &d->span[d->nspan - 1])
			return false;
		memcpy(at, &val, sizeof(val));
	}
	mark(d, s, addr);
	return true;
}

/*
 * The span whose mapping holds the frame address `addr` (from the span's
 * start, 0 for the copy too), or -1.  A stack's top, its mapping's end,
 * counts as in it: the SP of the function that switched to it, once its
 * callee returned.
 */
static int
span_index(const struct rec_deepstack *d, uint64_t addr)
{
	size_t i;

	if (addr >= d->sp && addr <= d->copy_end)
		return 0;
	for (i = 0; i < d->nspan; i++)
		if (d->span[i].start <= addr && addr <= d->span[i].map_hi)
			return (int)i;
	return -1;
}

bool
rec_deepstack_outward(const struct rec_deepstack *d, uint64_t sp,
		      uint64_t new_sp)
{
	int from = span_index(d, sp), to = span_index(d, new_sp);

	return from >= 0 && to >= 0 &&
	       (to > from || (to == from && new_sp > sp));
}

/*
 * The re-read's first pieces: the last words the unwinder read from the
 * copy, into now[].  Returns how many (0: none was noted).
 */
static size_t
seen_pieces(const struct rec_deepstack *d, struct iovec *local,
	    struct iovec *remote, uint64_t *now)
{
	size_t i,
	    n = d->nseen < REC_DEEPSTACK_SEEN ? d->nseen : REC_DEEPSTACK_SEEN;

	for (i = 0; i < n; i++) {
		local[i].iov_base = &now[i];
		local[i].iov_len = sizeof(now[i]);
		remote[i].iov_base =
		    (void *)(uintptr_t)
			d->seen[(d->nseen - n + i) % REC_DEEPSTACK_SEEN];
		remote[i].iov_len = sizeof(now[i]);
	}
	return n;
}

/* Whether the `n` words of seen_pieces() read the same as in the copy. */
static bool
seen_hold(const struct rec_deepstack *d, const uint64_t *now, size_t n)
{
	uint64_t at, was;
	size_t i;

	for (i = 0; i < n; i++) {
		at = d->seen[(d->nseen - n + i) % REC_DEEPSTACK_SEEN];
		memcpy(&was, d->copy + (at - d->sp), sizeof(was));
		if (was != now[i])
			return false;
	}
	return true;
}

/*
 * The re-read's pieces: the marked words of span `s`, runs of them
 * within a page and fewer than GAP_MAX bytes apart read as one, from
 * word index *w on; at most `max` pieces into local/remote.  Returns how
 * many, with *w where the next call goes on (past the span: done).
 */
static size_t
marked_runs(const struct rec_deepstack *d, const struct rec_deepstack_span *s,
	    size_t *w, struct iovec *local, struct iovec *remote, size_t max)
{
	size_t n = 0, end = (s->off + s->top) / 8, i;
	uint64_t addr, bits, last = 0; /* last: the last piece's start */

	while (*w < end && n < max) {
		i = *w / 64;
		bits = d->words[i] & (~(uint64_t)0 << (*w % 64));
		if (!bits) {
			*w = (i + 1) * 64;
			continue;
		}
		*w = i * 64 + (size_t)__builtin_ctzll(bits);
		if (*w >= end)
			break;
		addr = s->start + (*w * 8 - s->off);
		if (n && addr - (last + remote[n - 1].iov_len) < GAP_MAX) {
			remote[n - 1].iov_len = addr + 8 - last;
			local[n - 1].iov_len = remote[n - 1].iov_len;
		} else {
			last = addr;
			remote[n].iov_base = (void *)(uintptr_t)addr;
			local[n].iov_base = d->again + *w * 8;
			remote[n].iov_len = local[n].iov_len = 8;
			n++;
		}
		(*w)++;
	}
	return n;
}

/* Reads the pieces, all of them or -EIO. */
static int
read_pieces(struct rec_deepstack *d, const struct iovec *local,
	    const struct iovec *remote, size_t n)
{
	size_t want = 0, i;

	for (i = 0; i < n; i++)
		want += local[i].iov_len;
	d->syscalls++;
	if (process_vm_readv(d->pid, local, n, remote, n, 0) != (ssize_t)want)
		return -EIO;
	d->bytes += want;
	return 0;
}

/*
 * The re-read: the copy's last words read first (one piece each), then
 * the live words the unwinder read (with what lies between them), in
 * IOV_BATCH pieces a call; then each compared.
 */
int
rec_deepstack_verify(struct rec_deepstack *d)
{
	struct iovec local[IOV_BATCH], remote[IOV_BATCH];
	uint64_t now[REC_DEEPSTACK_SEEN], bits, was, is;
	size_t nseen = seen_pieces(d, local, remote, now), n = nseen, i = 0,
	       w = d->nspan ? d->span[0].off / 8 : 0;
	int r;

	if (!nseen)
		return -ENODATA;
	for (;;) {
		while (i < d->nspan && n < IOV_BATCH) {
			n += marked_runs(d, &d->span[i], &w, local + n,
					 remote + n, IOV_BATCH - n);
			if (w >= (d->span[i].off + d->span[i].top) / 8 &&
			    ++i < d->nspan)
				w = d->span[i].off / 8;
		}
		if (!n)
			break;
		if ((r = read_pieces(d, local, remote, n)) < 0)
			return r;
		n = 0;
	}
	if (!seen_hold(d, now, nseen))
		return -ESTALE;
	/* the marked words only, a bitmap word at a time: most are clear */
	for (i = 0; i * 64 * 8 < d->used_end; i++)
		for (bits = d->words[i]; bits; bits &= bits - 1) {
			w = i * 64 + (size_t)__builtin_ctzll(bits);
			memcpy(&was, d->buf + w * 8, sizeof(was));
			memcpy(&is, d->again + w * 8, sizeof(is));
			if (was != is)
				return -ESTALE;
		}
	return 0;
}
