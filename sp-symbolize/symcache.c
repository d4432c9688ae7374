/*
 * symcache.c: the persistent cache of resolved frames (see symcache.h).
 * File names are BUILDID-CTX, CTX as 16 hex digits, or the callers' own
 * names for whole files; temporary files add ".tmp.XXXXXX".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include "sp-symbolize/symcache.h"
#include "common/banned.h"

/* A temporary file this old was left by a run that died: fair game. */
#define SYM_CACHE_TMP_AGE 3600

struct centry {
	char *path;
	uint64_t ctx;
	struct sym_cset *set;
	size_t loaded; /* results the file holds (read or written) */
	bool rewrite;  /* the file was corrupt: replace it */
};

struct sym_cache {
	char *dir;
	uint64_t max;
	sym_warn_fn *warn;
	void *warn_ctx;
	struct sp_htab *by_path; /* path -> index into v */
	struct centry *v;
	size_t n, alloc;
	bool failed; /* a save failed and said so: no more saves */
};

struct sym_cache *
sym_cache_new(const char *dir, uint64_t max_bytes, sym_warn_fn *warn,
	      void *warn_ctx)
{
	struct sym_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->max = max_bytes;
	c->warn = warn;
	c->warn_ctx = warn_ctx;
	c->dir = strdup(dir);
	c->by_path = sp_htab_new();
	if (!c->dir || !c->by_path) {
		sym_cache_free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void
sym_cache_free(struct sym_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->v[i].path);
		sym_cset_free(c->v[i].set);
	}
	free(c->v);
	sp_htab_free(c->by_path);
	free(c->dir);
	free(c);
}

/*
 * Reads the regular file `path` whole into `b`, unless it is larger
 * than `max`.  Returns 0, -EFBIG, or a negative errno.
 */
static int
read_file(const char *path, uint64_t max, struct sp_buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	ssize_t got;
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		rc = -EINVAL;
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

/* Loads the file of `e` into its set; warns about a corrupt one. */
static void
load(struct sym_cache *c, struct centry *e)
{
	struct sp_buf b = SP_BUF_INIT;
	int rc = read_file(e->path, c->max, &b);

	if (rc == 0)
		rc = sym_cset_decode(e->set, b.data, b.len, e->ctx);
	sp_buf_release(&b);
	if (rc == -EBADMSG || rc == -ESTALE) {
		sym_warnf(c->warn, c->warn_ctx,
			  "'%s': corrupt cache file ignored; it is rebuilt",
			  e->path);
		e->rewrite = true;
	} else if (rc == 0) {
		/* Touched when used: eviction removes the least recent. */
		utimensat(AT_FDCWD, e->path, NULL, 0);
	}
	e->loaded = sym_cset_count(e->set);
}

struct sym_cset *
sym_cache_set(struct sym_cache *c, const char *buildid, uint64_t ctx)
{
	struct centry *e;
	uint64_t i;
	char *path;

	if (!valid_buildid(buildid) ||
	    asprintf(&path, "%s/%s-%016" PRIx64, c->dir, buildid, ctx) < 0)
		return NULL;
	if (sp_htab_get(c->by_path, path, strlen(path), &i)) {
		free(path);
		return c->v[i].set;
	}
	if (SP_GROW(c->v, c->alloc, c->n + 1) ||
	    sp_htab_put(c->by_path, path, strlen(path), c->n)) {
		free(path);
		return NULL;
	}
	e = &c->v[c->n++];
	memset(e, 0, sizeof(*e));
	e->path = path;
	e->ctx = ctx;
	e->set = sym_cset_new();
	if (e->set)
		load(c, e);
	return e->set;
}

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

/* Writes `b` to `path` through a temporary file and rename(2). */
static int
replace_file(const char *path, const struct sp_buf *b)
{
	char *tmp;
	int fd, rc = 0;

	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		free(tmp);
		return rc;
	}
	rc = write_all(fd, b->data, b->len);
	if (close(fd) && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

/* Merges what another run saved meanwhile, then replaces the file. */
static int
write_back(struct sym_cache *c, struct centry *e)
{
	struct sp_buf b = SP_BUF_INIT;
	int rc;

	if (read_file(e->path, c->max, &b) == 0)
		sym_cset_decode(e->set, b.data, b.len, e->ctx);
	sp_buf_reset(&b);
	rc = sym_cset_encode(e->set, e->ctx, &b);
	if (rc == 0)
		rc = replace_file(e->path, &b);
	sp_buf_release(&b);
	return rc;
}

int
sym_cache_get_file(struct sym_cache *c, const char *name, struct sp_buf *out)
{
	char *path;
	int rc;

	if (asprintf(&path, "%s/%s", c->dir, name) < 0)
		return -ENOMEM;
	rc = read_file(path, c->max, out);
	if (rc == 0)
		utimensat(AT_FDCWD, path, NULL, 0);
	free(path);
	return rc;
}

int
sym_cache_put_file(struct sym_cache *c, const char *name,
		   const struct sp_buf *b)
{
	char *path;
	int rc;

	/* A file that would fill the bound would only evict the rest. */
	if (c->failed || b->len > c->max / 4)
		return 0;
	if (make_dirs(c->dir))
		return 0;
	if (asprintf(&path, "%s/%s", c->dir, name) < 0)
		return -ENOMEM;
	rc = replace_file(path, b);
	free(path);
	return rc;
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
 * Whether a directory entry counts for eviction: regular files, except
 * a temporary file young enough to be another run's save in progress.
 */
static bool
counts(const char *name, const struct stat *st, time_t now)
{
	return S_ISREG(st->st_mode) &&
	       (!strstr(name, ".tmp.") ||
		now - st->st_mtim.tv_sec > SYM_CACHE_TMP_AGE);
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
	DIR *d = opendir(c->dir);
	struct dfile *v = NULL;
	uint64_t total;
	long n, i;

	if (!d)
		return -errno;
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

	if (c->failed)
		return 0;
	for (i = 0; i < c->n && rc == 0; i++) {
		struct centry *e = &c->v[i];

		if (!e->set ||
		    (!e->rewrite && sym_cset_count(e->set) == e->loaded))
			continue;
		/* Nowhere to keep a cache (a read-only home): no cache. */
		if (!written && make_dirs(c->dir))
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
