/* diff.c: differential profiles (diff.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "sp-fold/model/diff.h"
#include "common/banned.h"

static int
cmp_stacks(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	return c ? c : (an > bn) - (an < bn);
}

/* A merge of the two sorted line arrays. */
static void
merge(const struct fold_line *a, size_t na, const struct fold_line *b,
      size_t nb, struct fold_diff_line *out, size_t *n)
{
	size_t i = 0, j = 0, k = 0;
	int c;

	while (i < na || j < nb) {
		c = i == na   ? 1
		    : j == nb ? -1
			      : cmp_stacks(a[i].stack, a[i].len, b[j].stack,
					   b[j].len);
		if (c <= 0)
			out[k] = (struct fold_diff_line){ a[i].stack, a[i].len,
							  a[i].count, 0 };
		else
			out[k] = (struct fold_diff_line){ b[j].stack, b[j].len,
							  0, b[j].count };
		if (c == 0)
			out[k].after = b[j].count;
		i += c <= 0;
		j += c >= 0;
		k++;
	}
	*n = k;
}

int
fold_diff(struct fold_set *before, struct fold_set *after, bool normalize,
	  struct fold_diff_line **lines, size_t *n)
{
	const struct fold_line *a, *b;
	uint64_t t1 = fold_set_total(before), t2 = fold_set_total(after);
	size_t na, nb, i;

	/* The arrays stay valid: neither set is added to while we read. */
	if (fold_set_lines(before, &a, &na) || fold_set_lines(after, &b, &nb))
		return -ENOMEM;
	*lines = calloc(na + nb + 1, sizeof(**lines));
	if (!*lines)
		return -ENOMEM;
	merge(a, na, b, nb, *lines, n);
	if (!normalize || !t1 || t1 == t2)
		return 0;
	for (i = 0; i < *n; i++)
		(*lines)[i].before =
		    (uint64_t)((long double)(*lines)[i].before * t2 / t1);
	return 0;
}

static bool
is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

/* Appends `s` with every "0x" and the hex digits after it as "0x...". */
static int
strip(struct sp_buf *b, const char *s, size_t n)
{
	size_t i = 0, j;

	sp_buf_reset(b);
	while (i < n) {
		if (i + 2 < n && s[i] == '0' && s[i + 1] == 'x' &&
		    is_hex(s[i + 2])) {
			for (j = i + 2; j < n && is_hex(s[j]); j++)
				;
			if (sp_buf_adds(b, "0x..."))
				return -ENOMEM;
			i = j;
			continue;
		}
		if (sp_buf_addc(b, (uint8_t)s[i++]))
			return -ENOMEM;
	}
	return 0;
}

struct fold_set *
fold_set_strip_hex(struct fold_set *s)
{
	struct fold_set *out = fold_set_new();
	struct sp_buf b = SP_BUF_INIT;
	const struct fold_line *l;
	size_t n, i;
	int rc = out ? fold_set_lines(s, &l, &n) : -ENOMEM;

	for (i = 0; !rc && i < n; i++) {
		rc = strip(&b, l[i].stack, l[i].len);
		if (!rc)
			rc = fold_set_add(out, b.data ? (char *)b.data : "",
					  b.len, l[i].count);
	}
	sp_buf_release(&b);
	if (rc) {
		fold_set_free(out);
		return NULL;
	}
	return out;
}
