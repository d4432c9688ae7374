/*
 * symcache.c: the persistent cache of resolved frames (see symcache.h).
 * File names are BUILDID-CTX, CTX as 16 hex digits, or BUILDID.KIND for
 * the callers' whole files; temporary files add ".tmp.XXXXXX".  Nothing
 * else in the directory is the cache's: it is neither read nor removed.
 *
 * The directory is opened once, without following a link, and checked
 * to be this user's and writable by nobody else; every file is then
 * reached relative to that descriptor, so that a directory swapped for
 * a link after the check is not followed either.
 *
 * A set of a module file is trusted for the file it was made from only
 * (symcache.h): its origin is checked at its first use in a run, by
 * identity, or by content hash when the identity is new.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/grow.h"
#include "common/htab.h"
#include "common/openreg.h"
#include "sp-symbolize/cache/fileid.h"
#include "sp-symbolize/cache/symcache.h"
#include "common/banned.h"

/* A temporary file this old was left by a run that died: fair game. */
#define SYM_CACHE_TMP_AGE 3600
/* Files of one build id under other contexts read to find a conflict. */
#define SYM_CACHE_MAX_SIBLINGS 16

struct centry {
	char *name; /* in the directory */
	uint64_t ctx;
	struct sym_cset *set; /* NULL: not cached in this run */
	size_t loaded;        /* results the file holds (read or written) */
	bool rewrite;         /* the file was corrupt, or its origin changed */
	struct sym_corigin origin; /* hash 0: results of no file */
};

struct sym_cache {
	char *dir;
	int dfd;  /* the directory, once opened and checked; else -1 */
	bool off; /* the directory was refused (and said so): no cache */
	uint64_t max;
	sym_warn_fn *warn;
	void *warn_ctx;
	struct sp_htab *by_name; /* name -> index into v */
	struct centry *v;
	size_t n, alloc;
	bool failed;            /* a save failed and said so: no more saves */
	struct sp_htab *warned; /* build ids said to have two files */
	bool listed;            /* names[] read from the directory */
	char **names;           /* its BUILDID-CTX files, at the first need */
	size_t nnames, anames;
};

/* Creates `dir` and its missing parents, private to the user. */
static int
make_dirs(char *dir)
{
	char *p;

	for (p = strchr(dir + 1, '/');; p = strchr(p + 1, '/')) {
		if (p)
			*p = '\0';
		if (mkdir(dir, 0700) && errno != EEXIST) {
			if (p)
				*p = '/';
			return -errno;
		}
		if (!p)
			return 0;
		*p = '/';
	}
}

/*
 * Whether `name` is one this cache writes: BUILDID-CTX or BUILDID.KIND
 * (KIND a lowercase word other than "tmp"), either one possibly with
 * the ".tmp.XXXXXX" of a save in progress (*tmp set then).
 */
static bool
own_name(const char *name, bool *tmp)
{
	static const char hex[] = "0123456789abcdef";
	static const char word[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t n = strspn(name, hex), k;
	const char *p = name + n;

	*tmp = false;
	if (n < 4 || n > 128)
		return false;
	if (*p == '-' && strspn(p + 1, hex) == 16) {
		p += 17;
	} else if (*p == '.' && p[1] >= 'a' && p[1] <= 'z' &&
		   (k = strspn(p + 1, word)) && strncmp(p + 1, "tmp", k) != 0) {
		p += 1 + k;
	} else {
		return false;
	}
	if (*p == '\0')
		return true;
	*tmp = strncmp(p, ".tmp.", 5) == 0 && strspn(p + 5, alnum) == 6 &&
	       p[11] == '\0';
	return *tmp;
}

/* Refuses the directory for the rest of the run, with one warning. */
static int
refuse(struct sym_cache *c, const char *why)
{
	if (!c->off)
		sym_warnf(c->warn, c->warn_ctx,
			  "'%s': %s; the symbol cache is not used (as with "
			  "--no-cache)",
			  c->dir, why);
	c->off = true;
	return -EPERM;
}

/*
 * Opens the directory, creating it first with `create`, and checks that
 * it is one only this user may change.  Returns 0, -ENOENT when it does
 * not exist, -EPERM when refused, or another negative errno.
 */
static int
open_dir(struct sym_cache *c, bool create)
{
	struct stat st;
	int fd;

	if (c->off)
		return -EPERM;
	if (c->dfd >= 0)
		return 0;
	if (create && make_dirs(c->dir))
		return -EACCES;
	fd = open(c->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* A parent that is no directory only means there is no cache. */
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR) &&
	    lstat(c->dir, &st) == 0)
		return refuse(c, S_ISLNK(st.st_mode) ? "a symbolic link"
						     : "not a directory");
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		close(fd);
		return -EIO;
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return refuse(c, st.st_uid != geteuid()
				     ? "not owned by this user"
				     : "writable by others than its owner");
	}
	c->dfd = fd;
	return 0;
}

struct sym_cache *
sym_cache_new(const char *dir, uint64_t max_bytes, sym_warn_fn *warn,
	      void *warn_ctx)
{
	struct sym_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->dfd = -1;
	c->max = max_bytes;
	c->warn = warn;
	c->warn_ctx = warn_ctx;
	c->dir = strdup(dir);
	c->by_name = sp_htab_new();
	c->warned = sp_htab_new();
	if (!c->dir || !c->by_name || !c->warned) {
		sym_cache_free(c);
		errno = ENOMEM;
		return NULL;
	}
	/* A directory that is there is checked at once: it warns first. */
	open_dir(c, false);
	return c;
}

void
sym_cache_free(struct sym_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->v[i].name);
		sym_cset_free(c->v[i].set);
		sym_corigin_release(&c->v[i].origin);
	}
	free(c->v);
	for (i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	sp_htab_free(c->by_name);
	sp_htab_free(c->warned);
	if (c->dfd >= 0)
		close(c->dfd);
	free(c->dir);
	free(c);
}

/*
 * Reads the file `name` of the directory whole into `b`, unless it is
 * larger than `max`.  Only a regular file of this user that nobody else
 * may write is read: another one may have been planted.  Returns 0,
 * -EFBIG, -EPERM for a file refused, or a negative errno.
 */
static int
read_file(struct sym_cache *c, const char *name, uint64_t max, struct sp_buf *b)
{
	struct stat st;
	ssize_t got;
	int fd, rc = open_dir(c, false);

	if (rc)
		return rc;
	fd = sp_open_regular(c->dfd, name, true, &st);
	if (fd < 0)
		return fd == -EINVAL || fd == -ELOOP ? -EPERM : fd;
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		rc = -EPERM;
	else if ((uint64_t)st.st_size > max)
		rc = -EFBIG;
	else if (sp_buf_grow(b, (size_t)st.st_size + 1))
		rc = -ENOMEM;
	/* Files are replaced, never rewritten: one read takes it whole. */
	while (rc == 0) {
		if (b->alloc - b->len < 2 && sp_buf_grow(b, 65536)) {
			rc = -ENOMEM;
			break;
		}
		got = read(fd, b->data + b->len, b->alloc - b->len - 1);
		if (got <= 0) {
			rc = got < 0 ? -errno : 0;
			break;
		}
		b->len += (size_t)got;
		b->data[b->len] = '\0'; /* buf.h's invariant */
		if (b->len > max)
			rc = -EFBIG;
	}
	close(fd);
	return rc;
}

static bool
valid_buildid(const char *id)
{
	size_t n = strspn(id, "0123456789abcdef");

	return id[n] == '\0' && n >= 4 && n <= 128;
}

/*
 * Says, once per build id, that the cache holds results another file
 * with the build id of `path` made, which `path` does not use.
 */
static void
conflict(struct sym_cache *c, const char *buildid, const char *path,
	 const char *other)
{
	size_t len = strlen(buildid);

	if (sp_htab_get(c->warned, buildid, len, NULL))
		return;
	sp_htab_put(c->warned, buildid, len, 0);
	sym_warnf(c->warn, c->warn_ctx,
		  "'%s': build id %s: the cache holds results of another file "
		  "with this build id, '%s': they are not used",
		  path, buildid, other ? other : "whose path is unknown");
}

/*
 * Makes `src` the origin of `e`, its content hash `hash`; 0 or
 * -ENOMEM.
 */
static int
set_origin(struct centry *e, const struct sym_csource *src, uint64_t hash)
{
	sym_corigin_release(&e->origin);
	e->origin.hash = hash;
	sym_corigin_note(&e->origin, &src->st);
	return sym_corigin_set_path(&e->origin, src->path);
}

/* Lists the directory's BUILDID-CTX files once, for siblings(). */
static void
list_names(struct sym_cache *c)
{
	int fd = c->dfd >= 0 ? dup(c->dfd) : -1;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	bool tmp;

	c->listed = true;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	rewinddir(d); /* the descriptor's offset is shared with c->dfd */
	while ((de = readdir(d))) {
		if (!own_name(de->d_name, &tmp) || tmp ||
		    strchr(de->d_name, '.'))
			continue;
		if (SP_GROW(c->names, c->anames, c->nnames + 1) ||
		    !(c->names[c->nnames] = strdup(de->d_name)))
			break;
		c->nnames++;
	}
	closedir(d);
}

/*
 * Whether the origin `o` is another file than that of `e` in a way a
 * context cannot explain: the same size (the context holds the size,
 * as a stripped copy has another), other bytes.
 */
static bool
other_file(const struct centry *e, const struct sym_corigin *o)
{
	return o->hash && o->nids > 0 && o->hash != e->origin.hash &&
	       o->ids[0].size == e->origin.ids[0].size;
}

/*
 * Whether the cache file `name` (a sibling of `e` under another
 * context) holds results of another file (other_file()); *path is
 * then that file's, or NULL.
 */
static bool
other_sibling(struct sym_cache *c, const struct centry *e, const char *name,
	      char **path)
{
	struct sym_corigin o = SYM_CORIGIN_INIT;
	struct sp_buf b = SP_BUF_INIT;
	const char *dash = strrchr(name, '-');
	uint64_t ctx = strtoull(dash + 1, NULL, 16);
	bool other = false;

	if (read_file(c, name, c->max, &b) == 0 &&
	    sym_cset_origin(b.data, b.len, ctx, &o) == 0 && other_file(e, &o)) {
		other = true;
		*path = o.path;
		o.path = NULL;
	}
	sp_buf_release(&b);
	sym_corigin_release(&o);
	return other;
}

/*
 * Looks for results of another file with the build id of `e` under
 * other contexts (another owner, other options or debug files), in
 * this run or on disk, when `e` starts afresh: those are never used for
 * `e`, but two files claiming one build id are worth a word.
 */
static void
siblings(struct sym_cache *c, const struct centry *e, const char *buildid)
{
	size_t len = strlen(buildid), i, seen = 0;
	char *other;

	for (i = 0; i < c->n; i++)
		if (&c->v[i] != e && strncmp(c->v[i].name, buildid, len) == 0 &&
		    c->v[i].name[len] == '-' &&
		    other_file(e, &c->v[i].origin)) {
			conflict(c, buildid, e->origin.path,
				 c->v[i].origin.path);
			return;
		}
	if (!c->listed)
		list_names(c);
	for (i = 0; i < c->nnames && seen < SYM_CACHE_MAX_SIBLINGS; i++) {
		if (strncmp(c->names[i], buildid, len) != 0 ||
		    c->names[i][len] != '-' ||
		    sp_htab_get(c->by_name, c->names[i], strlen(c->names[i]),
				NULL))
			continue;
		seen++;
		other = NULL;
		if (other_sibling(c, e, c->names[i], &other)) {
			conflict(c, buildid, e->origin.path, other);
			free(other);
			return;
		}
	}
}

/*
 * Starts `e` afresh for the file `src`: its content hashed, no results.
 * Returns false when the file cannot be hashed as the one identified
 * (changed since, unreadable): then it is not cached in this run.
 */
static bool
start_afresh(struct centry *e, const struct sym_csource *src)
{
	uint64_t hash;

	if (sym_fileid_hash(src->path, &src->st, &hash) ||
	    set_origin(e, src, hash))
		return false;
	return true;
}

enum { ADOPT_NO_CACHE = -1, ADOPT_AFRESH, ADOPT_USE };

/*
 * Decides whether the results of the cache file of `e`, origin `o`
 * (taken over), are those of the file `src` (NULL: of no file): an
 * identity the file recorded, or else the same content hash (a copy, a
 * reinstall: its identity is added).  Another file's results are not
 * used: one warning, and `e` starts afresh, to replace them at the
 * save.  Returns ADOPT_USE, ADOPT_AFRESH, or ADOPT_NO_CACHE when `src`
 * cannot be cached in this run.
 */
static int
adopt(struct sym_cache *c, struct centry *e, const char *buildid,
      const struct sym_csource *src, struct sym_corigin *o)
{
	uint64_t hash;

	sym_corigin_release(&e->origin);
	e->origin = *o;
	*o = (struct sym_corigin)SYM_CORIGIN_INIT;
	if (!src || sym_corigin_knows(&e->origin, &src->st))
		return ADOPT_USE;
	if (sym_fileid_hash(src->path, &src->st, &hash))
		return ADOPT_NO_CACHE;
	if (hash != 0 && hash == e->origin.hash) {
		e->rewrite = sym_corigin_note(&e->origin, &src->st);
		return sym_corigin_set_path(&e->origin, src->path)
			   ? ADOPT_NO_CACHE
			   : ADOPT_USE;
	}
	conflict(c, buildid, src->path, e->origin.path);
	e->rewrite = true;
	return set_origin(e, src, hash) ? ADOPT_NO_CACHE : ADOPT_AFRESH;
}

/* Warns about the cache file of `e` that could not be used. */
static void
unusable(struct sym_cache *c, struct centry *e, int rc)
{
	if (rc == -EBADMSG || rc == -ESTALE) {
		sym_warnf(c->warn, c->warn_ctx,
			  "'%s/%s': corrupt cache file ignored; it is rebuilt",
			  c->dir, e->name);
		e->rewrite = true;
	} else if (rc == -EPERM && !c->off) {
		sym_warnf(c->warn, c->warn_ctx,
			  "'%s/%s': not a regular file of this user that "
			  "only its owner may write: ignored; it is replaced",
			  c->dir, e->name);
		e->rewrite = true;
	}
}

/*
 * Loads the file of `e` into its set when its results are of `src`
 * (adopt()); warns about a corrupt one.  Without a usable file, a set
 * of a file starts afresh.  Returns false when `src` cannot be cached
 * in this run.
 */
static bool
load(struct sym_cache *c, struct centry *e, const char *buildid,
     const struct sym_csource *src)
{
	struct sym_corigin o = SYM_CORIGIN_INIT;
	struct sp_buf b = SP_BUF_INIT;
	int rc = read_file(c, e->name, c->max, &b), how = ADOPT_AFRESH;

	if (rc == 0)
		rc = sym_cset_origin(b.data, b.len, e->ctx, &o);
	if (rc == 0)
		how = adopt(c, e, buildid, src, &o);
	if (rc == 0 && how == ADOPT_USE)
		rc = sym_cset_decode(e->set, b.data, b.len, e->ctx);
	sp_buf_release(&b);
	sym_corigin_release(&o);
	unusable(c, e, rc);
	if (rc == 0)
		/* Touched when used: eviction removes the least recent. */
		utimensat(c->dfd, e->name, NULL, AT_SYMLINK_NOFOLLOW);
	else if (src && how == ADOPT_AFRESH && !start_afresh(e, src))
		how = ADOPT_NO_CACHE;
	else if (src && how == ADOPT_AFRESH)
		siblings(c, e, buildid);
	e->loaded = sym_cset_count(e->set);
	return how != ADOPT_NO_CACHE;
}

/*
 * Whether the set of `e`, met again in this run, may serve the file
 * `src`: the same file, or the same bytes (that identity is added).
 */
static bool
claim(struct sym_cache *c, struct centry *e, const char *buildid,
      const struct sym_csource *src)
{
	uint64_t hash;

	if (!src || sym_corigin_knows(&e->origin, &src->st))
		return true;
	if (!e->origin.hash || sym_fileid_hash(src->path, &src->st, &hash))
		return false;
	if (hash == e->origin.hash) {
		e->rewrite |= sym_corigin_note(&e->origin, &src->st);
		return true;
	}
	conflict(c, buildid, src->path, e->origin.path);
	return false;
}

struct sym_cset *
sym_cache_set(struct sym_cache *c, const char *buildid, uint64_t ctx,
	      const struct sym_csource *src)
{
	struct centry *e;
	uint64_t i;
	char *name;

	if (c->off || !valid_buildid(buildid) ||
	    asprintf(&name, "%s-%016" PRIx64, buildid, ctx) < 0)
		return NULL;
	if (sp_htab_get(c->by_name, name, strlen(name), &i)) {
		free(name);
		e = &c->v[i];
		return e->set && claim(c, e, buildid, src) ? e->set : NULL;
	}
	if (SP_GROW(c->v, c->alloc, c->n + 1) ||
	    sp_htab_put(c->by_name, name, strlen(name), c->n)) {
		free(name);
		return NULL;
	}
	e = &c->v[c->n++];
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->ctx = ctx;
	e->origin = (struct sym_corigin)SYM_CORIGIN_INIT;
	e->set = sym_cset_new();
	if (e->set && !load(c, e, buildid, src)) {
		/* Not this file's results, nor can they be: no cache. */
		sym_cset_free(e->set);
		e->set = NULL;
	}
	return e->set;
}

static int
write_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Creates a new temporary file for `name` in the directory, as
 * mkostemp(3) would but relative to its descriptor; fills tmp[] with
 * its name.  Returns the descriptor or a negative errno.
 */
static int
create_tmp(struct sym_cache *c, const char *name, char *tmp, size_t size)
{
	static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned seq;
	struct timespec ts;
	uint64_t r;
	int i, k, fd;

	for (i = 0; i < 100; i++) {
		clock_gettime(CLOCK_REALTIME, &ts);
		r = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^
		    (uint64_t)getpid() << 40 ^ (uint64_t)seq++ << 20;
		r = sp_hash(&r, sizeof(r));
		if ((size_t)snprintf(tmp, size, "%s.tmp.XXXXXX", name) >= size)
			return -ENAMETOOLONG;
		for (k = 0; k < 6; k++, r /= sizeof(alnum) - 1)
			tmp[strlen(tmp) - 6 + (size_t)k] =
			    alnum[r % (sizeof(alnum) - 1)];
		fd = openat(
		    c->dfd, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* Writes `b` to `name` through a temporary file and rename(2). */
static int
replace_file(struct sym_cache *c, const char *name, const struct sp_buf *b)
{
	char tmp[NAME_MAX + 1];
	int fd, rc;

	fd = create_tmp(c, name, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	rc = write_all(fd, b->data, b->len);
	if (close(fd) && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(c->dfd, tmp, c->dfd, name))
		rc = -errno;
	if (rc)
		unlinkat(c->dfd, tmp, 0);
	return rc;
}

/*
 * Merges what another run saved meanwhile from the same bytes (results
 * and identities), then replaces the file.  Another file's results are
 * replaced: the last run to save wins.
 */
static int
write_back(struct sym_cache *c, struct centry *e)
{
	struct sym_corigin o = SYM_CORIGIN_INIT;
	struct sp_buf b = SP_BUF_INIT;
	size_t i;
	int rc;

	if (read_file(c, e->name, c->max, &b) == 0 &&
	    sym_cset_origin(b.data, b.len, e->ctx, &o) == 0 &&
	    o.hash == e->origin.hash) {
		sym_cset_decode(e->set, b.data, b.len, e->ctx);
		for (i = 0; i < o.nids; i++)
			if (e->origin.nids < SYM_CACHEFILE_MAX_IDS &&
			    !sym_corigin_knows(&e->origin, &o.ids[i]))
				e->origin.ids[e->origin.nids++] = o.ids[i];
	}
	sym_corigin_release(&o);
	sp_buf_reset(&b);
	rc = sym_cset_encode(e->set, e->ctx, &e->origin, &b);
	if (rc == 0)
		rc = replace_file(c, e->name, &b);
	sp_buf_release(&b);
	return rc;
}

/* Whether `name` may be a caller's whole file: BUILDID.KIND. */
static bool
file_name_ok(const char *name)
{
	bool tmp;

	return own_name(name, &tmp) && !tmp && strchr(name, '.');
}

int
sym_cache_get_file(struct sym_cache *c, const char *name, struct sp_buf *out)
{
	int rc;

	if (!file_name_ok(name))
		return -EINVAL;
	rc = read_file(c, name, c->max, out);
	if (rc == 0)
		utimensat(c->dfd, name, NULL, AT_SYMLINK_NOFOLLOW);
	return rc;
}

int
sym_cache_put_file(struct sym_cache *c, const char *name,
		   const struct sp_buf *b)
{
	if (!file_name_ok(name))
		return -EINVAL;
	/* A file that would fill the bound would only evict the rest. */
	if (c->failed || b->len > c->max / 4)
		return 0;
	if (open_dir(c, true))
		return 0;
	return replace_file(c, name, b);
}

/* A file of the cache directory, for eviction. */
struct dfile {
	char *name;
	uint64_t size;
	struct timespec used;
};

static int
older_first(const void *a, const void *b)
{
	const struct dfile *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Whether a directory entry counts for eviction: the cache's own
 * regular files, except a temporary file young enough to be another
 * run's save in progress.
 */
static bool
counts(const char *name, const struct stat *st, time_t now)
{
	bool tmp;

	return S_ISREG(st->st_mode) && own_name(name, &tmp) &&
	       (!tmp || now - st->st_mtim.tv_sec > SYM_CACHE_TMP_AGE);
}
/* Lists the files that count; returns their number, or -errno. */
static long
list_files(DIR *d, struct dfile **out, uint64_t *total)
{
	struct dfile *v = NULL;
	size_t n = 0, alloc = 0;
	time_t now = time(NULL);
	struct dirent *de;
	struct stat st;

	*total = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !counts(de->d_name, &st, now))
			continue;
		if (SP_GROW(v, alloc, n + 1) ||
		    !(v[n].name = strdup(de->d_name))) {
			while (n > 0)
				free(v[--n].name);
			free(v);
			return -ENOMEM;
		}
		v[n].size = (uint64_t)st.st_size;
		v[n].used = st.st_mtim;
		*total += v[n++].size;
	}
	*out = v;
	return (long)n;
}

/* Removes the least recently used files until the bound holds. */
static int
evict(struct sym_cache *c)
{
	int fd = dup(c->dfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dfile *v = NULL;
	uint64_t total;
	long n, i;

	if (!d) {
		n = -errno;
		if (fd >= 0)
			close(fd);
		return (int)n;
	}
	rewinddir(d); /* the descriptor's offset is shared with c->dfd */
	n = list_files(d, &v, &total);
	if (n > 0)
		qsort(v, (size_t)n, sizeof(*v), older_first);
	for (i = 0; i < n; i++) {
		/* Another run may have removed it first: that is as good. */
		if (total > c->max &&
		    (unlinkat(dirfd(d), v[i].name, 0) == 0 || errno == ENOENT))
			total -= v[i].size;
		free(v[i].name);
	}
	free(v);
	closedir(d);
	return n < 0 ? (int)n : 0;
}

int
sym_cache_save(struct sym_cache *c)
{
	int written = 0, rc = 0;
	size_t i;

	if (c->failed || c->off)
		return 0;
	for (i = 0; i < c->n && rc == 0; i++) {
		struct centry *e = &c->v[i];

		if (!e->set ||
		    (!e->rewrite && sym_cset_count(e->set) == e->loaded))
			continue;
		/* Nowhere to keep a cache (a read-only home): no cache. */
		if (!written && open_dir(c, true))
			return 0;
		rc = write_back(c, e);
		if (rc == 0) {
			written++;
			e->loaded = sym_cset_count(e->set);
			e->rewrite = false;
		}
	}
	if (rc == 0 && written)
		rc = evict(c);
	if (rc) {
		c->failed = true;
		sym_warnf(c->warn, c->warn_ctx,
			  "'%s': cannot save the symbol cache: %s", c->dir,
			  strerror(-rc));
		return rc;
	}
	return written;
}
