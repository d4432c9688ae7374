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
#include "sp-symbolize/symcache.h"
#include "common/banned.h"

/* A temporary file this old was left by a run that died: fair game. */
#define SYM_CACHE_TMP_AGE 3600

struct centry {
	char *name; /* in the directory */
	uint64_t ctx;
	struct sym_cset *set;
	size_t loaded; /* results the file holds (read or written) */
	bool rewrite;  /* the file was corrupt: replace it */
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
	bool failed; /* a save failed and said so: no more saves */
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
	if (!c->dir || !c->by_name) {
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
	}
	free(c->v);
	sp_htab_free(c->by_name);
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

/* Loads the file of `e` into its set; warns about a corrupt one. */
static void
load(struct sym_cache *c, struct centry *e)
{
	struct sp_buf b = SP_BUF_INIT;
	int rc = read_file(c, e->name, c->max, &b);

	if (rc == 0)
		rc = sym_cset_decode(e->set, b.data, b.len, e->ctx);
	sp_buf_release(&b);
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
	} else if (rc == 0) {
		/* Touched when used: eviction removes the least recent. */
		utimensat(c->dfd, e->name, NULL, AT_SYMLINK_NOFOLLOW);
	}
	e->loaded = sym_cset_count(e->set);
}

struct sym_cset *
sym_cache_set(struct sym_cache *c, const char *buildid, uint64_t ctx)
{
	struct centry *e;
	uint64_t i;
	char *name;

	if (c->off || !valid_buildid(buildid) ||
	    asprintf(&name, "%s-%016" PRIx64, buildid, ctx) < 0)
		return NULL;
	if (sp_htab_get(c->by_name, name, strlen(name), &i)) {
		free(name);
		return c->v[i].set;
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
	e->set = sym_cset_new();
	if (e->set)
		load(c, e);
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

/* Merges what another run saved meanwhile, then replaces the file. */
static int
write_back(struct sym_cache *c, struct centry *e)
{
	struct sp_buf b = SP_BUF_INIT;
	int rc;

	if (read_file(c, e->name, c->max, &b) == 0)
		sym_cset_decode(e->set, b.data, b.len, e->ctx);
	sp_buf_reset(&b);
	rc = sym_cset_encode(e->set, e->ctx, &b);
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
