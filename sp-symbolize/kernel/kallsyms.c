/*
 * kallsyms.c: kernel symbol tables (see kallsyms.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "sp-symbolize/kernel/kallsyms.h"
#include "common/records.h"
#include "common/search.h"
#include "common/banned.h"

#define SYM_KSYM_NOMODULE UINT32_MAX
/* Read at most this much at a time: /proc/kallsyms makes megabytes. */
#define SYM_KSYM_CHUNK (1 << 20)
/* The text buffer starts this large (saved copies can be tiny) and
 * doubles, mostly in place at the top of the heap. */
#define SYM_KSYM_TEXT (64 << 10)

/* One text symbol; its strings are NUL-terminated in the file text. */
struct sym_ksym {
	uint64_t addr;
	uint32_t name;   /* offset into text */
	uint32_t module; /* offset into text, or SYM_KSYM_NOMODULE */
	uint32_t seq;    /* line order, for ties between aliases */
	uint32_t rank;
};

struct sym_kallsyms {
	struct sym_ksym *v;
	size_t n;
	size_t alloc;
	char *text;     /* the whole file, parsed in place */
	size_t textcap; /* allocated length of text */
};

static unsigned
type_rank(char type)
{
	switch (type) {
	case 'T':
		return 4;
	case 'W':
		return 3;
	case 't':
		return 2;
	case 'w':
		return 1;
	default:
		return 0;
	}
}

static size_t
underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

static bool
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The next blank-separated word of [*p, end): its start and length. */
static size_t
word(char **p, char *end, char **start)
{
	char *q;

	while (*p < end && blank(**p))
		(*p)++;
	for (q = *p; q < end && !blank(*q); q++)
		;
	*start = *p;
	*p = q;
	return (size_t)(q - *start);
}

static int
ks_push(struct sym_kallsyms *k, uint64_t addr, unsigned rank, uint32_t name,
	uint32_t module)
{
	struct sym_ksym *s;

	if (k->n == k->alloc) {
		size_t alloc = 2 * k->alloc;
		struct sym_ksym *v = reallocarray(k->v, alloc, sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->v = v;
		k->alloc = alloc;
	}
	s = &k->v[k->n];
	s->addr = addr;
	s->name = name;
	s->module = module;
	s->rank = rank * 64 + (63 - (underscores(k->text + name) & 63));
	s->seq = (uint32_t)k->n;
	k->n++;
	return 0;
}

/*
 * Parses the line [p, end) of k->text, whose byte at `end` (a newline
 * or the spare byte past the text) may be overwritten.  Names and
 * modules are NUL-terminated in place.  Returns 0, or -EBADMSG.
 */
static int
ks_parse_line(struct sym_kallsyms *k, char *p, char *end)
{
	char *type, *name, *module;
	size_t tlen, nlen, mlen, digits = 0;
	uint64_t addr = 0;
	int v;

	while (p < end && blank(*p))
		p++;
	for (; p < end && (v = sp_hexval(*p)) >= 0; p++, digits++)
		addr = addr << 4 | (uint64_t)v;
	if (digits == 0 || digits > 16 || p == end || !blank(*p))
		return -EBADMSG;
	tlen = word(&p, end, &type);
	nlen = word(&p, end, &name);
	mlen = word(&p, end, &module);
	if (tlen != 1 || nlen == 0)
		return -EBADMSG;
	if (!type_rank(type[0]))
		return 0;
	name[nlen] = '\0';
	if (mlen)
		module[mlen] = '\0';
	return ks_push(k, addr, type_rank(type[0]), (uint32_t)(name - k->text),
		       mlen ? (uint32_t)(module - k->text) : SYM_KSYM_NOMODULE);
}

static int
cmp_addr(const void *pa, const void *pb)
{
	const struct sym_ksym *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* Whether `a` wins over its alias `b`: type, fewer underscores, order. */
static bool
preferred(const struct sym_ksym *a, const struct sym_ksym *b)
{
	return a->rank != b->rank ? a->rank > b->rank : a->seq < b->seq;
}

/*
 * Sorts by address.  /proc/kallsyms lists the kernel image in address
 * order and then the modules: only the tail needs sorting, then a merge
 * from the end through a copy of the tail.  Returns 0 or -ENOMEM.
 */
static int
ks_sort(struct sym_kallsyms *k)
{
	size_t run = 1, m, i, j, o;
	struct sym_ksym *tail;

	while (run < k->n && k->v[run - 1].addr <= k->v[run].addr)
		run++;
	if (run >= k->n)
		return 0;
	m = k->n - run;
	qsort(k->v + run, m, sizeof(*k->v), cmp_addr);
	tail = reallocarray(NULL, m, sizeof(*tail));
	if (!tail)
		return -ENOMEM;
	memcpy(tail, k->v + run, m * sizeof(*tail));
	for (i = run, j = m, o = k->n; j > 0;)
		k->v[--o] = i > 0 && k->v[i - 1].addr > tail[j - 1].addr
				? k->v[--i]
				: tail[--j];
	free(tail);
	return 0;
}

/* Sorts and keeps the preferred alias at each address. */
static int
ks_finish(struct sym_kallsyms *k)
{
	size_t i, n = 0;
	bool nonzero = false;

	for (i = 0; i < k->n; i++)
		nonzero |= k->v[i].addr != 0;
	if (!nonzero) {
		k->n = 0;
		return 0;
	}
	if (ks_sort(k))
		return -ENOMEM;
	for (i = 0; i < k->n; i++) {
		if (n > 0 && k->v[n - 1].addr == k->v[i].addr) {
			if (preferred(&k->v[i], &k->v[n - 1]))
				k->v[n - 1] = k->v[i];
			continue;
		}
		k->v[n++] = k->v[i];
	}
	k->n = n;
	return 0;
}

/*
 * Reads all of `f` into k->text, with one spare byte past the end.
 * Returns the length, or a negative errno.
 */
static long
ks_slurp(struct sym_kallsyms *k, FILE *f)
{
	size_t len = 0, got, want;
	char *t;

	do {
		if (k->textcap - len < 2) {
			size_t cap =
			    k->textcap ? 2 * k->textcap : SYM_KSYM_TEXT;

			if (cap > UINT32_MAX)
				return -EFBIG;
			t = realloc(k->text, cap);
			if (!t)
				return -ENOMEM;
			k->text = t;
			k->textcap = cap;
		}
		want = k->textcap - len - 1;
		got = fread(k->text + len, 1,
			    want < SYM_KSYM_CHUNK ? want : SYM_KSYM_CHUNK, f);
		len += got;
	} while (got > 0);
	if (ferror(f))
		return -EIO;
	k->text[len] = '\n';
	return (long)len;
}

/*
 * Sizes the symbol array for `len` bytes of text: lines of /proc/kallsyms
 * take about 40 bytes, so it seldom grows.  Returns 0 or -ENOMEM.
 */
static int
ks_reserve(struct sym_kallsyms *k, size_t len)
{
	k->alloc = len / 32 + 64;
	k->v = reallocarray(NULL, k->alloc, sizeof(*k->v));
	return k->v ? 0 : -ENOMEM;
}

/*
 * Parses the `len` bytes of k->text (or fails with `rc`), then frees k
 * and sets errno on any error.
 */
static struct sym_kallsyms *
ks_parse(struct sym_kallsyms *k, long len, int rc, unsigned long *lineno)
{
	unsigned long no = 0;
	char *p = k->text, *end, *nl;

	end = rc ? p : p + len;
	if (rc == 0)
		rc = ks_reserve(k, (size_t)len);
	for (; rc == 0 && p < end; p = nl + 1) {
		no++;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (nl > p)
			rc = ks_parse_line(k, p, nl);
	}
	if (rc == 0)
		rc = ks_finish(k);
	if (rc < 0) {
		if (lineno)
			*lineno = no;
		sym_kallsyms_free(k);
		errno = -rc;
		return NULL;
	}
	return k;
}

struct sym_kallsyms *
sym_kallsyms_read(FILE *f, unsigned long *lineno)
{
	struct sym_kallsyms *k = calloc(1, sizeof(*k));
	long len;

	if (!k)
		return NULL;
	len = ks_slurp(k, f);
	return ks_parse(k, len < 0 ? 0 : len, len < 0 ? (int)len : 0, lineno);
}

struct sym_kallsyms *
sym_kallsyms_parse(struct sp_buf *b, unsigned long *lineno)
{
	struct sym_kallsyms *k = calloc(1, sizeof(*k));
	size_t len = b->len;
	int rc = -ENOMEM;

	if (lineno)
		*lineno = 0;
	if (!k || len >= UINT32_MAX || (rc = sp_buf_addc(b, '\n'))) {
		free(k);
		sp_buf_release(b);
		errno = k && len >= UINT32_MAX ? EFBIG : -rc;
		return NULL;
	}
	/* The text is the buffer's, with the newline as its spare byte. */
	k->text = (char *)b->data;
	k->textcap = b->alloc;
	*b = (struct sp_buf)SP_BUF_INIT;
	return ks_parse(k, (long)len, 0, lineno);
}

/* Appends "ADDR TYPE NAME[\tMODULE]\n" for symbol `s`. */
static int
ks_write_line(const struct sym_kallsyms *k, const struct sym_ksym *s,
	      struct sp_buf *out)
{
	static const char hex[] = "0123456789abcdef";
	char line[16 + 3];
	int i, rc;

	for (i = 0; i < 16; i++)
		line[i] = hex[(s->addr >> (60 - 4 * i)) & 15];
	line[16] = ' ';
	line[17] = s->module == SYM_KSYM_NOMODULE ? 'T' : 't';
	line[18] = ' ';
	rc = sp_buf_add(out, line, sizeof(line));
	if (!rc)
		rc = sp_buf_adds(out, k->text + s->name);
	if (!rc && s->module != SYM_KSYM_NOMODULE &&
	    !(rc = sp_buf_addc(out, '\t')))
		rc = sp_buf_adds(out, k->text + s->module);
	return rc ? rc : sp_buf_addc(out, '\n');
}

int
sym_kallsyms_write_image(const struct sym_kallsyms *k, struct sp_buf *out)
{
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < k->n; i++)
		if (k->v[i].module == SYM_KSYM_NOMODULE || i == 0 ||
		    k->v[i - 1].module == SYM_KSYM_NOMODULE)
			rc = ks_write_line(k, &k->v[i], out);
	return rc;
}

struct sym_kallsyms *
sym_kallsyms_load(const char *path, unsigned long *lineno)
{
	FILE *f = fopen(path, "re");
	struct sym_kallsyms *k;
	int saved;

	if (lineno)
		*lineno = 0;
	if (!f)
		return NULL;
	k = sym_kallsyms_read(f, lineno);
	saved = errno;
	fclose(f);
	errno = saved;
	return k;
}

void
sym_kallsyms_free(struct sym_kallsyms *k)
{
	if (!k)
		return;
	free(k->v);
	free(k->text);
	free(k);
}

size_t
sym_kallsyms_count(const struct sym_kallsyms *k)
{
	return k->n;
}

bool
sym_kallsyms_lookup(const struct sym_kallsyms *k, uint64_t addr,
		    const char **name, const char **module, uint64_t *start)
{
	size_t i = SP_SEARCH_LAST_LE(k->v, k->n, addr, addr);
	const struct sym_ksym *s;

	if (i == SIZE_MAX)
		return false;
	s = &k->v[i];
	*name = k->text + s->name;
	*module = s->module == SYM_KSYM_NOMODULE ? NULL : k->text + s->module;
	*start = s->addr;
	return true;
}
