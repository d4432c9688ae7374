/*
 * jitsyms.c: the perf maps and jitdumps of every process (see
 * jitsyms.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/htab.h"
#include "sp-symbolize/jit/jitdump.h"
#include "sp-symbolize/jit/jitpath.h"
#include "sp-symbolize/jit/jitsyms.h"
#include "sp-symbolize/jit/perfmap.h"
#include "sp-symbolize/out/warn.h"
#include "common/banned.h"

/* One file naming a process's JIT code: its perf map or its jitdump. */
struct rsrc {
	bool loaded;
	bool exists;
	bool warned;
	bool kept; /* sp-record's copy: this user's file */
	struct sym_perfmap_id id;
	struct sym_perfmap *map;
	char *path;
};

enum { SRC_PERFMAP, SRC_JITDUMP, NSRC };

/*
 * The JIT symbol files of one process.  The jitdump's path is chosen on
 * its first read (jitpath.h), and again after a forget or a new mapping.
 */
struct rpm {
	int32_t pid;
	char *mapped; /* the jitdump the process mapped, or NULL */
	struct rsrc src[NSRC];
};

struct sym_jitsyms {
	char *dir;
	char **kept; /* ROOT/.jit/BOOTID-START_US for each root */
	size_t nkept;
	struct sp_htab *pm_by_pid; /* pid -> index into pms */
	struct rpm **pms;
	size_t npms, apms;
	sym_warn_fn *warn;
	void *ctx;
};

static void
free_rpm(struct rpm *pm)
{
	int i;

	if (!pm)
		return;
	for (i = 0; i < NSRC; i++) {
		sym_perfmap_free(pm->src[i].map);
		free(pm->src[i].path);
	}
	free(pm->mapped);
	free(pm);
}

struct sym_jitsyms *
sym_jitsyms_new(const char *dir, sym_warn_fn *warn, void *ctx)
{
	struct sym_jitsyms *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->warn = warn;
	j->ctx = ctx;
	j->pm_by_pid = sp_htab_new();
	if (!j->pm_by_pid || (dir && !(j->dir = strdup(dir)))) {
		sym_jitsyms_free(j);
		return NULL;
	}
	return j;
}

static void
free_kept(struct sym_jitsyms *j)
{
	size_t i;

	for (i = 0; i < j->nkept; i++)
		free(j->kept[i]);
	free(j->kept);
	j->kept = NULL;
	j->nkept = 0;
}

int
sym_jitsyms_kept(struct sym_jitsyms *j, char *const *roots, size_t nroots,
		 const char *bootid, uint64_t start_us)
{
	size_t i, n = bootid ? strspn(bootid, "0123456789abcdef-") : 0;

	free_kept(j);
	if (j->dir || !nroots)
		return 0;
	/* Only what sp-record names its copies with reaches a path. */
	if (!n || bootid[n])
		bootid = "unknown";
	if (!(j->kept = calloc(nroots, sizeof(*j->kept))))
		return -ENOMEM;
	for (i = 0; i < nroots; i++, j->nkept++)
		if (asprintf(&j->kept[i], "%s/.jit/%s-%" PRIu64, roots[i],
			     bootid, start_us) < 0) {
			j->kept[i] = NULL;
			return -ENOMEM;
		}
	return 0;
}

/*
 * The copy sp-record kept of file `ext` ("map", "dump") of `pid`, when
 * one is a regular file: malloc'ed, or NULL.
 */
static char *
kept_path(const struct sym_jitsyms *j, int32_t pid, const char *ext)
{
	struct stat st;
	char *path;
	size_t i;

	for (i = 0; i < j->nkept; i++) {
		if (asprintf(&path, "%s-%d.%s", j->kept[i], (int)pid, ext) < 0)
			return NULL;
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			return path;
		free(path);
	}
	return NULL;
}

void
sym_jitsyms_free(struct sym_jitsyms *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->npms; i++)
		free_rpm(j->pms[i]);
	free(j->pms);
	sp_htab_free(j->pm_by_pid);
	free_kept(j);
	free(j->dir);
	free(j);
}

/* The files of `pid`, created on first use. */
static struct rpm *
perf_map_state(struct sym_jitsyms *r, int32_t pid)
{
	uint64_t idx;
	struct rpm *pm;
	const char *dir = r->dir ? r->dir : "/tmp";

	if (sp_htab_get(r->pm_by_pid, &pid, sizeof(pid), &idx))
		return r->pms[idx];
	if (SP_GROW(r->pms, r->apms, r->npms + 1))
		return NULL;
	pm = calloc(1, sizeof(*pm));
	if (pm && (pm->src[SRC_PERFMAP].path = kept_path(r, pid, "map")))
		pm->src[SRC_PERFMAP].kept = true;
	else if (pm && asprintf(&pm->src[SRC_PERFMAP].path, "%s/perf-%d.map",
				dir, pid) < 0)
		pm->src[SRC_PERFMAP].path = NULL;
	if (!pm || !pm->src[SRC_PERFMAP].path ||
	    sp_htab_put(r->pm_by_pid, &pid, sizeof(pid), r->npms)) {
		free_rpm(pm);
		return NULL;
	}
	pm->pid = pid;
	r->pms[r->npms++] = pm;
	return pm;
}

/*
 * Whose map files are trusted for `pid`: the user of the process while
 * it runs here, else (it has exited, or the maps come from another
 * machine through --perf-map-dir) the user running sp-symbolize.  Root's
 * are trusted too (perfmap.h).
 */
static uid_t
perf_map_owner(const struct sym_jitsyms *r, int32_t pid)
{
	char proc[32];
	struct stat st;

	snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
	if (!r->dir && stat(proc, &st) == 0)
		return st.st_uid;
	return geteuid();
}

static void
src_reload(struct sym_jitsyms *r, struct rpm *pm, int kind)
{
	struct rsrc *src = &pm->src[kind];
	uid_t owner;
	const char *why;
	bool big;

	if (!src->path && kind == SRC_JITDUMP) {
		src->path = kept_path(r, pm->pid, "dump");
		src->kept = src->path != NULL;
		if (!src->kept)
			src->path =
			    sym_jitpath_find(pm->mapped, r->dir, pm->pid);
	}
	owner = src->kept ? geteuid() : perf_map_owner(r, pm->pid);
	sym_perfmap_free(src->map);
	src->map = NULL;
	src->loaded = true;
	if (!src->path) {
		src->exists = false;
		return;
	}
	src->map = kind == SRC_JITDUMP
		       ? sym_jitdump_load(src->path, owner, &src->id)
		       : sym_perfmap_load(src->path, owner, &src->id);
	src->exists = src->map != NULL;
	if (src->map || (errno != EPERM && errno != ELOOP && errno != EFBIG))
		return;
	big = errno == EFBIG;
	why = errno == ELOOP ? "a symbolic link"
			     : "not a regular file owned by the process's "
			       "user or root";
	/* Refused: not read again until it changes, and said once. */
	src->exists = sym_perfmap_stat(src->path, &src->id);
	if (!src->warned && big)
		sym_warnf(r->warn, r->ctx,
			  "'%s': larger than the cap of %llu MiB; not read",
			  src->path, SYM_PERFMAP_MAX_SIZE >> 20);
	else if (!src->warned)
		sym_warnf(r->warn, r->ctx, "'%s': %s; not read", src->path,
			  why);
	src->warned = true;
}

/* Looks `addr` up in one file, reading it again if it changed. */
static bool
src_find(struct sym_jitsyms *r, struct rpm *pm, int kind, uint64_t addr,
	 const char **name, uint64_t *start)
{
	struct rsrc *src = &pm->src[kind];
	struct sym_perfmap_id id;

	if (!src->loaded)
		src_reload(r, pm, kind);
	else if (!(src->map &&
		   sym_perfmap_lookup(src->map, addr, name, start)) &&
		 src->path && sym_perfmap_stat(src->path, &id) &&
		 !(src->exists && sym_perfmap_id_equal(&id, &src->id)))
		src_reload(r, pm, kind);
	return src->map && sym_perfmap_lookup(src->map, addr, name, start);
}

/* The perf map first; CPython 3.13's -X perf_jit writes only a dump. */
bool
sym_jitsyms_find(struct sym_jitsyms *r, int32_t pid, uint64_t addr,
		 const char **name, uint64_t *start)
{
	struct rpm *pm = perf_map_state(r, pid);
	int i;

	for (i = 0; pm && i < NSRC; i++)
		if (src_find(r, pm, i, addr, name, start))
			return true;
	return false;
}

/* Drops what was read of one file; the jitdump's path is chosen again. */
static void
src_forget(struct rpm *pm, int kind)
{
	struct rsrc *src = &pm->src[kind];

	sym_perfmap_free(src->map);
	src->map = NULL;
	src->loaded = src->exists = false;
	if (kind == SRC_JITDUMP) {
		free(src->path);
		src->path = NULL;
	}
}

void
sym_jitsyms_forget(struct sym_jitsyms *r, int32_t pid)
{
	uint64_t idx;
	struct rpm *pm;
	int i;

	if (!sp_htab_get(r->pm_by_pid, &pid, sizeof(pid), &idx))
		return;
	pm = r->pms[idx];
	for (i = 0; i < NSRC; i++)
		src_forget(pm, i);
	free(pm->mapped);
	pm->mapped = NULL;
}

void
sym_jitsyms_drop(struct sym_jitsyms *r, int32_t pid)
{
	uint64_t idx;
	struct rpm *last;

	if (!sp_htab_get(r->pm_by_pid, &pid, sizeof(pid), &idx))
		return;
	free_rpm(r->pms[idx]);
	sp_htab_del(r->pm_by_pid, &pid, sizeof(pid));
	last = r->pms[--r->npms];
	if (idx == r->npms)
		return;
	r->pms[idx] = last;
	/*
	 * The key is present and the table just lost one: no rehash, no
	 * allocation, so this cannot fail.
	 */
	sp_htab_put(r->pm_by_pid, &last->pid, sizeof(last->pid), idx);
}

size_t
sym_jitsyms_count(const struct sym_jitsyms *r)
{
	return r->npms;
}

int
sym_jitsyms_mapped(struct sym_jitsyms *r, int32_t pid, const char *path)
{
	struct rpm *pm = perf_map_state(r, pid);
	char *copy = pm ? strdup(path) : NULL;

	if (!copy)
		return -ENOMEM;
	free(pm->mapped);
	pm->mapped = copy;
	src_forget(pm, SRC_JITDUMP);
	return 0;
}
