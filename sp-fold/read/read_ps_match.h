/*
 * read_ps_match.h: the patterns of `perf script` lines (sample header, event,
 * frame line, module) and the name tidying of stackcollapse-perf.pl, for
 * read_ps_lines.c.  Spans point into the caller's line.
 */
#ifndef SP_FOLD_READ_READ_PS_MATCH_H
#define SP_FOLD_READ_READ_PS_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

/* A span of the current line. */
struct fold_span {
	const char *p;
	size_t n;
};

static inline bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '\v';
}

static inline bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool
is_word(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool
is_lhex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

/* Whether the span holds exactly the string `lit`. */
bool fold_ps_span_eq(struct fold_span s, const char *lit);
/* Whether `lit` occurs in s[0..n). */
bool fold_ps_contains(const char *s, size_t n, const char *lit);
/* A sample header ("comm 12/34 [000] 1.5: ..."): sets comm, pid, tid. */
bool fold_ps_match_header(const char *s, size_t n, struct fold_span *comm,
			  struct fold_span *pid, struct fold_span *tid);
/* The event of a header (":  PERIOD EVENT:" at the end) and its period
 * digits (empty when none). */
bool fold_ps_match_event(const char *s, size_t n, struct fold_span *ev,
			 struct fold_span *period);
/* Whether " (MOD)" starts at p; sets the module span. */
bool fold_ps_module_at(const char *s, size_t n, size_t p,
		       struct fold_span *mod);
/* A frame line: ^\s*(\w+)\s*(.+) \((\S*)\) sets pc, func, mod. */
bool fold_ps_match_frame(const char *s, size_t n, struct fold_span *pc,
			 struct fold_span *func, struct fold_span *mod);
/* Whether a name looks like a Go method ("net/http.(*Client).Do"). */
bool fold_ps_is_go_method(const char *s, size_t n);
/* Tidies a name as the script's generic rules do, in place. */
void fold_ps_tidy(struct sp_buf *b);
/* Whether a module is the kernel's or a kernel module's. */
bool fold_ps_is_kernel_module(struct fold_span mod);
/* Whether a module is a JIT perf map (/tmp/perf-PID.map). */
bool fold_ps_is_jit_module(struct fold_span mod);

#endif
