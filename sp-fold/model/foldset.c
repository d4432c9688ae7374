/* foldset.c: the set of folded stacks and their counts (foldset.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/htab.h"
#include "sp-fold/model/foldset.h"
#include "common/banned.h"

struct fold_set {
	struct sp_htab *h;
	struct fold_line *lines;
	size_t nlines;
	uint64_t total;
	struct sp_buf clean; /* a stack whose control bytes became '?' */
};

/*
 * Whether b[i] starts a control: a C0 byte, DEL, or a C1 control in
 * UTF-8 (C2 80 to C2 9F), which terminals act on too.  Returns its
 * length, or 0.
 */
static size_t
control_at(const uint8_t *b, size_t i, size_t n)
{
	if (b[i] < 0x20 || b[i] == 0x7f)
		return 1;
	if (b[i] == 0xc2 && i + 1 < n && b[i + 1] >= 0x80 && b[i + 1] < 0xa0)
		return 2;
	return 0;
}

static size_t
first_control(const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n && !control_at(b, i, n); i++)
		;
	return i;
}

void
fold_clean_controls(uint8_t *b, size_t n)
{
	size_t i, k;

	for (i = first_control(b, n); i < n; i++) {
		k = control_at(b, i, n);
		if (k == 2)
			b[i++] = '?';
		if (k)
			b[i] = '?';
	}
}

/*
 * The stack with each control as '?', as sp-fold(1) promises: the names
 * come from the profiled processes, which choose them.  Returns `stack`
 * itself when it holds none, or NULL when out of memory.
 */
static const char *
cleaned(struct fold_set *s, const char *stack, size_t len)
{
	if (first_control((const uint8_t *)stack, len) == len)
		return stack;
	sp_buf_reset(&s->clean);
	if (sp_buf_add(&s->clean, stack, len))
		return NULL;
	fold_clean_controls(s->clean.data, len);
	return (const char *)s->clean.data;
}

struct fold_set *
fold_set_new(void)
{
	struct fold_set *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->h = sp_htab_new();
	if (!s->h) {
		free(s);
		return NULL;
	}
	return s;
}

void
fold_set_free(struct fold_set *s)
{
	if (!s)
		return;
	sp_htab_free(s->h);
	free(s->lines);
	sp_buf_release(&s->clean);
	free(s);
}

int
fold_set_add(struct fold_set *s, const char *stack, size_t len, uint64_t n)
{
	uint64_t *slot;

	/* Every count and sum is at most the total: one check for all. */
	if (n > UINT64_MAX - s->total)
		return -EOVERFLOW;
	stack = cleaned(s, stack, len);
	slot = stack ? sp_htab_slot(s->h, stack, len, 0, NULL) : NULL;
	if (!slot)
		return -ENOMEM;
	*slot += n;
	s->total += n;
	return 0;
}

uint64_t
fold_set_total(const struct fold_set *s)
{
	return s->total;
}

static int
line_cmp(const void *a, const void *b)
{
	const struct fold_line *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->stack, y->stack, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

int
fold_set_lines(struct fold_set *s, const struct fold_line **lines, size_t *n)
{
	size_t pos = 0, i = 0, len;
	const void *key;
	uint64_t val;

	free(s->lines);
	s->nlines = sp_htab_count(s->h);
	s->lines = calloc(s->nlines ? s->nlines : 1, sizeof(*s->lines));
	if (!s->lines)
		return -ENOMEM;
	while (sp_htab_next(s->h, &pos, &key, &len, &val)) {
		s->lines[i].stack = key;
		s->lines[i].len = len;
		s->lines[i].count = val;
		i++;
	}
	qsort(s->lines, s->nlines, sizeof(*s->lines), line_cmp);
	*lines = s->lines;
	*n = s->nlines;
	return 0;
}
