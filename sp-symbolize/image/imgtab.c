/*
 * imgtab.c: module files by path, their images opened on use and the
 * least recently used closed past the bound (see imgtab.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/grow.h"
#include "common/htab.h"
#include "sp-symbolize/image/imgtab.h"
#include "common/banned.h"

struct sym_imgtab {
	struct sym_symopts opts;
	size_t max_open;
	size_t max_dwarf; /* bytes of DWARF held at once */
	sym_warn_fn *warn;
	void *warn_ctx;
	struct sym_imgent **v;
	size_t n, alloc;
	struct sym_imgent **open; /* the entries whose image is open */
	size_t nopen, aopen;
	uint64_t tick; /* counts image uses, for least recently used */
	struct sp_htab *by_path; /* path -> index into v */
	struct sym_imgtab_stats stats;
};

struct sym_imgtab *
sym_imgtab_new(const struct sym_symopts *opts, size_t max_open,
	       size_t max_dwarf, sym_warn_fn *warn, void *warn_ctx)
{
	struct sym_imgtab *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->opts = *opts;
	t->max_open = max_open ? max_open : 1;
	t->max_dwarf = max_dwarf;
	t->warn = warn;
	t->warn_ctx = warn_ctx;
	t->by_path = sp_htab_new();
	if (!t->by_path) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void
sym_imgtab_free(struct sym_imgtab *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		sym_image_free(t->v[i]->img);
		free(t->v[i]->path);
		free(t->v[i]);
	}
	free(t->v);
	free(t->open);
	sp_htab_free(t->by_path);
	free(t);
}

/*
 * The open entry but `keep` used least recently, among those holding
 * their DWARF when `dwarf`; NULL when there is none.
 */
static struct sym_imgent *
least_used(const struct sym_imgtab *t, const struct sym_imgent *keep,
	   bool dwarf)
{
	struct sym_imgent *lru = NULL, *e;
	size_t i;

	for (i = 0; i < t->nopen; i++) {
		e = t->open[i];
		if (e != keep && (!dwarf || sym_image_dwarf_held(e->img)) &&
		    (!lru || e->used < lru->used))
			lru = e;
	}
	return lru;
}

/*
 * The DWARF bytes the open images hold, with those of `e` counted
 * whether held or not: its use may open its DWARF again.
 */
static size_t
dwarf_bytes(const struct sym_imgtab *t, const struct sym_imgent *e)
{
	size_t i, n = 0;

	for (i = 0; i < t->nopen; i++)
		if (t->open[i] == e || sym_image_dwarf_held(t->open[i]->img))
			n += sym_image_dwarf_bytes(t->open[i]->img);
	return n;
}

/* Drops the DWARF of the least recently used images but `e` over the bound. */
static void
drop_dwarf(struct sym_imgtab *t, const struct sym_imgent *e)
{
	size_t held = dwarf_bytes(t, e);
	struct sym_imgent *lru;

	while (held > t->max_dwarf && (lru = least_used(t, e, true))) {
		held -= sym_image_dwarf_bytes(lru->img);
		sym_image_drop_dwarf(lru->img);
		t->stats.dwarf_dropped++;
	}
}

/* Closes the least recently used images but `keep` while over the bound. */
static void
close_images(struct sym_imgtab *t, const struct sym_imgent *keep)
{
	struct sym_imgent *lru;
	size_t i;

	while (t->nopen > t->max_open && (lru = least_used(t, keep, false))) {
		for (i = 0; t->open[i] != lru; i++)
			;
		t->open[i] = t->open[--t->nopen];
		sym_image_free(lru->img);
		lru->img = NULL;
		t->stats.closed++;
	}
}

/* Opens the image of `e`; false when it does not open (warned). */
static bool
open_image(struct sym_imgtab *t, struct sym_imgent *e, bool again)
{
	struct sp_buf why = SP_BUF_INIT;

	if (SP_GROW(t->open, t->aopen, t->nopen + 1)) {
		errno = ENOMEM;
		e->img = NULL;
	} else {
		e->img = sym_image_open(e->path, &t->opts, &why);
	}
	if (!e->img) {
		e->failed = true;
		e->open_errno = errno;
		if (!again)
			e->stripped = e->open_errno == ENODATA;
		sym_warnf(t->warn, t->warn_ctx,
			  "'%s': %s; frames keep their address names", e->path,
			  why.len ? (const char *)why.data : "out of memory");
		sp_buf_release(&why);
		e->warned = true;
		return false;
	}
	t->open[t->nopen++] = e;
	return true;
}

struct sym_image *
sym_imgtab_image(struct sym_imgtab *t, struct sym_imgent *e)
{
	bool again = e->used != 0;

	e->used = ++t->tick;
	if (e->img)
		drop_dwarf(t, e);
	if (e->img || e->failed)
		return e->img;
	if (!open_image(t, e, again))
		return NULL;
	t->stats.opened++;
	if (!again)
		e->stripped = sym_image_stripped(e->img);
	if (!again && sym_image_warning(e->img))
		sym_warnf(t->warn, t->warn_ctx, "'%s': %s", e->path,
			  sym_image_warning(e->img));
	close_images(t, e);
	drop_dwarf(t, e);
	if (t->nopen > t->stats.peak)
		t->stats.peak = t->nopen;
	return e->img;
}

struct sym_imgent *
sym_imgtab_get(struct sym_imgtab *t, const char *path)
{
	uint64_t idx;
	struct sym_imgent *e;
	struct stat st;

	if (sp_htab_get(t->by_path, path, strlen(path), &idx)) {
		sym_imgtab_image(t, t->v[idx]);
		return t->v[idx];
	}
	if (SP_GROW(t->v, t->alloc, t->n + 1))
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strdup(path)) ||
	    sp_htab_put(t->by_path, path, strlen(path), t->n)) {
		if (e)
			free(e->path);
		free(e);
		return NULL;
	}
	t->v[t->n++] = e;
	if (stat(path, &st) == 0) {
		e->have_ino = true;
		e->ino = st.st_ino;
	}
	sym_imgtab_image(t, e);
	return e;
}

struct sym_imgent *
sym_imgtab_at(const struct sym_imgtab *t, size_t i)
{
	return i < t->n ? t->v[i] : NULL;
}

void
sym_imgtab_stats(const struct sym_imgtab *t, struct sym_imgtab_stats *st)
{
	*st = t->stats;
}
