/* livetab.c: the sliding window of --live (livetab.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sp-fold/live/livetab.h"
#include "sp-fold/model/expand.h"
#include "common/banned.h"

int
fold_live_tab_init(struct fold_live_tab *t)
{
	memset(t, 0, sizeof(*t));
	t->keys = sp_htab_new();
	t->fidx = sp_htab_new();
	t->lidx = sp_htab_new();
	return t->keys && t->fidx && t->lidx ? 0 : -ENOMEM;
}

void
fold_live_tab_release(struct fold_live_tab *t)
{
	size_t i;

	for (i = 0; i < t->nnames; i++)
		free(t->names[i].funcs);
	for (i = 0; i < t->nfuncs; i++)
		free(t->funcs[i]);
	for (i = 0; i < t->nlines; i++)
		free(t->lines[i]);
	free(t->names);
	free(t->funcs);
	free(t->lines);
	sp_htab_free(t->lidx);
	free(t->ring);
	sp_htab_free(t->keys);
	sp_htab_free(t->fidx);
	sp_buf_release(&t->tmp);
}

/* The id of string s[0..n) in the table `idx` of strings `v`. */
static int64_t
intern(struct sp_htab *idx, char ***v, size_t *nv, size_t *av, const char *s,
       size_t n)
{
	uint64_t *slot;
	char *copy;
	bool inserted = false;

	if (SP_GROW(*v, *av, *nv + 1) || !(copy = strndup(s, n)))
		return -ENOMEM;
	slot = sp_htab_slot(idx, s, n, *nv, &inserted);
	if (!slot || !inserted)
		free(copy);
	if (!slot)
		return -ENOMEM;
	if (inserted)
		(*v)[(*nv)++] = copy;
	return (int64_t)*slot;
}

static int64_t
func_id(struct fold_live_tab *t, const char *s, size_t n)
{
	return intern(t->fidx, &t->funcs, &t->nfuncs, &t->afuncs, s, n);
}

/* The names of a sample's stack, split from its folded line. */
static int
make_names(struct fold_live_tab *t, const struct fold_reader *r,
	   const struct fold_sample *s, struct fold_live_names *ln)
{
	const char *p, *end, *semi;
	bool keep, first = !r->o->name.no_comm;
	int64_t id;

	if (fold_model_folded(&r->m, &r->o->name, s->comm, s->pid, s->tid,
			      s->stack, &t->tmp, &keep))
		return -ENOMEM;
	memset(ln, 0, sizeof(*ln));
	id = intern(t->lidx, &t->lines, &t->nlines, &t->alines,
		    t->tmp.len ? (char *)t->tmp.data : "", t->tmp.len);
	ln->funcs = calloc(t->tmp.len + 1, sizeof(*ln->funcs));
	if (id < 0 || !ln->funcs)
		return -ENOMEM;
	ln->row = (uint32_t)id;
	p = t->lines[id];
	end = p + t->tmp.len;
	for (; p < end; p = semi + 1, first = false) {
		semi = memchr(p, ';', (size_t)(end - p));
		semi = semi ? semi : end;
		if (first)
			continue; /* the comm frame is no function */
		if ((id = func_id(t, p, (size_t)(semi - p))) < 0)
			return -ENOMEM;
		ln->funcs[ln->n++] = (uint32_t)id;
	}
	return 0;
}

static int64_t
names_of(struct fold_live_tab *t, const struct fold_reader *r,
	 const struct fold_sample *s)
{
	struct {
		uint32_t stack;
		int32_t pid;
		uint64_t tid;
	} k = { s->stack, s->pid, s->tid };
	uint64_t *slot;
	bool inserted = false;

	slot = sp_htab_slot(t->keys, &k, sizeof(k), t->nnames, &inserted);
	if (!slot)
		return -ENOMEM;
	if (inserted) {
		if (SP_GROW(t->names, t->anames, t->nnames + 1) ||
		    make_names(t, r, s, &t->names[t->nnames]))
			return -ENOMEM;
		t->nnames++;
	}
	return (int64_t)*slot;
}

/* Makes room for one more sample in the ring, unwrapped when it grows. */
static int
ring_room(struct fold_live_tab *t)
{
	struct fold_live_sample *v;
	size_t cap, i;

	if (t->len < t->cap)
		return 0;
	cap = t->cap ? 2 * t->cap : 4096;
	v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < t->len; i++)
		v[i] = t->ring[(t->head + i) % t->cap];
	free(t->ring);
	t->ring = v;
	t->cap = cap;
	t->head = 0;
	return 0;
}

int
fold_live_tab_add(struct fold_live_tab *t, const struct fold_reader *r,
		  const struct fold_sample *s)
{
	int64_t n = names_of(t, r, s);

	if (n < 0 || ring_room(t))
		return -ENOMEM;
	t->ring[(t->head + t->len++) % t->cap] =
	    (struct fold_live_sample){ s->ts, (uint32_t)n, s->pid, s->tid };
	t->latest = s->ts > t->latest ? s->ts : t->latest;
	return 0;
}

void
fold_live_tab_expire(struct fold_live_tab *t, uint64_t window)
{
	while (t->len && t->ring[t->head].ts + window < t->latest) {
		t->head = (t->head + 1) % t->cap;
		t->len--;
	}
}

/* What the table shows: one row's id and counts. */
struct row {
	uint32_t id;
	uint64_t self, total;
};

static int
row_cmp(const void *a, const void *b, void *by_total)
{
	const struct row *x = a, *y = b;
	uint64_t kx = *(bool *)by_total ? x->total : x->self;
	uint64_t ky = *(bool *)by_total ? y->total : y->self;

	if (kx != ky)
		return kx < ky ? 1 : -1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Counts the window: per function (self, total) or per stack (self). */
static struct row *
count(const struct fold_live_tab *t, bool stacks, uint64_t tid, size_t *nrows)
{
	size_t n = stacks ? t->nlines : t->nfuncs, i, j;
	struct row *v = calloc(n + 1, sizeof(*v));
	size_t *seen = calloc(n + 1, sizeof(*seen));

	for (i = 0; v && seen && i < t->len; i++) {
		const struct fold_live_names *ln =
		    &t->names[t->ring[(t->head + i) % t->cap].names];

		if (tid && t->ring[(t->head + i) % t->cap].tid != tid)
			continue;
		if (stacks) {
			v[ln->row].self++;
			continue;
		}
		for (j = 0; j < ln->n; j++) {
			if (seen[ln->funcs[j]] != i + 1)
				v[ln->funcs[j]].total++;
			seen[ln->funcs[j]] = i + 1;
		}
		if (ln->n)
			v[ln->funcs[ln->n - 1]].self++;
	}
	free(seen);
	for (i = 0; v && i < n; i++) {
		v[i].id = (uint32_t)i;
		v[i].total = stacks ? v[i].self : v[i].total;
	}
	*nrows = v ? n : 0;
	return v;
}

/* Distinct processes and threads in the window. */
static void
census(const struct fold_live_tab *t, size_t *procs, size_t *threads)
{
	struct sp_htab *p = sp_htab_new(), *th = sp_htab_new();
	size_t i;

	for (i = 0; p && th && i < t->len; i++) {
		const struct fold_live_sample *s =
		    &t->ring[(t->head + i) % t->cap];

		sp_htab_put(p, &s->pid, sizeof(s->pid), 1);
		sp_htab_put(th, &s->tid, sizeof(s->tid), 1);
	}
	*procs = p ? sp_htab_count(p) : 0;
	*threads = th ? sp_htab_count(th) : 0;
	sp_htab_free(p);
	sp_htab_free(th);
}

/* Samples of `tid` in the window. */
static uint64_t
thread_samples(const struct fold_live_tab *t, uint64_t tid)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < t->len; i++)
		n += t->ring[(t->head + i) % t->cap].tid == tid;
	return n;
}

uint64_t
fold_live_tab_next_thread(const struct fold_live_tab *t, uint64_t tid)
{
	struct sp_htab *counts = sp_htab_new();
	uint64_t cur = 0, best = 0, best_n = 0, n, cand, *slot;
	size_t i, pos = 0;
	const void *key;
	bool fresh;

	/* Samples per thread in the window, once. */
	for (i = 0; counts && i < t->len; i++) {
		cand = t->ring[(t->head + i) % t->cap].tid;
		slot = sp_htab_slot(counts, &cand, sizeof(cand), 0, &fresh);
		if (slot)
			++*slot;
	}
	if (!counts || (tid && !sp_htab_get(counts, &tid, sizeof(tid), &cur)))
		cur = tid ? 0 : UINT64_MAX;
	/* The busiest thread after `tid` in (samples desc, tid asc). */
	while (counts && sp_htab_next(counts, &pos, &key, NULL, &n)) {
		memcpy(&cand, key, sizeof(cand));
		if (tid && (n > cur || (n == cur && cand <= tid)))
			continue;
		if (n > best_n || (n == best_n && cand < best)) {
			best = cand;
			best_n = n;
		}
	}
	sp_htab_free(counts);
	return best;
}

/* Characters of UTF-8 text `s` (n bytes): its lead bytes. */
static size_t
chars(const char *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* Where the last `keep` characters of `s` (n bytes) start. */
static size_t
tail_start(const char *s, size_t n, size_t keep)
{
	size_t i = n, c = 0;

	while (i > 0 && c < keep)
		c += ((unsigned char)s[--i] & 0xc0) != 0x80;
	return i;
}

/* Where the first `keep` characters of `s` (n bytes) end. */
static size_t
head_end(const char *s, size_t n, size_t keep)
{
	size_t i = 0, c = 0;

	while (i < n && (c < keep || ((unsigned char)s[i] & 0xc0) == 0x80))
		c += ((unsigned char)s[i++] & 0xc0) != 0x80;
	return i;
}

/*
 * Prints one line of at most `cols` characters: `fixed` (printf-style)
 * then `text`, which is cut at its end, or at its start when `keep_end`,
 * with "..." where it was cut.
 */
static void __attribute__((format(printf, 5, 6)))
put_line(FILE *out, int cols, const char *text, bool keep_end,
	 const char *fixed, ...)
{
	char head[256];
	size_t n = text ? strlen(text) : 0, room, hn;
	va_list ap;

	va_start(ap, fixed);
	vsnprintf(head, sizeof(head), fixed, ap);
	va_end(ap);
	hn = strlen(head);
	hn = head_end(head, hn, cols > 0 ? (size_t)cols : 0);
	fwrite(head, 1, hn, out);
	room =
	    (size_t)cols > chars(head, hn) ? (size_t)cols - chars(head, hn) : 0;
	if (chars(text ? text : "", n) <= room) {
		fwrite(text ? text : "", 1, n, out);
	} else if (room > 3 && keep_end) {
		size_t from = tail_start(text, n, room - 3);

		fputs("...", out);
		fwrite(text + from, 1, n - from, out);
	} else if (room > 3) {
		fwrite(text, 1, head_end(text, n, room - 3), out);
		fputs("...", out);
	}
	fputc('\n', out);
}

static void
header(const struct fold_live_tab *t, const struct fold_reader *r, FILE *out,
       int cols, const struct fold_live_show *show)
{
	bool by_total = show->by_total, stacks = show->stacks;
	uint64_t span = t->len ? t->latest - t->ring[t->head].ts : 0;
	double secs =
	    (double)span / 1e9 + (double)fold_model_period_ns(&r->m) / 1e9;
	size_t procs, threads;
	char tid[32] = "";

	census(t, &procs, &threads);
	put_line(out, cols, NULL, false,
		 "sp-fold --live  %zu samples in %.1f s (%.0f/s)  %zu "
		 "process%s, %zu thread%s  lost %" PRIu64,
		 t->len, secs, t->len ? (double)t->len / secs : 0.0, procs,
		 procs == 1 ? "" : "es", threads, threads == 1 ? "" : "s",
		 r->lost);
	if (show->tid)
		snprintf(tid, sizeof(tid), ", thread %" PRIu64, show->tid);
	/* What is shown first: a narrow terminal cuts the keys. */
	put_line(out, cols, NULL, false,
		 "sorted by %s%s    keys: s self  t total  c %s  f thread  "
		 "q quit",
		 stacks     ? "samples"
		 : by_total ? "total"
			    : "self",
		 tid, stacks ? "functions" : "call stacks");
	fputc('\n', out);
	put_line(out, cols, NULL, false, "%s",
		 stacks ? "  samples%  samples  call stack (root first)"
			: "   self%   total%    self   total  function");
}

void
fold_live_tab_print(const struct fold_live_tab *t, const struct fold_reader *r,
		    FILE *out, const struct fold_live_screen *screen,
		    const struct fold_live_show *show)
{
	bool by_total = show->by_total, stacks = show->stacks;
	int cols = screen->cols;
	size_t n, i;
	struct row *v = count(t, stacks, show->tid, &n);
	uint64_t in = show->tid ? thread_samples(t, show->tid) : t->len;
	double all = in ? (double)in : 1;

	header(t, r, out, cols, show);
	if (!v)
		return;
	qsort_r(v, n, sizeof(*v), row_cmp, &by_total);
	/* Four header lines, and the last row left for live.c's state. */
	for (i = 0;
	     i < n && (int)i < screen->rows - 5 && (v[i].self || v[i].total);
	     i++) {
		if (stacks)
			put_line(out, cols, t->lines[v[i].id], true,
				 "  %7.2f%%  %7" PRIu64 "  ",
				 100.0 * (double)v[i].self / all, v[i].self);
		else
			put_line(out, cols, t->funcs[v[i].id], false,
				 "  %6.2f%%  %6.2f%%  %6" PRIu64 "  %6" PRIu64
				 "  ",
				 100.0 * (double)v[i].self / all,
				 100.0 * (double)v[i].total / all, v[i].self,
				 v[i].total);
	}
	free(v);
}
