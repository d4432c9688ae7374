/*
 * expand.c: folded stacks of samples (expand.h): symbol names or address
 * fallbacks (grouped unless --addrs), annotations, hidden frames, the
 * truncated marker first.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "sp-fold/model/expand.h"
#include "sp-fold/model/filter.h"
#include "sp-fold/model/group.h"
#include "common/banned.h"

/* Appends ";NAME" with ';' and control bytes made harmless. */
static int
add_clean(struct sp_buf *out, const char *s, size_t n)
{
	size_t i, at;

	at = out->len + 1;
	if (sp_buf_addc(out, ';') || sp_buf_add(out, s, n))
		return -ENOMEM;
	for (i = at; i < out->len; i++) {
		if (out->data[i] == ';')
			out->data[i] = ':';
		else if (out->data[i] < 0x20 || out->data[i] == 0x7f)
			out->data[i] = '?';
	}
	return 0;
}

static const char *
annotation(const struct fold_name_opts *o, enum sp_frame_mode mode,
	   unsigned flags, size_t index)
{
	if (o->inl && (flags & SP_SYM_INLINED || index > 0))
		return "_[i]";
	if (o->kernel && (flags & SP_SYM_KERNEL || mode == SP_FRAME_KERNEL))
		return "_[k]";
	if (o->jit && flags & SP_SYM_JIT)
		return "_[j]";
	return NULL;
}

static int
fallback(const struct fold_view *v, const struct fold_model *m,
	 const struct fold_name_opts *o, struct sp_buf *out)
{
	struct sp_buf b = SP_BUF_INIT;
	const char *ann;
	int rc;

	rc = fold_view_fallback(v, m, o->addrs, &b);
	ann = annotation(o, v->mode, 0, 0);
	if (!rc && ann)
		rc = sp_buf_adds(&b, ann);
	if (!rc)
		rc = add_clean(out, b.data ? (char *)b.data : "", b.len);
	sp_buf_release(&b);
	return rc;
}

/* Where each name comes from, when asked (fold_model_sourced). */
struct srcs {
	struct sp_buf *src, *line;
};

/*
 * Notes a name's source ("file:line" or NULL) and the first line of its
 * function, known of Python frames only (0 otherwise).
 */
static int
add_source(const struct srcs *sr, const char *source, unsigned line)
{
	if (sr->src && sp_buf_add(sr->src, &source, sizeof(source)))
		return -ENOMEM;
	return sr->line ? sp_buf_add(sr->line, &line, sizeof(line)) : 0;
}

static unsigned
python_line(const struct fold_sym *s)
{
	return s->flags & FOLD_SYM_PYTHON ? s->start_line : 0;
}

/*
 * Appends the folded names of one view, each preceded by ';', with
 * annotations; hidden frames are skipped unless --show-hidden.  With
 * `srcs`, each name's source goes there too.
 */
static int
view_names(const struct fold_view *v, const struct fold_model *m,
	   const struct fold_name_opts *o, struct sp_buf *out,
	   const struct srcs *srcs)
{
	const struct fold_sym *s;
	const char *ann, *name;
	size_t i;

	if (!v->syms->n)
		return add_source(srcs, NULL, 0) ? -ENOMEM
						 : fallback(v, m, o, out);
	for (i = 0; i < v->syms->n; i++) {
		s = &v->syms->v[i];
		if (s->flags & SP_SYM_HIDDEN && !o->show_hidden)
			continue;
		name = fold_sym_shown(s, o);
		if (add_clean(out, name, strlen(name)) ||
		    add_source(srcs, s->source, python_line(s)))
			return -ENOMEM;
		ann = annotation(o, v->mode, s->flags, i);
		if (ann && sp_buf_adds(out, ann))
			return -ENOMEM;
	}
	return 0;
}

/* The number of names view_names appends for a view. */
static size_t
view_depth(const struct fold_view *v, const struct fold_name_opts *o)
{
	size_t i, n = 0;

	if (!v->syms->n)
		return 1;
	for (i = 0; i < v->syms->n; i++)
		n += !(v->syms->v[i].flags & SP_SYM_HIDDEN) || o->show_hidden;
	return n;
}

/* How many symbols of a view, outermost first, hold `budget` names. */
static size_t
syms_upto(const struct fold_view *v, const struct fold_name_opts *o,
	  size_t budget)
{
	size_t i, shown = 0;

	for (i = 0; i < v->syms->n && shown < budget; i++)
		shown +=
		    !(v->syms->v[i].flags & SP_SYM_HIDDEN) || o->show_hidden;
	return i;
}

size_t
fold_depth_keep(const struct fold_model *m, const struct fold_name_opts *o,
		const uint32_t *ids, size_t n, int32_t pid, size_t *upto)
{
	struct fold_view v;
	size_t i, depth = 0, d;

	*upto = 0;
	if (!o->filter.max_depth)
		return n;
	for (i = 0; i < n; i++) {
		fold_model_view(m, ids[i], pid, &v);
		d = view_depth(&v, o);
		if (depth + d > o->filter.max_depth) {
			if (v.syms->n && depth < o->filter.max_depth)
				*upto = syms_upto(&v, o,
						  o->filter.max_depth - depth);
			return i;
		}
		depth += d;
	}
	return n;
}

static bool
is_truncated(const struct fold_view *v)
{
	return v->mode == SP_FRAME_TRUNCATED ||
	       (v->syms->n && v->syms->v[0].flags & SP_SYM_TRUNCATED);
}

/* Appends the comm frame: NAME[-PID[/TID]] with spaces as '_'. */
static int
add_comm(struct sp_buf *out, const struct fold_name_opts *o, const char *comm,
	 int32_t pid, uint64_t tid)
{
	size_t at = out->len, i;
	int rc;

	if (comm)
		rc = sp_buf_adds(out, comm);
	else
		rc = sp_buf_addf(out, ":%" PRIu64, tid);
	if (!rc && (o->pid || o->tid))
		rc = sp_buf_addf(out, "-%" PRId32, pid);
	if (!rc && o->tid)
		rc = sp_buf_addf(out, "/%" PRIu64, tid);
	for (i = at; i < out->len; i++)
		if (out->data[i] == ' ' || out->data[i] == ';')
			out->data[i] = out->data[i] == ' ' ? '_' : ':';
	return rc;
}

/*
 * Appends ";frame..." of a stack as process `pid` sees it, root first,
 * the truncated marker before the rest.
 */
static int
model_names(const struct fold_model *m, const struct fold_name_opts *o,
	    int32_t pid, uint32_t stack, struct sp_buf *out,
	    const struct srcs *srcs)
{
	struct sp_buf ids = SP_BUF_INIT;
	struct fold_view v;
	const uint32_t *id;
	size_t n, i;
	int pass, rc = fold_model_walk(m, stack, &ids);

	id = (const uint32_t *)ids.data;
	n = ids.len / sizeof(uint32_t);
	for (pass = 0; !rc && pass < 2; pass++) {
		for (i = 0; !rc && i < n; i++) {
			fold_model_view(m, id[i], pid, &v);
			if (is_truncated(&v) == (pass == 0))
				rc = view_names(&v, m, o, out, srcs);
		}
	}
	sp_buf_release(&ids);
	return rc;
}

int
fold_model_sourced(const struct fold_model *m, const struct fold_name_opts *o,
		   const char *comm, int32_t pid, uint64_t tid, uint32_t stack,
		   struct sp_buf *out, struct sp_buf *srcs,
		   struct sp_buf *lines, bool *keep)
{
	struct srcs sr = { srcs, lines };
	size_t skip = 0;
	int rc = 0;

	sp_buf_reset(out);
	if (srcs)
		sp_buf_reset(srcs);
	if (lines)
		sp_buf_reset(lines);
	if (!o->no_comm)
		rc = add_comm(out, o, comm, pid, tid) ||
		     add_source(&sr, NULL, 0);
	if (!rc && stack != SP_NONE)
		rc = model_names(m, o, pid, stack, out, &sr);
	if (rc)
		return -ENOMEM;
	if (o->no_comm && out->len)
		skip = 1;
	sp_buf_consume(out, skip);
	/* The comm is the process's to choose: --live prints this line. */
	fold_clean_controls(out->data, out->len);
	*keep = out->len && fold_filter_frames(&o->filter, !o->no_comm,
					       (char *)out->data, &out->len);
	return 0;
}

int
fold_model_folded(const struct fold_model *m, const struct fold_name_opts *o,
		  const char *comm, int32_t pid, uint64_t tid, uint32_t stack,
		  struct sp_buf *out, bool *keep)
{
	return fold_model_sourced(m, o, comm, pid, tid, stack, out, NULL, NULL,
				  keep);
}

int
fold_model_add(const struct fold_model *m, const struct fold_name_opts *o,
	       struct fold_set *set, const char *comm, int32_t pid,
	       uint64_t tid, uint32_t stack, uint64_t count, struct sp_buf *tmp)
{
	bool keep = false;
	int rc;

	rc = fold_model_folded(m, o, comm, pid, tid, stack, tmp, &keep);
	if (!rc && keep)
		rc = fold_set_add(set, (char *)tmp->data, tmp->len, count);
	return rc;
}
