/*
 * read_ps_lines.c: folds the text `perf script` prints, with the rules of
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
#include <string.h>

#include "common/grow.h"
#include "common/buf.h"
#include "common/records.h"
#include "sp-fold/model/filter.h"
#include "sp-fold/read/read_perfscript.h"
#include "sp-fold/read/read_ps_match.h"
#include "sp-fold/read/read_ps_state.h"
#include "common/banned.h"

static int
unknown_name(struct sp_buf *b, const struct fold_ps *st, struct fold_span pc,
	     struct fold_span mod)
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
	if (st->o->name.addrs &&
	    (sp_buf_adds(b, " <") || sp_buf_add(b, pc.p, pc.n) ||
	     sp_buf_addc(b, '>')))
		return -ENOMEM;
	return sp_buf_addc(b, ']');
}

static const char *
annotation(const struct fold_ps *st, const struct sp_buf *b, unsigned index,
	   struct fold_span mod)
{
	const char *s = (const char *)b->data;

	if (index > 0)
		return fold_ps_contains(s, b->len, "_[i]") ? NULL : "_[i]";
	if (st->o->name.kernel && fold_ps_is_kernel_module(mod))
		return "_[k]";
	if (st->o->name.jit && fold_ps_is_jit_module(mod))
		return fold_ps_contains(s, b->len, "_[j]") ? NULL : "_[j]";
	return NULL;
}

/* Makes one name of a frame line in st->tmp: tidied and annotated. */
static int
make_name(struct fold_ps *st, struct fold_span part, struct fold_span pc,
	  struct fold_span mod, unsigned index)
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
append_name(struct fold_ps *st, const void *name, size_t n, unsigned index)
{
	if (index > 0 && sp_buf_addc(&st->frames, ';'))
		return -ENOMEM;
	return sp_buf_add(&st->frames, name, n);
}

/* Appends one name of a frame line to st->frames. */
static int
add_name(struct fold_ps *st, struct fold_span part, struct fold_span pc,
	 struct fold_span mod, unsigned index)
{
	int rc = make_name(st, part, pc, mod, index);

	return rc ? rc : append_name(st, st->tmp.data, st->tmp.len, index);
}

static int
push_mark(struct fold_ps *st, unsigned count)
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
queue_name(struct fold_ps *st, struct fold_span part, struct fold_span pc,
	   struct fold_span mod, unsigned index)
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
flush_queue(struct fold_ps *st)
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
src_line(struct fold_ps *st, const char *s, size_t n)
{
	const struct fold_ps_pending *q = &st->q[st->qhead];
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

/* One frame line: its names, split at "->" for inlined functions, or
 * with --inline those addr2line gives, taken as they come. */
static int
frame_line(struct fold_ps *st, struct fold_span pc, struct fold_span func,
	   struct fold_span mod)
{
	const char *p, *end, *arrow;
	unsigned count = 0;
	size_t i;
	int rc = 0;

	if (st->inl) {
		if ((rc = fold_psinl_names(st->inl, pc, func, mod, &p, &i)))
			return rc;
		if (i)
			return append_name(st, p, i, 0) ? -ENOMEM
							: push_mark(st, 1);
	}
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
			rc = queue_name(
			    st, (struct fold_span){ p, (size_t)(arrow - p) },
			    pc, mod, count++);
		else
			rc = add_name(
			    st, (struct fold_span){ p, (size_t)(arrow - p) },
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
sample_weight(const struct fold_ps *st, struct fold_span period)
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
event_skipped(struct fold_ps *st, const char *s, size_t n)
{
	struct fold_span ev, period;

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
header_line(struct fold_ps *st, const char *s, size_t n, struct fold_span comm,
	    struct fold_span pid, struct fold_span tid)
{
	struct sp_buf *b = &st->pname;
	size_t i;
	int rc = 0;

	if (event_skipped(st, s, n))
		return 0;
	if (!tid.n || fold_ps_span_eq(tid, "0")) {
		tid = pid;
		pid = (struct fold_span){ "?", 1 };
	}
	sp_buf_reset(b);
	rc |= sp_buf_add(b, comm.p, comm.n);
	if (st->o->name.tid || st->o->name.pid) {
		rc |= sp_buf_addc(b, '-');
		rc |= sp_buf_add(b, pid.p, pid.n);
	}
	if (st->o->name.tid) {
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

static int
add_stack(struct fold_ps *st, struct sp_buf *b)
{
	if (!fold_filter_frames(&st->o->name.filter, !st->o->name.no_comm,
				(char *)b->data, &b->len))
		return 0;
	return fold_set_add(st->set, (char *)b->data, b->len, st->weight);
}

void
fold_ps_sample_done(struct fold_ps *st)
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
end_sample(struct fold_ps *st)
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
		rc = fold_ps_cache_put(st, (char *)b->data + st->pname.len,
				       b->len - st->pname.len);
	if (!rc)
		rc = add_stack(st, b);
	fold_ps_sample_done(st);
	return rc ? -ENOMEM : 0;
}

/* Names an unrecognized line, escaped: input never reaches a terminal raw. */
static void
warn_line(const struct fold_ps *st, const char *s, size_t n)
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

int
fold_ps_line(struct fold_ps *st, const char *s, size_t n)
{
	struct fold_span a, b, c;

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
	if (st->unrecognized++ < FOLD_PS_MAX_WARN)
		warn_line(st, s, n);
	return 0;
}
