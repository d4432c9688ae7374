/*
 * pymerge.c: Python frames merged into native stacks (pymerge.h).  A
 * merge is worked out once per distinct (stack, process, Python part)
 * and kept, so its cost grows with distinct stacks, not with samples.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/names.h"
#include "sp-fold/model/pymerge.h"
#include "common/banned.h"

/*
 * The interpreter's call glue, CPython 3.8 to 3.13: the functions that
 * take a call from one evaluator frame to the next (vectorcall and its
 * helpers, method and builtin call adapters, generator resumption, the
 * perf trampoline's evaluator) and the evaluator itself.  A C function
 * that calls back into Python (builtin_sorted, a C extension) is no glue.
 */
static const char *const glue[] = {
	"PyEval_EvalCode",
	"PyEval_EvalCodeEx",
	"PyIter_Next",
	"PyObject_Call",
	"PyObject_CallObject",
	"PyObject_CallOneArg",
	"PyObject_Vectorcall",
	"PyObject_VectorcallDict",
	"PyObject_VectorcallMethod",
	"_PyEval_EvalCode",
	"_PyEval_EvalCodeWithName",
	"_PyEval_EvalFrame",
	"_PyEval_EvalFrameDefault",
	"_PyEval_Vector",
	"_PyFunction_FastCallDict",
	"_PyFunction_Vectorcall",
	"_PyObject_Call",
	"_PyObject_Call_Prepend",
	"_PyObject_FastCallDictTstate",
	"_PyObject_MakeTpCall",
	"_PyObject_Vectorcall",
	"_PyObject_VectorcallTstate",
	"call_function",
	"cfunction_call",
	"cfunction_vectorcall_*",
	"do_call_core",
	"function_code_fastcall",
	"gen_iternext",
	"gen_send_ex",
	"gen_send_ex2",
	"method_vectorcall",
	"method_vectorcall_*",
	"py_trampoline_evaluator",
	"slot_tp_call",
	"vectorcall_method",
	"vectorcall_unbound",
};

#define EVALUATOR "_PyEval_EvalFrameDefault"
#define TRAMPOLINE "py_trampoline_evaluator"

/*
 * Whether `name` is `want`, up to a clone suffix (".cold", ".isra.0");
 * a `want` ending in '*' is a prefix of C identifiers.
 */
static bool
same_function(const char *name, const char *want)
{
	size_t n = strlen(want);

	if (n && want[n - 1] == '*')
		return !strncmp(name, want, n - 1) &&
		       strcspn(name + n - 1, ".") > 0;
	return !strncmp(name, want, n) && (name[n] == '\0' || name[n] == '.');
}

bool
fold_pymerge_glue(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(glue) / sizeof(glue[0]); i++)
		if (same_function(name, glue[i]))
			return true;
	return false;
}

int
fold_pymerge_init(struct fold_pymerge *pm)
{
	memset(pm, 0, sizeof(*pm));
	pm->cache = sp_htab_new();
	return pm->cache ? 0 : -ENOMEM;
}

void
fold_pymerge_release(struct fold_pymerge *pm)
{
	sp_htab_free(pm->cache);
	sp_buf_release(&pm->ids);
	sp_buf_release(&pm->seq);
	sp_buf_release(&pm->chain);
	sp_buf_release(&pm->key);
}

void
fold_pymerge_note_symbol(struct fold_pymerge *pm, const char *name)
{
	if (same_function(name, TRAMPOLINE))
		pm->trampolines = true;
}

/* Whether every symbol of a frame is glue (a frame without one is not). */
static bool
is_glue(const struct fold_model *m, uint32_t frame, int32_t pid)
{
	struct fold_view v;
	size_t i;

	fold_model_view(m, frame, pid, &v);
	for (i = 0; i < v.syms->n; i++)
		if (!fold_pymerge_glue(v.syms->v[i].name))
			return false;
	return v.syms->n > 0;
}

/* Whether a frame's function (its outermost symbol) is `want`. */
static bool
is_named(const struct fold_model *m, uint32_t frame, int32_t pid,
	 const char *want)
{
	struct fold_view v;

	fold_model_view(m, frame, pid, &v);
	return v.syms->n && same_function(v.syms->v[0].name, want);
}

static int
emit(struct fold_pymerge *pm, uint32_t frame)
{
	return sp_buf_add(&pm->seq, &frame, sizeof(frame));
}

/* The made frame of a Python node: its code at its line. */
static int
py_frame(struct fold_model *m, const struct fold_pynode *node, uint32_t *out)
{
	const struct fold_pycode *c = &m->py.codes[node->code];
	struct fold_sym s = { 0 };
	uint32_t key[2] = { node->code, (uint32_t)node->line };
	char *source = NULL;
	uint64_t id;
	int rc;

	if (sp_htab_get(m->py.frame_idx, key, sizeof(key), &id)) {
		*out = (uint32_t)id;
		return 0;
	}
	if (*c->file && node->line >= 0)
		rc = asprintf(&source, "%s:%d", c->file, node->line) < 0;
	else
		rc = *c->file && !(source = strdup(c->file));
	if (rc)
		return -ENOMEM;
	s.name = c->name;
	s.source = source;
	s.flags = FOLD_SYM_PYTHON;
	s.start_line = c->firstline;
	rc = fold_model_xframe(m, SP_FRAME_USER, &s, out);
	free(source);
	if (!rc && sp_htab_put(m->py.frame_idx, key, sizeof(key), *out))
		rc = -ENOMEM;
	return rc;
}

/* The made frame of the truncated marker, one per model. */
static int
marker_frame(struct fold_model *m, uint32_t *out)
{
	struct fold_sym s = { .name = (char *)SP_TRUNCATED_NAME,
			      .flags = SP_SYM_TRUNCATED };

	if (m->py.marker != SP_NONE) {
		*out = m->py.marker;
		return 0;
	}
	if (fold_model_xframe(m, SP_FRAME_TRUNCATED, &s, out))
		return -ENOMEM;
	m->py.marker = *out;
	return 0;
}

/*
 * A Python stack cut into evaluator groups: `chain` holds its node ids
 * outermost first; group g runs from start[g] to start[g + 1] (the end
 * for the last), and the nodes before start[0] lost their entry frame
 * to a truncation.
 */
struct groups {
	const uint32_t *chain;
	size_t n, ng;
	size_t start[SP_PYSTACK_GROUPS_MAX];
};

/* Cuts the chain of `leaf` into groups; -EBADMSG when they are too many. */
static int
py_groups(struct fold_pymerge *pm, const struct fold_pytab *t, uint32_t leaf,
	  struct groups *g)
{
	uint32_t *v, x;
	size_t i;

	sp_buf_reset(&pm->chain);
	for (x = leaf; x != SP_NONE; x = t->nodes[x].prefix)
		if (sp_buf_add(&pm->chain, &x, sizeof(x)))
			return -ENOMEM;
	v = (uint32_t *)pm->chain.data;
	g->n = pm->chain.len / sizeof(*v);
	for (i = 0; i < g->n / 2; i++) {
		x = v[i];
		v[i] = v[g->n - 1 - i];
		v[g->n - 1 - i] = x;
	}
	g->chain = v;
	g->ng = 0;
	for (i = 0; i < g->n; i++) {
		if (!t->nodes[v[i]].entry)
			continue;
		if (g->ng == SP_PYSTACK_GROUPS_MAX)
			return -EBADMSG;
		g->start[g->ng++] = i;
	}
	return 0;
}

/* Emits the Python frames of chain[from, to). */
static int
emit_py(struct fold_pymerge *pm, struct fold_model *m, const struct groups *g,
	size_t from, size_t to)
{
	uint32_t frame;

	for (; from < to; from++)
		if (py_frame(m, &m->py.nodes[g->chain[from]], &frame) ||
		    emit(pm, frame))
			return -ENOMEM;
	return 0;
}

/*
 * Whether frame i is one of a -X perf process's two frames under the
 * evaluator frame at `at` (py_trampoline_evaluator, then the trampoline
 * named after the Python function): the Python frames say it already.
 */
static bool
under_trampoline(const struct fold_model *m, int32_t pid, const uint32_t *ids,
		 size_t i, size_t at)
{
	if (at < 2 || i + 2 < at || i >= at ||
	    !is_named(m, ids[at - 2], pid, TRAMPOLINE))
		return false;
	return !is_glue(m, ids[at - 1], pid);
}

/*
 * The merge of native frames ids[0, n) (root first) with `ps`: 0, -ENOMEM,
 * or -EBADMSG when its groups do not fit the stack (shown native only).
 */
static int
merge_py(struct fold_pymerge *pm, struct fold_model *m,
	 const struct fold_name_opts *o, int32_t pid, const uint32_t *ids,
	 size_t n, const struct sp_ext_pystack *ps)
{
	struct groups g;
	size_t i, k = 0, pos[SP_PYSTACK_GROUPS_MAX], lo, hi;
	uint32_t marker = SP_NONE;
	int rc = py_groups(pm, &m->py, ps->leaf, &g);

	if (rc)
		return rc;
	if (g.ng != ps->ngroups)
		return -EBADMSG;
	for (i = 0; i < g.ng; i++) {
		if (ps->index[i] >= n ||
		    (i && ps->index[i] >= ps->index[i - 1]))
			return -EBADMSG;
		pos[i] = n - 1 - ps->index[i];
	}
	lo = g.ng ? pos[0] : n;
	hi = g.ng ? pos[g.ng - 1] : 0;
	/*
	 * A Python chain cut at its outer end lost frames between the native
	 * root, which the unwinder reached, and its first group: the marker
	 * goes there, not at the root, which is whole.
	 */
	if (ps->flags & SP_PYSTACK_TRUNCATED && marker_frame(m, &marker))
		return -ENOMEM;
	for (i = 0; !rc && i < n; i++) {
		if (!o->interpreter_frames && k < g.ng &&
		    under_trampoline(m, pid, ids, i, pos[k]))
			continue;
		if (k < g.ng && i == pos[k]) {
			if (o->interpreter_frames)
				rc = emit(pm, ids[i]);
			if (!rc && k == 0 && ps->flags & SP_PYSTACK_TRUNCATED)
				rc = emit(pm, marker);
			/* A group cut from its entry goes under the first. */
			if (!rc)
				rc = emit_py(pm, m, &g, k ? g.start[k] : 0,
					     k + 1 < g.ng ? g.start[k + 1]
							  : g.n);
			k++;
		} else if (o->interpreter_frames || i <= lo || i >= hi ||
			   !is_glue(m, ids[i], pid))
			rc = emit(pm, ids[i]);
	}
	return rc;
}

/*
 * The -X perf stack ids[0, n) without its glue: a frame called by
 * py_trampoline_evaluator is a Python function's trampoline, and the
 * glue goes from the evaluator under the outermost to the one over the
 * innermost.  Returns 0 or -ENOMEM.
 */
static int
merge_perf(struct fold_pymerge *pm, const struct fold_model *m, int32_t pid,
	   const uint32_t *ids, size_t n)
{
	size_t i, lo = SIZE_MAX, hi = 0;
	bool *tramp = calloc(n + 1, sizeof(*tramp));
	int rc = 0;

	if (!tramp)
		return -ENOMEM;
	for (i = 1; i < n; i++) {
		if (!is_named(m, ids[i - 1], pid, TRAMPOLINE) ||
		    is_glue(m, ids[i], pid))
			continue;
		tramp[i] = true;
		lo = lo == SIZE_MAX ? i - 1 : lo;
		hi = i + 1 < n && is_named(m, ids[i + 1], pid, EVALUATOR)
			 ? i + 1
			 : i;
	}
	for (i = 0; !rc && i < n; i++)
		if (lo == SIZE_MAX || i < lo || i > hi || tramp[i] ||
		    !is_glue(m, ids[i], pid))
			rc = emit(pm, ids[i]);
	free(tramp);
	return rc;
}

/* Makes the stack of the frames in pm->seq; *out is it. */
static int
make_stack(struct fold_pymerge *pm, struct fold_model *m, uint32_t *out)
{
	const uint32_t *f = (const uint32_t *)pm->seq.data;
	size_t i, n = pm->seq.len / sizeof(*f);

	*out = SP_NONE;
	for (i = 0; i < n; i++)
		if (fold_model_xstack(m, *out, f[i], out))
			return -ENOMEM;
	return 0;
}

/*
 * The merge of a stack not cached yet: 1 when its Python part is shown
 * native only (the -X perf glue still hidden: the trampolines name the
 * Python functions without the Python part).
 */
static int
merge(struct fold_pymerge *pm, struct fold_model *m,
      const struct fold_name_opts *o, int32_t pid, uint32_t stack,
      const struct sp_ext_pystack *ps, uint32_t *out)
{
	const uint32_t *ids;
	size_t n;
	int rc = 0, native_only = 0;

	sp_buf_reset(&pm->ids);
	sp_buf_reset(&pm->seq);
	*out = stack;
	if (stack != SP_NONE && fold_model_walk(m, stack, &pm->ids))
		return -ENOMEM;
	ids = (const uint32_t *)pm->ids.data;
	n = pm->ids.len / sizeof(*ids);
	if (ps && !(ps->flags & SP_PYSTACK_INCONSISTENT))
		rc = merge_py(pm, m, o, pid, ids, n, ps);
	if (ps && (ps->flags & SP_PYSTACK_INCONSISTENT || rc == -EBADMSG)) {
		native_only = 1;
		sp_buf_reset(&pm->seq);
		ps = NULL;
	} else if (rc)
		return rc;
	if (!ps && (o->interpreter_frames || !pm->trampolines))
		return native_only;
	if (!ps && merge_perf(pm, m, pid, ids, n))
		return -ENOMEM;
	/* Nothing merged or hidden: the native stack, as it always was. */
	if (pm->seq.len == pm->ids.len &&
	    !memcmp(pm->seq.data, pm->ids.data, pm->ids.len))
		return native_only;
	return make_stack(pm, m, out) ? -ENOMEM : native_only;
}

int
fold_pymerge_stack(struct fold_pymerge *pm, struct fold_model *m,
		   const struct fold_name_opts *o, int32_t pid, uint32_t stack,
		   const struct sp_ext_pystack *ps, uint32_t *out,
		   bool *native_only)
{
	uint32_t head[4] = { stack, (uint32_t)pid, ps ? ps->leaf : SP_NONE,
			     ps ? ps->flags : 0 };
	uint64_t val;
	int rc;

	*out = stack;
	*native_only = false;
	if (ps && ps->leaf == SP_NONE && !(ps->flags & SP_PYSTACK_INCONSISTENT))
		ps = NULL;
	if (!ps && !pm->trampolines)
		return 0;
	sp_buf_reset(&pm->key);
	if (sp_buf_add(&pm->key, head, sizeof(head)) ||
	    (ps && sp_buf_add(&pm->key, ps->index,
			      ps->ngroups * sizeof(ps->index[0]))))
		return -ENOMEM;
	if (sp_htab_get(pm->cache, pm->key.data, pm->key.len, &val)) {
		*out = (uint32_t)val;
		*native_only = val >> 32;
		return 0;
	}
	rc = merge(pm, m, o, pid, stack, ps, out);
	if (rc < 0)
		return rc;
	*native_only = rc == 1;
	val = (uint64_t)*native_only << 32 | *out;
	return sp_htab_put(pm->cache, pm->key.data, pm->key.len, val) ? -ENOMEM
								      : 0;
}

/* A cache key of process `ctx`: its second word is the pid. */
static bool
merge_of(const void *key, size_t len, uint64_t val, void *ctx)
{
	uint32_t head[2];

	(void)val;
	if (len < sizeof(head))
		return false;
	memcpy(head, key, sizeof(head));
	return head[1] == *(const uint32_t *)ctx;
}

int
fold_pymerge_forget(struct fold_pymerge *pm, int32_t pid)
{
	uint32_t p = (uint32_t)pid;

	return sp_htab_count(pm->cache)
		   ? sp_htab_del_if(pm->cache, merge_of, &p)
		   : 0;
}
