/*
 * write_svg.c: --format svg, a self-contained interactive flame graph in the
 * manner of flamegraph.pl: one rect per frame (frames narrower than
 * 0.1 pixel are left out with their callees), width by count, callees
 * sorted by name, with the script of write_svg_js.h for zoom, search and
 * tooltips (a second line gives the frame's source when the record
 * stream has one).  --inverted draws an icicle graph from the top, --reverse
 * merges stacks from the leaf, --colors picks the palette.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/buf.h"
#include "common/htab.h"
#include "common/records.h"
#include "sp-fold/model/diff.h"
#include "sp-fold/model/foldset.h"
#include "sp-fold/model/model.h"
#include "sp-fold/model/profile.h"
#include "sp-fold/write/write_svg.h"
#include "sp-fold/write/write_svg_color.h"
#include "sp-fold/write/write_svg_js.h"
#include "common/banned.h"

#define PAD 10

struct node {
	const char *name;
	size_t len;
	uint64_t count;
	uint32_t child, next; /* first child, next sibling; 0 = none */
	int64_t delta; /* differential: after - before of stacks ending here */
	const char *src; /* the source shown, srclen bytes; NULL for none */
	size_t srclen;
	bool src_seen; /* whether a stack with sources went through */
};

struct tree {
	struct node *v;
	size_t n, alloc;
	struct sp_htab *idx; /* parent id + name -> node id */
	struct sp_buf key;
	struct sp_buf spans; /* (start, end) offsets of a line's frames */
	unsigned max_depth;
	bool diff;         /* a differential graph: colored by delta */
	bool chart;        /* a flame chart: children in time order */
	uint64_t maxdelta; /* the largest |delta| of a stack, at least 1 */
};

static int64_t
child_of(struct tree *t, uint32_t parent, const char *name, size_t len)
{
	uint64_t *slot;
	bool inserted = false;
	uint32_t last = t->v[parent].child;

	/* A flame chart merges a sample only into the newest child. */
	if (t->chart) {
		if (last && t->v[last].len == len &&
		    !memcmp(t->v[last].name, name, len))
			return last;
		if (SP_GROW(t->v, t->alloc, t->n + 1))
			return -ENOMEM;
		t->v[t->n] =
		    (struct node){ .name = name, .len = len, .next = last };
		t->v[parent].child = (uint32_t)t->n;
		return (int64_t)t->n++;
	}
	sp_buf_reset(&t->key);
	if (sp_buf_add(&t->key, &parent, sizeof(parent)) ||
	    sp_buf_add(&t->key, name, len))
		return -ENOMEM;
	slot = sp_htab_slot(t->idx, t->key.data, t->key.len, t->n, &inserted);
	if (!slot)
		return -ENOMEM;
	if (!inserted)
		return (int64_t)*slot;
	if (SP_GROW(t->v, t->alloc, t->n + 1))
		return -ENOMEM;
	t->v[t->n] = (struct node){ .name = name,
				    .len = len,
				    .next = t->v[parent].child };
	t->v[parent].child = (uint32_t)t->n;
	return (int64_t)t->n++;
}

/*
 * Notes the source of one more stack through a node.  A node shows
 * "file:line" while its stacks agree, the file alone when only their
 * lines differ (a function sampled at several lines), and nothing when
 * their files differ or one of them has no source.
 */
static void
merge_src(struct node *nd, const char *src)
{
	size_t f;

	if (!nd->src_seen) {
		nd->src_seen = true;
		nd->src = src;
		nd->srclen = src ? strlen(src) : 0;
		return;
	}
	if (!nd->src || !src)
		nd->src = NULL;
	if (!nd->src ||
	    (strlen(src) == nd->srclen && !memcmp(nd->src, src, nd->srclen)))
		return;
	f = fold_source_file_len(src);
	if (f == fold_source_file_len(nd->src) && !memcmp(nd->src, src, f))
		nd->srclen = f;
	else
		nd->src = NULL;
}

/*
 * Adds one folded stack, root first (leaf first with --reverse), `count`
 * wide; a differential stack's `delta` goes to its leaf.  `srcs`, when
 * not NULL, holds the source of each of its names in stack order.
 */
static int
add_line(struct tree *t, const struct fold_svg_line *l, int64_t delta,
	 bool reverse)
{
	const char *stack = l->stack;
	size_t len = l->len;
	uint64_t count = l->count;
	size_t start = 0, i, n = 0, k, j;
	uint32_t at = 0;
	int64_t c;

	sp_buf_reset(&t->spans);
	for (i = 0; i <= len; i++) {
		if (i < len && stack[i] != ';')
			continue;
		if (sp_buf_add(&t->spans, &start, sizeof(start)) ||
		    sp_buf_add(&t->spans, &i, sizeof(i)))
			return -ENOMEM;
		start = i + 1;
		n++;
	}
	t->v[0].count += count;
	for (k = 0; k < n; k++) {
		const size_t *sp;

		j = reverse ? n - 1 - k : k;
		sp = (const size_t *)t->spans.data + 2 * j;
		c = child_of(t, at, stack + sp[0], sp[1] - sp[0]);
		if (c < 0)
			return -ENOMEM;
		at = (uint32_t)c;
		t->v[at].count += count;
		if (l->srcs)
			merge_src(&t->v[at], j < l->nsrcs ? l->srcs[j] : NULL);
	}
	t->v[at].delta += delta;
	if (n > t->max_depth)
		t->max_depth = (unsigned)n;
	return 0;
}

static int
tree_init(struct tree *t)
{
	t->idx = sp_htab_new();
	t->alloc = 1024;
	t->v = calloc(t->alloc, sizeof(*t->v));
	if (!t->idx || !t->v)
		return -ENOMEM;
	t->v[0] = (struct node){ .name = "all", .len = 3 };
	t->n = 1;
	t->maxdelta = 1;
	return 0;
}

static int
build(struct tree *t, struct fold_set *set, bool reverse)
{
	const struct fold_line *l;
	size_t n, i;

	struct fold_svg_line sl = { 0 };

	if (tree_init(t) || fold_set_lines(set, &l, &n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		sl = (struct fold_svg_line){ .stack = l[i].stack,
					     .len = l[i].len,
					     .count = l[i].count };
		if (add_line(t, &sl, 0, reverse))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Lines with sources; a flame chart keeps them in time order, as
 * flamegraph.pl --flamechart draws its input in order.  Names and
 * sources must outlive the tree.
 */
static int
build_lines(struct tree *t, const struct fold_svg_line *l, size_t n, bool chart,
	    bool reverse)
{
	size_t i;

	if (tree_init(t))
		return -ENOMEM;
	t->chart = chart;
	for (i = 0; i < n; i++)
		if (add_line(t, &l[i], 0, reverse))
			return -ENOMEM;
	return 0;
}

/* As flamegraph.pl draws two columns: widths after, colors by change. */
static int
build_diff(struct tree *t, const struct fold_diff_line *l, size_t n,
	   bool reverse)
{
	uint64_t d;
	struct fold_svg_line sl = { 0 };
	size_t i;

	if (tree_init(t))
		return -ENOMEM;
	t->diff = true;
	for (i = 0; i < n; i++) {
		sl = (struct fold_svg_line){ .stack = l[i].stack,
					     .len = l[i].len,
					     .count = l[i].after };
		d = l[i].after > l[i].before ? l[i].after - l[i].before
					     : l[i].before - l[i].after;
		t->maxdelta = d > t->maxdelta ? d : t->maxdelta;
		if (add_line(t, &sl, (int64_t)l[i].after - (int64_t)l[i].before,
			     reverse))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Writes bytes as XML text: markup escaped, controls and each byte that
 * starts no well-formed UTF-8 character (overlong forms and surrogates
 * too, which XML parsers refuse) as '?'.
 */
static void
put_xml(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;
	size_t len;

	while (p < end) {
		len = sp_utf8_len(p, (size_t)(end - p));
		if (len > 1) {
			fwrite(p, 1, len, out);
			p += len;
			continue;
		}
		switch (*p) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(len && *p >= 0x20 && *p != 0x7f ? *p : '?', out);
		}
		p++;
	}
}

/* The text shown in a frame of `w` pixels, as the script's fit(). */
static size_t
fit_len(const char *name, size_t len, double w, int fs, bool *dots)
{
	size_t max = (size_t)(w / (fs * 0.59));

	*dots = false;
	if (max < 3)
		return 0;
	if (len <= max)
		return len;
	*dots = true;
	len = max - 2;
	while (len && ((unsigned char)name[len] & 0xc0) == 0x80)
		len--;
	return len;
}

/* The unit of the counts in tooltips: --countname, or what they count. */
static const char *
countname(const struct fold_svg_opts *o)
{
	return o->countname ? o->countname : "samples";
}

struct geom {
	int width, height;
	int fh, fs;   /* frame height, font size (--height, --fontsize) */
	int top;      /* room above the frames: title, subtitle */
	double minw;  /* frames narrower are left out (--minwidth) */
	double scale; /* pixels per count */
	int y0;       /* y of the root frame */
	bool inverted;
};

static void
put_frame(FILE *out, const struct fold_svg_opts *o, const struct geom *g,
	  const struct tree *t, const struct node *nd, uint64_t x,
	  unsigned depth)
{
	uint64_t total = t->v[0].count;
	double px = PAD + (double)x * g->scale,
	       w = (double)nd->count * g->scale;
	int y = g->inverted ? g->y0 + (int)depth * g->fh
			    : g->y0 - (int)depth * g->fh;
	size_t shown;
	bool dots;
	int rgb[3];

	if (t->diff)
		fold_svg_color_delta(o->negate, nd->delta, t->maxdelta, rgb);
	else
		fold_svg_color(o->colors, nd->name, nd->len, rgb);
	fputs("<g><title>", out);
	put_xml(out, nd->name, nd->len);
	fprintf(out, " (%" PRIu64 " %s, %.2f%%", nd->count, countname(o),
		100.0 * (double)nd->count / (double)total);
	if (t->diff && nd != t->v) {
		int64_t d = o->negate ? -nd->delta : nd->delta;

		fprintf(out, d > 0 ? "; +%.2f%%" : "; %.2f%%",
			100.0 * (double)d / (double)total);
	}
	fputs(")", out);
	if (nd->src) {
		fputs("&#10;", out); /* a line of its own in the tooltip */
		put_xml(out, nd->src, nd->srclen);
	}
	fputs("</title>", out);
	fprintf(out,
		"<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\""
		" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
		px, y, w, g->fh - 1, rgb[0], rgb[1], rgb[2]);
	fprintf(out, "<text x=\"%.2f\" y=\"%d\">", px + 3,
		y + g->fh - (g->fh - g->fs) / 2 - 3);
	shown = fit_len(nd->name, nd->len, w, g->fs, &dots);
	put_xml(out, nd->name, shown);
	fputs(dots ? "..</text></g>\n" : "</text></g>\n", out);
}

/*
 * Children in the order flamegraph.pl gives them: it sorts whole stacks,
 * so a name is compared as if followed by its ';' ("f1" before "f").
 */
static int
child_cmp(const void *a, const void *b, void *arg)
{
	const struct tree *t = arg;
	const struct node *x = &t->v[*(const uint32_t *)a];
	const struct node *y = &t->v[*(const uint32_t *)b];
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);
	unsigned char cx, cy;

	if (c || x->len == y->len)
		return c;
	cx = x->len > n ? (unsigned char)x->name[n] : ';';
	cy = y->len > n ? (unsigned char)y->name[n] : ';';
	return (cx > cy) - (cx < cy);
}

struct todo {
	uint32_t node;
	unsigned depth;
	uint64_t x;
};

/*
 * Pushes the children of a node sorted by name, leftmost on top, flush
 * right: the node's own time is drawn left of its children, as the
 * script draws it (its stack sorts before theirs).
 */
static int
push_children(const struct tree *t, const struct todo *parent,
	      struct sp_buf *stack, struct sp_buf *tmp)
{
	uint32_t c, *v;
	size_t n, i;
	uint64_t x = parent->x + t->v[parent->node].count;
	struct todo td;

	sp_buf_reset(tmp);
	for (c = t->v[parent->node].child; c; c = t->v[c].next)
		if (sp_buf_add(tmp, &c, sizeof(c)))
			return -ENOMEM;
	v = (uint32_t *)tmp->data;
	n = tmp->len / sizeof(*v);
	if (n && !t->chart)
		qsort_r(v, n, sizeof(*v), child_cmp, (void *)t);
	for (i = 0; t->chart && i < n / 2; i++) { /* the list is newest first */
		c = v[i];
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = c;
	}
	for (i = n; i-- > 0;) {
		x -= t->v[v[i]].count;
		td = (struct todo){ v[i], parent->depth + 1, x };
		if (sp_buf_add(stack, &td, sizeof(td)))
			return -ENOMEM;
	}
	return 0;
}

static int
put_frames(FILE *out, const struct fold_svg_opts *o, const struct geom *g,
	   const struct tree *t)
{
	struct sp_buf stack = SP_BUF_INIT, tmp = SP_BUF_INIT;
	struct todo td = { 0, 0, 0 };
	int rc = sp_buf_add(&stack, &td, sizeof(td));

	while (!rc && stack.len) {
		stack.len -= sizeof(td);
		memcpy(&td, stack.data + stack.len, sizeof(td));
		if ((double)t->v[td.node].count * g->scale < g->minw)
			continue;
		put_frame(out, o, g, t, &t->v[td.node], td.x, td.depth);
		rc = push_children(t, &td, &stack, &tmp);
	}
	sp_buf_release(&stack);
	sp_buf_release(&tmp);
	return rc;
}

/* Writes a JavaScript string literal safe inside CDATA. */
static void
put_js_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\' || c == '<' || c == '>' || c < 0x20 ||
		    c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void
put_script(FILE *out, const struct fold_svg_opts *o, const struct geom *g)
{
	fprintf(out, "<style type=\"text/css\">\n%s", svg_style);
	fputs("text { font-family: ", out);
	put_xml(out, o->fonttype ? o->fonttype : "Verdana, sans-serif",
		strlen(o->fonttype ? o->fonttype : "Verdana, sans-serif"));
	fprintf(out, "; font-size: %dpx; }\n</style>\n", g->fs);
	fprintf(out,
		"<script type=\"text/ecmascript\"><![CDATA[\n"
		"var FG_W = %d, FG_PAD = %d, FG_FH = %d, FG_FS = %d, "
		"FG_H = %d, FG_Y0 = %d, FG_INV = %s, FG_NT = ",
		g->width, PAD, g->fh, g->fs, g->height, g->y0,
		g->inverted ? "true" : "false");
	put_js_string(out, o->nametype ? o->nametype : "Function:");
	fprintf(out, ";\n%s]]></script>\n", svg_script);
}

static void
put_text(FILE *out, const char *id, int x, int y, const char *text)
{
	fprintf(out, "<text id=\"%s\" x=\"%d\" y=\"%d\">", id, x, y);
	put_xml(out, text, strlen(text));
	fputs("</text>\n", out);
}

static void
put_head(FILE *out, const struct fold_svg_opts *o, const struct geom *g)
{
	const char *title = o->title      ? o->title
			    : o->chart    ? "Flame Chart"
			    : o->inverted ? "Icicle Graph"
					  : "Flame Graph";

	fprintf(out,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		"\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" "
		"onload=\"init(evt)\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n",
		g->width, g->height, g->width, g->height);
	put_script(out, o, g);
	fprintf(out,
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"rgb(245,245,235)\"/>\n",
		g->width, g->height);
	put_text(out, "title", g->width / 2, g->fs * 2, title);
	if (o->subtitle)
		put_text(out, "subtitle", g->width / 2, g->fs * 4, o->subtitle);
	put_text(out, "details", PAD, g->height - 10, " ");
	fprintf(out,
		"<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"%d\">"
		"Reset Zoom</text>\n",
		PAD, g->fs * 2);
	put_text(out, "search", g->width - PAD - 60, g->fs * 2, "Search");
	put_text(out, "ignorecase", g->width - PAD - 16, g->fs * 2, "ic");
	put_text(out, "matched", g->width - PAD - 120, g->height - 10, " ");
}

/* Draws a built tree; returns 0 or -ENOMEM. */
static int
draw(FILE *out, const struct fold_svg_opts *o, const struct tree *t)
{
	struct geom g = { .width = o->width ? o->width : 1200,
			  .inverted = o->inverted };
	int rc = 0;

	g.fh = o->frame_height ? o->frame_height : 16;
	g.fs = o->fontsize ? o->fontsize : 12;
	g.top = g.fs * (o->subtitle ? 5 : 3);
	g.minw = o->minwidth_pct > 0 ? 0 : o->minwidth;
	g.height = (int)(t->max_depth + 1) * g.fh + g.top + g.fs * 2 + 10;
	g.scale = t->v[0].count
		      ? (double)(g.width - 2 * PAD) / (double)t->v[0].count
		      : 0;
	if (o->minwidth_pct > 0)
		g.minw = (g.width - 2 * PAD) * o->minwidth_pct / 100;
	g.y0 = g.inverted ? g.top : g.height - (g.fs * 2 + 10) - g.fh;
	put_head(out, o, &g);
	fputs("<g id=\"frames\">\n", out);
	if (t->v[0].count)
		rc = put_frames(out, o, &g, t);
	fputs("</g>\n</svg>\n", out);
	return rc;
}

static void
tree_release(struct tree *t)
{
	sp_htab_free(t->idx);
	free(t->v);
	sp_buf_release(&t->key);
	sp_buf_release(&t->spans);
}

/*
 * Draws a tree built with `rc` (0 or -ENOMEM), then frees it; returns 0
 * or -ENOMEM.
 */
static int
finish(FILE *out, const struct fold_svg_opts *o, struct tree *t, int rc)
{
	if (!rc)
		rc = draw(out, o, t);
	tree_release(t);
	return rc;
}

int
fold_write_svg(FILE *out, const struct fold_profile *p,
	       const struct fold_svg_opts *o)
{
	struct tree t = { .key = SP_BUF_INIT };

	return finish(out, o, &t, build(&t, p->set, o->reverse));
}

int
fold_svg_draw_lines(FILE *out, const struct fold_svg_line *lines, size_t n,
		    const struct fold_svg_opts *o)
{
	struct tree t = { .key = SP_BUF_INIT };

	return finish(out, o, &t, build_lines(&t, lines, n, false, o->reverse));
}

int
fold_svg_draw_chart(FILE *out, const struct fold_svg_line *lines, size_t n,
		    const struct fold_svg_opts *o)
{
	struct tree t = { .key = SP_BUF_INIT };

	return finish(out, o, &t, build_lines(&t, lines, n, true, o->reverse));
}

int
fold_write_diff_svg(FILE *out, const struct fold_profile *p,
		    const struct fold_svg_opts *o)
{
	struct tree t = { .key = SP_BUF_INIT };

	return finish(out, o, &t,
		      build_diff(&t, p->diff, p->ndiff, o->reverse));
}
