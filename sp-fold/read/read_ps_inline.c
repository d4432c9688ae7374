/*
 * read_ps_inline.c: --inline and --context for perf script text
 * (read_ps_inline.h), the rules of stackcollapse-perf.pl: which modules go to
 * addr2line, the retry at the symbol's address from nm when addr2line knows
 * nothing of the address perf printed (a PIE's or a library's run-time address,
 * with perf's +0x offset), and how its answer becomes names.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/buf.h"
#include "common/htab.h"
#include "sp-fold/read/addr2line.h"
#include "sp-fold/read/read_ps_inline.h"
#include "common/banned.h"

/* A resolved (module, address): its names in the arena. */
struct res {
	size_t off, len;
};

struct fold_psinl {
	struct fold_a2l *a2l;
	bool context;
	struct sp_htab *cache; /* "MOD\0PC" -> index in res */
	struct res *res;
	size_t nres, ares;
	struct sp_buf arena;       /* the names of every res */
	struct sp_buf key, out;    /* scratch */
	struct sp_buf pc, mod;     /* the frame's, NUL-terminated */
	struct sp_buf line, items; /* parse scratch */
};

struct fold_psinl *
fold_psinl_new(bool context)
{
	struct fold_psinl *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->context = context;
	s->a2l = fold_a2l_new();
	s->cache = sp_htab_new();
	if (!s->a2l || !s->cache) {
		fold_psinl_free(s);
		return NULL;
	}
	return s;
}

void
fold_psinl_free(struct fold_psinl *s)
{
	if (!s)
		return;
	fold_a2l_free(s->a2l);
	sp_htab_free(s->cache);
	free(s->res);
	sp_buf_release(&s->arena);
	sp_buf_release(&s->key);
	sp_buf_release(&s->out);
	sp_buf_release(&s->pc);
	sp_buf_release(&s->mod);
	sp_buf_release(&s->line);
	sp_buf_release(&s->items);
	free(s);
}

/* "perf-" digits, any one character, "map": the script's JIT map test,
 * with the backtracking its \d+. does ("perf-12map" matches too). */
static bool
perf_map_at(const char *p, const char *end)
{
	size_t d = 0;

	if (end - p < 5 || memcmp(p, "perf-", 5))
		return false;
	for (p += 5; p + d < end && p[d] >= '0' && p[d] <= '9'; d++)
		;
	if (!d)
		return false;
	if (p + d + 4 <= end && p[d] != '\n' && !memcmp(p + d + 1, "map", 3))
		return true;
	return d >= 2 && p + d + 3 <= end && !memcmp(p + d, "map", 3);
}

/* Modules the script never gives addr2line: JIT maps, anything with
 * "kernel." and anything with a non-empty "[...]" in it. */
static bool
skipped_module(struct fold_span mod)
{
	const char *p, *end = mod.p + mod.n, *close;

	for (p = mod.p; p < end; p++) {
		if (*p == 'p' && perf_map_at(p, end))
			return true;
		if (*p == 'k' && end - p >= 7 && !memcmp(p, "kernel.", 7))
			return true;
		close = *p == '[' ? memchr(p + 1, ']', (size_t)(end - p - 1))
				  : NULL;
		if (close && close > p + 1)
			return true;
	}
	return false;
}

/* Splits "func+0xHEX" (the last such "+0x") into func and its offset. */
static bool
split_offset(struct fold_span raw, struct fold_span *func, uint64_t *off)
{
	size_t i = raw.n, h;

	while (i > 0 && is_lhex(raw.p[i - 1]))
		i--;
	h = raw.n - i;
	if (!h || i < 4 || memcmp(raw.p + i - 3, "+0x", 3))
		return false;
	*func = (struct fold_span){ raw.p, i - 3 };
	*off = 0;
	for (; i < raw.n; i++)
		*off = *off * 16 + (uint64_t)(raw.p[i] <= '9'
						  ? raw.p[i] - '0'
						  : raw.p[i] - 'a' + 10);
	return true;
}

/* Removes the first " (discriminator X)" of a line, X a run of
 * non-blanks up to its last ')', as the script's substitution does. */
static void
strip_discriminator(struct sp_buf *l)
{
	static const char pre[] = " (discriminator ";
	const size_t np = sizeof(pre) - 1;
	char *s = (char *)l->data, *p = s, *run, *close;
	size_t r;

	while (l->len && (p = memmem(p, l->len - (size_t)(p - s), pre, np))) {
		run = p + np;
		for (r = 0; run + r < s + l->len && !is_space(run[r]); r++)
			;
		close = r > 1 ? memrchr(run + 1, ')', r - 1) : NULL;
		if (close) {
			memmove(p, close + 1, l->len - (size_t)(close + 1 - s));
			l->len -= (size_t)(close + 1 - p);
			return;
		}
		p++;
	}
}

/*
 * addr2line's lines in pairs, a function then its file:line: the
 * functions (with ":file:line" under --context) outermost first, joined
 * by ';', appended to the arena.  An unpaired last line is dropped.
 */
static int
parse(struct fold_psinl *s, const char *t, size_t n)
{
	const char *end = t + n, *nl;
	size_t *at, nitems = 0, i;
	struct sp_buf *b = &s->items;
	int rc = 0;

	/* Each pair goes to the scratch as "item\0", then reversed. */
	sp_buf_reset(b);
	for (i = 0; !rc && t < end; t = nl + 1, i++) {
		nl = memchr(t, '\n', (size_t)(end - t));
		nl = nl ? nl : end;
		sp_buf_reset(&s->line);
		if (sp_buf_add(&s->line, t, (size_t)(nl - t)))
			return -ENOMEM;
		strip_discriminator(&s->line);
		if (i % 2 == 0)
			rc = sp_buf_add(b, s->line.data, s->line.len);
		else if (s->context)
			rc = sp_buf_addc(b, ':') ||
			     sp_buf_add(b, s->line.data, s->line.len);
		if (!rc && i % 2 == 1 && !(rc = sp_buf_addc(b, 0)))
			nitems++;
	}
	if (rc || !(at = calloc(nitems + 1, sizeof(*at))))
		return -ENOMEM;
	for (i = 0, n = 0; i < nitems; i++) {
		at[i] = n;
		n += strlen((const char *)b->data + n) + 1;
	}
	for (i = nitems; !rc && i-- > 0;)
		rc = sp_buf_adds(&s->arena, (const char *)b->data + at[i]) ||
		     (i && sp_buf_addc(&s->arena, ';'));
	free(at);
	return rc ? -ENOMEM : 0;
}

static int
make_key(struct fold_psinl *s, const char *mod, const char *pc)
{
	sp_buf_reset(&s->key);
	if (sp_buf_add(&s->key, mod, strlen(mod) + 1) ||
	    sp_buf_adds(&s->key, pc))
		return -ENOMEM;
	return 0;
}

/* Remembers the result `idx` for (mod, pc); returns idx or -ENOMEM. */
static int64_t
remember(struct fold_psinl *s, const char *mod, const char *pc, int64_t idx)
{
	if (make_key(s, mod, pc) ||
	    sp_htab_put(s->cache, s->key.data, s->key.len, (uint64_t)idx))
		return -ENOMEM;
	return idx;
}

/* A new result from addr2line's lines in s->out[from..). */
static int64_t
new_result(struct fold_psinl *s, size_t from)
{
	size_t off = s->arena.len;

	if (parse(s, (const char *)s->out.data + from, s->out.len - from) ||
	    SP_GROW(s->res, s->ares, s->nres + 1))
		return -ENOMEM;
	s->res[s->nres] = (struct res){ off, s->arena.len - off };
	return (int64_t)s->nres++;
}

/*
 * The result of (mod, pc), from the cache or addr2line; when addr2line
 * knows nothing of pc and `raw` is "func+0xOFF", the address of func in
 * nm's list plus OFF is asked instead.  Returns its index or -ENOMEM.
 */
static int64_t
resolve(struct fold_psinl *s, const char *mod, const char *pc,
	struct fold_span raw)
{
	size_t from = s->out.len;
	struct fold_span func;
	uint64_t base, off, hit;
	char retry[24];
	int64_t idx;
	int rc;

	if (make_key(s, mod, pc))
		return -ENOMEM;
	if (sp_htab_get(s->cache, s->key.data, s->key.len, &hit))
		return (int64_t)hit;
	if (fold_a2l_ask(s->a2l, mod, pc, &s->out))
		return -ENOMEM;
	if (s->out.len > from &&
	    memmem(s->out.data + from, s->out.len - from, "??\n??:0", 7) &&
	    split_offset(raw, &func, &off)) {
		rc = fold_a2l_nm(s->a2l, mod, func.p, func.n, &base);
		if (rc < 0)
			return rc;
		if (rc) {
			snprintf(retry, sizeof(retry), "0x%" PRIx64,
				 base + off);
			s->out.len = from;
			idx =
			    resolve(s, mod, retry, (struct fold_span){ "", 0 });
			return idx < 0 ? idx : remember(s, mod, pc, idx);
		}
	}
	idx = new_result(s, from);
	s->out.len = from;
	return idx < 0 ? idx : remember(s, mod, pc, idx);
}

static int
set_str(struct sp_buf *b, struct fold_span v)
{
	sp_buf_reset(b);
	return sp_buf_add(b, v.p, v.n) || sp_buf_addc(b, 0) ? -ENOMEM : 0;
}

int
fold_psinl_names(struct fold_psinl *s, struct fold_span pc,
		 struct fold_span func, struct fold_span mod,
		 const char **names, size_t *n)
{
	const struct res *r;
	int64_t idx;
	struct fold_span v;

	*n = 0;
	if (skipped_module(mod))
		return 0;
	if (set_str(&s->pc, pc) || set_str(&s->mod, mod))
		return -ENOMEM;
	sp_buf_reset(&s->out);
	idx = resolve(s, (const char *)s->mod.data, (const char *)s->pc.data,
		      func);
	if (idx < 0)
		return (int)idx;
	r = &s->res[idx];
	v = (struct fold_span){ (const char *)s->arena.data + r->off, r->len };
	if (!v.n || fold_ps_span_eq(v, "??") || fold_ps_span_eq(v, "??:??:0"))
		return 0;
	*names = v.p;
	*n = v.n;
	return 0;
}
