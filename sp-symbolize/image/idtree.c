/*
 * idtree.c: module files by build id in build-id trees (see idtree.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/htab.h"
#include "common/hex.h"
#include "sp-symbolize/elf/elffile.h"
#include "sp-symbolize/image/idtree.h"
#include "common/banned.h"

struct sym_idtree {
	struct sym_imgtab *t;
	char *const *roots;
	size_t nroots;
	sym_warn_fn *warn;
	void *warn_ctx;
	struct sp_htab *seen; /* id -> the entry's address, 0 for none */
};

struct sym_idtree *
sym_idtree_new(struct sym_imgtab *t, char *const *roots, size_t nroots,
	       sym_warn_fn *warn, void *warn_ctx)
{
	struct sym_idtree *it = calloc(1, sizeof(*it));

	if (!it)
		return NULL;
	it->t = t;
	it->roots = roots;
	it->nroots = nroots;
	it->warn = warn;
	it->warn_ctx = warn_ctx;
	it->seen = sp_htab_new();
	if (!it->seen) {
		free(it);
		errno = ENOMEM;
		return NULL;
	}
	return it;
}

void
sym_idtree_free(struct sym_idtree *it)
{
	if (!it)
		return;
	sp_htab_free(it->seen);
	free(it);
}

/* Whether `id` is a build id in hex that can name a file in a tree. */
static bool
valid_id(const char *id)
{
	size_t n = strspn(id, "0123456789abcdef");

	return id[n] == '\0' && n >= 4 && n <= 128 && n % 2 == 0;
}

/* The build id of `f` in hex, or "" when it has none. */
static void
buildid_of(const struct sym_elffile *f, char *hex)
{
	const uint8_t *raw;
	size_t len = sym_elf_buildid(f->elf, &raw);

	hex[0] = '\0';
	if (len > 0 && len <= 64)
		sp_hex_encode(raw, len, hex);
}

/*
 * Whether `path` is the module file of `id`: a regular ELF file of that
 * build id with code.  A missing file is no answer; any other refusal is
 * warned about.
 */
static bool
fits(const struct sym_idtree *it, const char *path, const char *id)
{
	struct sym_elffile f;
	char have[2 * 64 + 1];
	int rc = sym_elffile_open(&f, path);
	bool code;

	if (rc == -ENOENT)
		return false;
	if (rc) {
		sym_warnf(it->warn, it->warn_ctx, "'%s': %s; not used", path,
			  rc == -ENOEXEC  ? "not an ELF file"
			  : rc == -EINVAL ? "not a regular file"
					  : strerror(-rc));
		return false;
	}
	buildid_of(&f, have);
	code = sym_elf_has_code(f.elf);
	sym_elffile_close(&f);
	if (strcmp(have, id) != 0) {
		sym_warnf(it->warn, it->warn_ctx,
			  "'%s': build id %s is not the %s its name says; not "
			  "used",
			  path, have[0] ? have : "(none)", id);
		return false;
	}
	return code;
}

/*
 * The entry of `path` when it is the module file of `id`.  The build id
 * is checked again on the image: the file may have changed since.
 */
static struct sym_imgent *
take(struct sym_idtree *it, const char *path, const char *id)
{
	struct sym_imgent *e;
	const char *have;

	if (!fits(it, path, id) || !(e = sym_imgtab_get(it->t, path)) ||
	    !e->img)
		return NULL;
	have = sym_image_buildid(e->img);
	return have && strcmp(have, id) == 0 ? e : NULL;
}

/* Looks for `id` as the file `suffix` names under each root in turn. */
static struct sym_imgent *
find_as(struct sym_idtree *it, const char *id, const char *suffix)
{
	struct sym_imgent *e = NULL;
	const char *root;
	char *path;
	size_t i;

	for (i = 0; !e && i <= it->nroots; i++) {
		root = i < it->nroots ? it->roots[i] : SYM_DEFAULT_DEBUG_ROOT;
		if (asprintf(&path, "%s/.build-id/%.2s/%s%s", root, id, id + 2,
			     suffix) < 0)
			return NULL;
		e = take(it, path, id);
		free(path);
	}
	return e;
}

struct sym_imgent *
sym_idtree_find(struct sym_idtree *it, const char *id)
{
	struct sym_imgent *e;
	uint64_t v;

	if (!valid_id(id))
		return NULL;
	if (sp_htab_get(it->seen, id, strlen(id), &v)) {
		/* Its image may have been closed since: open it again. */
		e = (struct sym_imgent *)(uintptr_t)v;
		return e && sym_imgtab_image(it->t, e) ? e : NULL;
	}
	e = find_as(it, id, "");
	if (!e)
		e = find_as(it, id, ".debug");
	if (sp_htab_put(it->seen, id, strlen(id), (uint64_t)(uintptr_t)e))
		return NULL;
	return e;
}
