/*
 * read_ps_match.c: the line patterns of `perf script` text and the name
 * tidying of stackcollapse-perf.pl (read_ps_match.h), matched by hand with the
 * backtracking its regular expressions would do.
 */
#include <stdbool.h>
#include <string.h>

#include "common/buf.h"
#include "sp-fold/read/read_ps_match.h"
#include "common/banned.h"

bool
fold_ps_span_eq(struct fold_span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n == n && !memcmp(s.p, lit, n);
}

/*
 * The sample header, "^(\S.+?)\s+(\d+)" then slashes, "(\d+)*\s+", with
 * the comm as short as possible.  tid is empty when the line has one
 * number.
 */
bool
fold_ps_match_header(const char *s, size_t n, struct fold_span *comm,
		     struct fold_span *pid, struct fold_span *tid)
{
	size_t e, i, d;

	if (n < 2 || is_space(s[0]))
		return false;
	for (e = 2; e < n; e++) {
		if (!is_space(s[e]))
			continue;
		for (i = e; i < n && is_space(s[i]); i++)
			;
		for (d = i; i < n && is_digit(s[i]); i++)
			;
		if (i == d)
			continue;
		*pid = (struct fold_span){ s + d, i - d };
		while (i < n && s[i] == '/')
			i++;
		for (d = i; i < n && is_digit(s[i]); i++)
			;
		*tid = (struct fold_span){ s + d, i - d };
		if (i < n && is_space(s[i])) {
			*comm = (struct fold_span){ s, e };
			return true;
		}
	}
	return false;
}

/* The event of a header line: /:\s*(\d+)*\s+(\S+):\s*$/ */
bool
fold_ps_match_event(const char *s, size_t n, struct fold_span *ev,
		    struct fold_span *period)
{
	size_t t = n, u, i, d;

	while (t > 0 && is_space(s[t - 1]))
		t--;
	if (t < 2 || s[t - 1] != ':')
		return false;
	for (u = t - 1; u > 0 && !is_space(s[u - 1]); u--)
		;
	if (u == t - 1 || u == 0)
		return false;
	for (i = u; i > 0 && is_space(s[i - 1]); i--)
		;
	d = i;
	while (i > 0 && is_digit(s[i - 1]))
		i--;
	*period = (struct fold_span){ s + i, d - i };
	while (i > 0 && is_space(s[i - 1]))
		i--;
	if (i == 0 || s[i - 1] != ':')
		return false;
	*ev = (struct fold_span){ s + u, t - 1 - u };
	return true;
}

/* Whether " (MOD)" starts at p; sets the module span. */
bool
fold_ps_module_at(const char *s, size_t n, size_t p, struct fold_span *mod)
{
	size_t i, q = 0;
	bool found = false;

	if (s[p] != ' ' || s[p + 1] != '(')
		return false;
	for (i = p + 2; i < n && !is_space(s[i]); i++) {
		if (s[i] == ')') {
			q = i;
			found = true;
		}
	}
	if (found)
		*mod = (struct fold_span){ s + p + 2, q - p - 2 };
	return found;
}

/* A frame line: ^\s*(\w+)\s*(.+) \((\S*)\) */
bool
fold_ps_match_frame(const char *s, size_t n, struct fold_span *pc,
		    struct fold_span *func, struct fold_span *mod)
{
	size_t ws = 0, we, wsend, p, start;

	while (ws < n && is_space(s[ws]))
		ws++;
	for (we = ws; we < n && is_word(s[we]); we++)
		;
	if (we == ws)
		return false;
	for (wsend = we; wsend < n && is_space(s[wsend]); wsend++)
		;
	if (n < ws + 5)
		return false;
	for (p = n - 3; !fold_ps_module_at(s, n, p, mod); p--)
		if (p == ws + 2)
			return false;
	start = wsend < p - 1 ? wsend : p - 1;
	*pc = (struct fold_span){ s + ws, (we < start ? we : start) - ws };
	*func = (struct fold_span){ s + start, p - start };
	return true;
}

bool
fold_ps_contains(const char *s, size_t n, const char *lit)
{
	return memmem(s, n, lit, strlen(lit)) != NULL;
}

/* A Go method name such as "net/http.(*Client).Do": \.\(.*\)\. */
bool
fold_ps_is_go_method(const char *s, size_t n)
{
	const char *a = memmem(s, n, ".(", 2);
	size_t i;

	if (!a)
		return false;
	for (i = n; i >= 2 && s + i - 2 >= a + 2; i--)
		if (s[i - 2] == ')' && s[i - 1] == '.')
			return true;
	return false;
}

/* The generic tidying of stackcollapse-perf.pl, in place. */
void
fold_ps_tidy(struct sp_buf *b)
{
	static const char anon[] = "anonymous namespace)";
	char *s = (char *)b->data;
	size_t i, j;
	bool go;

	for (i = 0; i < b->len; i++)
		if (s[i] == ';')
			s[i] = ':';
	go = fold_ps_is_go_method(s, b->len);
	for (i = 0; !go && i < b->len; i++) {
		if (s[i] == '(' &&
		    (b->len - i - 1 < sizeof(anon) - 1 ||
		     memcmp(s + i + 1, anon, sizeof(anon) - 1))) {
			b->len = i;
			break;
		}
	}
	for (i = j = 0; i < b->len; i++)
		if (s[i] != '"' && s[i] != '\'')
			s[j++] = s[i];
	b->len = j;
	s[j] = 0;
}

bool
fold_ps_is_kernel_module(struct fold_span mod)
{
	return mod.n &&
	       (mod.p[0] == '[' ||
		(mod.n >= 7 && !memcmp(mod.p + mod.n - 7, "vmlinux", 7))) &&
	       !fold_ps_contains(mod.p, mod.n, "unknown");
}

/* m:/tmp/perf-\d+\.map: anywhere in the module path */
bool
fold_ps_is_jit_module(struct fold_span mod)
{
	const char *p = mod.p, *end = mod.p + mod.n, *q;

	while ((q = memmem(p, (size_t)(end - p), "/tmp/perf-", 10))) {
		p = q + 10;
		for (q = p; q < end && is_digit(*q); q++)
			;
		if (q > p && end - q >= 4 && !memcmp(q, ".map", 4))
			return true;
	}
	return false;
}
