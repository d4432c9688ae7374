/*
 * write_perfscript.c: --format perf-script, each sample as `perf script` prints
 * it (header, one frame a line leaf first, a blank line), so FlameGraph,
 * speedscope, Firefox Profiler and hotspot import it as perf's own.
 * Inlined functions get their own "(inlined)" lines as perf writes them.
 * Frames are named as folded output groups them ("[libc.so.6]" for an
 * unresolved address in libc), so the text folds back to the same stacks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/names.h"
#include "sp-fold/model/expand.h"
#include "sp-fold/model/group.h"
#include "sp-fold/write/write_perfscript.h"
#include "common/banned.h"

/*
 * Writes a name, path or event with newlines and other controls as '?'
 * (fold_clean_controls): the profiled processes choose them.
 */
static void
put_clean(FILE *out, const char *s)
{
	uint8_t buf[256];
	size_t n;

	while (*s) {
		n = strnlen(s, sizeof(buf));
		/* Never split a two-byte C1 control between chunks. */
		if (n == sizeof(buf) && (uint8_t)s[n - 1] == 0xc2)
			n--;
		memcpy(buf, s, n);
		fold_clean_controls(buf, n);
		fwrite(buf, 1, n, out);
		s += n;
	}
}

/* " (DSO)" and the line's end. */
static void
put_dso(FILE *out, const char *dso)
{
	fputs(" (", out);
	put_clean(out, dso);
	fputs(")\n", out);
}

/* The dso perf would name: JIT code without a module as its perf map. */
static const char *
dso_of(const struct fold_model *m, const struct fold_view *v, unsigned flags,
       int32_t pid, char *buf, size_t size)
{
	const struct fold_module *mod = fold_model_module(m, v->module);

	if (v->mode == SP_FRAME_KERNEL)
		return "[kernel.kallsyms]";
	if (mod && mod->path[0])
		return mod->path;
	if (flags & SP_SYM_JIT) {
		snprintf(buf, size, "/tmp/perf-%" PRId32 ".map", pid);
		return buf;
	}
	return "[unknown]";
}

/*
 * A Python frame has no address: its script file stands where perf
 * prints the dso, so that a reader that drops the dso drops it too.
 */
static void
put_python(FILE *out, const char *source)
{
	size_t n = fold_source_file_len(source);
	char *file = strndup(source ? source : "", n);

	put_dso(out, file && *file ? file : "[unknown]");
	free(file);
}

/* A frame without symbols, named as a frame no symbol resolves. */
static void
put_bare(FILE *out, const struct fold_model *m, const struct fold_view *v,
	 int32_t pid, uint64_t ip)
{
	struct sp_buf b = SP_BUF_INIT;
	char map[64];

	fprintf(out, "\t%16" PRIx64 " ", ip);
	if (fold_view_fallback(v, m, false, &b) || !b.len)
		fputs("[unknown]", out);
	else
		put_clean(out, (const char *)b.data);
	put_dso(out, dso_of(m, v, 0, pid, map, sizeof(map)));
	sp_buf_release(&b);
}

/*
 * Names are the grouped ones whatever --addrs says: the address has its
 * own column, and a kernel name's offset is printed after it.  A frame
 * no symbol resolves has no offset, as perf prints "[unknown]".
 */
/* Writes a frame's symbols below index `upto`, innermost first. */
static void
put_frame(const struct fold_perfscript_out *po, const struct fold_model *m,
	  const struct fold_view *v, int32_t pid, size_t upto)
{
	FILE *out = po->out;
	char map[64];
	const struct fold_syms *s = v->syms;
	const struct fold_sym *sym;
	const char *dso;
	uint64_t ip = v->module != SP_NONE && v->mode == SP_FRAME_USER
			  ? v->rel_ip
			  : v->abs_ip;
	size_t i;

	if (v->mode == SP_FRAME_TRUNCATED) {
		fprintf(out, "\t%16" PRIx64 " %s ([unknown])\n", ip,
			SP_TRUNCATED_NAME);
		return;
	}
	if (!s->n)
		put_bare(out, m, v, pid, ip);
	for (i = upto < s->n ? upto : s->n; i-- > 0;) {
		sym = &s->v[i];
		if (sym->flags & SP_SYM_HIDDEN && !po->name->show_hidden)
			continue;
		fprintf(out, "\t%16" PRIx64 " ", ip);
		put_clean(out, sym->group ? sym->group : sym->name);
		dso = dso_of(m, v, sym->flags, pid, map, sizeof(map));
		if (sym->flags & FOLD_SYM_PYTHON)
			put_python(out, sym->source);
		else if (i > 0 || sym->flags & SP_SYM_INLINED)
			fputs(" (inlined)\n", out);
		else if (sym->flags & SP_SYM_UNRESOLVED)
			put_dso(out, dso);
		else {
			fprintf(out, "+0x%" PRIx64, sym->offset);
			put_dso(out, dso);
		}
	}
}

int
fold_write_perfscript_sample(void *ctx, const struct fold_model *m,
			     const struct fold_sample *s)
{
	const struct fold_perfscript_out *po = ctx;
	FILE *out = po->out;
	struct sp_buf ids = SP_BUF_INIT;
	struct fold_view v;
	const uint32_t *id;
	size_t n, upto;

	if (s->comm)
		put_clean(out, s->comm);
	else
		fprintf(out, ":%" PRIu64, s->tid);
	/* The period: what the sample counts when it counts time or
	 * events (stackcollapse-perf.pl weighs samples by it). */
	fprintf(out,
		" %" PRId32 "/%" PRIu64 " %" PRIu64 ".%06" PRIu64 ": %" PRIu64
		" ",
		s->pid, s->tid, s->ts / 1000000000, s->ts % 1000000000 / 1000,
		po->count->weight_time || po->count->weight_period
		    ? s->weight
		    : fold_model_period_ns(m));
	put_clean(out, s->event ? s->event : "cpu-clock");
	fputs(": \n", out);
	if (s->stack != SP_NONE && fold_model_walk(m, s->stack, &ids))
		return -ENOMEM; /* the reader says so, with the line */
	id = (const uint32_t *)ids.data;
	n = ids.len / sizeof(uint32_t);
	/* --max-depth keeps the frames nearest the root. */
	n = fold_depth_keep(m, po->name, id, n, s->pid, &upto);
	if (upto) {
		fold_model_view(m, id[n], s->pid, &v);
		put_frame(po, m, &v, s->pid, upto);
	}
	while (n-- > 0) {
		fold_model_view(m, id[n], s->pid, &v);
		put_frame(po, m, &v, s->pid, SIZE_MAX);
	}
	fputc('\n', out);
	sp_buf_release(&ids);
	return 0;
}
