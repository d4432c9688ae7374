/*
 * idstore.c: module files kept by build id in a build-id tree, and the
 * tree's bound (idstore.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"
#include "sp-record/capture/idstore.h"
#include "common/banned.h"

#define COPY_CHUNK (1u << 20)

struct rec_idstore {
	char *dir;
	int dfd;         /* DIR */
	int idfd;        /* DIR/.build-id, -1 until made */
	unsigned serial; /* temporary file names */
};

/* Whether a directory open as `fd` is ours alone to write. */
static int
check_dir(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return 0;
}

/*
 * Opens directory `name` under `at` (AT_FDCWD: a path), making it (0700)
 * when absent, never through a symbolic link, and only when it is ours
 * alone.  Returns the descriptor or a negative errno.
 */
static int
open_dir(int at, const char *name)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(at, name, flags), rc;

	if (fd < 0 && errno == ENOENT) {
		if (mkdirat(at, name, 0700) < 0 && errno != EEXIST)
			return -errno;
		fd = openat(at, name, flags);
	}
	if (fd < 0)
		return -errno;
	rc = check_dir(fd);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/* Makes the missing parents of `dir` (0700); their owners are theirs. */
static void
make_parents(char *dir)
{
	char *p;

	for (p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		(void)mkdir(dir, 0700);
		*p = '/';
	}
}

struct rec_idstore *
rec_idstore_open(const char *dir)
{
	struct rec_idstore *s = calloc(1, sizeof(*s));
	int fd;

	if (!s || !(s->dir = strdup(dir))) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	make_parents(s->dir);
	fd = open_dir(AT_FDCWD, s->dir);
	if (fd < 0) {
		free(s->dir);
		free(s);
		errno = -fd;
		return NULL;
	}
	s->dfd = fd;
	s->idfd = -1;
	return s;
}

void
rec_idstore_free(struct rec_idstore *s)
{
	if (!s)
		return;
	if (s->idfd >= 0)
		close(s->idfd);
	close(s->dfd);
	free(s->dir);
	free(s);
}

const char *
rec_idstore_dir(const struct rec_idstore *s)
{
	return s->dir;
}

static bool
valid_id(const char *hex)
{
	size_t n = strspn(hex, "0123456789abcdef");

	return hex[n] == '\0' && n >= 4 && n <= 128 && n % 2 == 0;
}

/*
 * Directory `name` under `at` when it exists and passes check_dir(),
 * not through a link: a descriptor, or -errno (-EPERM: refused).
 */
static int
open_existing(int at, const char *name)
{
	int fd =
	    openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (check_dir(fd) < 0) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/*
 * DIR/.build-id, made when `make`, kept open: its descriptor (not to be
 * closed) or -errno.
 */
static int
open_ids(struct rec_idstore *s, bool make)
{
	int fd;

	if (s->idfd >= 0)
		return s->idfd;
	fd = make ? open_dir(s->dfd, ".build-id")
		  : open_existing(s->dfd, ".build-id");
	if (fd >= 0)
		s->idfd = fd;
	return fd;
}

/* DIR/.build-id/xx for `hex`, made when `make`; a descriptor or -errno. */
static int
open_sub(struct rec_idstore *s, const char *hex, bool make)
{
	char xx[3] = { hex[0], hex[1], '\0' };
	int ids = open_ids(s, make), fd;

	if (ids < 0)
		return ids;
	if (make)
		return open_dir(ids, xx);
	fd = openat(ids, xx, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

bool
rec_idstore_has(struct rec_idstore *s, const char *hex)
{
	struct stat st;
	int fd;
	bool have;

	if (!valid_id(hex) || (fd = open_sub(s, hex, false)) < 0)
		return false;
	have = fstatat(fd, hex + 2, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode);
	close(fd);
	return have;
}

void
rec_idstore_touch(struct rec_idstore *s, const char *hex)
{
	const struct timespec t[2] = { { 0, UTIME_NOW }, { 0, UTIME_OMIT } };
	int fd;

	if (!valid_id(hex) || (fd = open_sub(s, hex, false)) < 0)
		return;
	(void)utimensat(fd, hex + 2, t, AT_SYMLINK_NOFOLLOW);
	close(fd);
}

/* One file of the tree, as pruning sees it. */
struct tfile {
	int64_t used; /* the later of atime and mtime, in ns */
	uint64_t size;
	char id[2 * 64 + 1]; /* its build id: xx then the name */
	char jit[192];       /* or, when set, its name under .jit */
};

struct tlist {
	struct tfile *v;
	size_t n, alloc;
	uint64_t total;
};

static int64_t
ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* Adds the file `st` describes to `l`: a build id's, or a JIT file's. */
static int
add_file(struct tlist *l, const char *id, const char *jit,
	 const struct stat *st)
{
	struct tfile *f;
	int64_t a, m;

	if (SP_GROW(l->v, l->alloc, l->n + 1))
		return -ENOMEM;
	f = &l->v[l->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->id, sizeof(f->id), "%s", id);
	snprintf(f->jit, sizeof(f->jit), "%s", jit);
	a = ns_of(&st->st_atim);
	m = ns_of(&st->st_mtim);
	f->used = a > m ? a : m;
	f->size = (uint64_t)st->st_size;
	l->total += f->size;
	return 0;
}

/*
 * Lists the entries of DIR/.build-id/`xx` (open as `sub`, taken) into
 * `l`: regular files of ours named like the rest of a build id.
 */
static int
list_sub(int sub, const char *xx, struct tlist *l)
{
	DIR *d = fdopendir(sub);
	char id[sizeof(l->v->id)];
	struct dirent *de;
	struct stat st;
	size_t len;
	int rc = 0;

	if (!d) {
		close(sub);
		return -errno;
	}
	while (rc == 0 && (de = readdir(d))) {
		if ((len = strlen(de->d_name)) > sizeof(id) - 3)
			continue;
		memcpy(id, xx, 2);
		memcpy(id + 2, de->d_name, len + 1);
		if (!valid_id(id) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) <
			0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		rc = add_file(l, id, "", &st);
	}
	closedir(d);
	return rc;
}

/* Whether `name` is a JIT file's under .jit (not a temporary file). */
static bool
valid_jit(const char *name)
{
	size_t n = strlen(name);

	return n && n < sizeof(((struct tfile *)0)->jit) && name[0] != '.' &&
	       strspn(name, "0123456789abcdefghijklmnopqrstuvwxyz-.") == n &&
	       !strstr(name, ".tmp.") &&
	       ((n > 4 && !strcmp(name + n - 4, ".map")) ||
		(n > 5 && !strcmp(name + n - 5, ".dump")));
}

/* Lists the JIT files of DIR/.jit into `l`, as list_sub() does. */
static int
list_jit(struct rec_idstore *s, struct tlist *l)
{
	int fd = open_existing(s->dfd, ".jit"), rc = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	if (!(d = fdopendir(fd))) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while (rc == 0 && (de = readdir(d)))
		if (valid_jit(de->d_name) &&
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
			0 &&
		    S_ISREG(st.st_mode) && st.st_uid == geteuid())
			rc = add_file(l, "", de->d_name, &st);
	closedir(d);
	return rc;
}

/* Lists the tree's entries into `l`; 0 or a negative errno. */
static int
list_tree(struct rec_idstore *s, struct tlist *l)
{
	const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	struct dirent *de;
	int fd, sub, rc = 0;
	DIR *d;

	if ((fd = open_ids(s, false)) < 0)
		return fd == -ENOENT ? 0 : fd;
	/* Not dup(): a duplicate shares the last listing's position. */
	if ((fd = openat(fd, ".", flags)) < 0 || !(d = fdopendir(fd))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	while (rc == 0 && (de = readdir(d))) {
		if (strlen(de->d_name) != 2 ||
		    strspn(de->d_name, "0123456789abcdef") != 2)
			continue;
		if ((sub = openat(dirfd(d), de->d_name, flags)) < 0)
			continue;
		if (check_dir(sub) < 0) {
			close(sub);
			continue;
		}
		rc = list_sub(sub, de->d_name, l);
	}
	closedir(d);
	return rc;
}

/* The file's name in its directory. */
static const char *
name_of(const struct tfile *f)
{
	return f->jit[0] ? f->jit : f->id + 2;
}

/*
 * Whether the file of `f`, in `sub`, is still the listed kind of file and
 * unused since `keep_since_ns`: another recording may have used or
 * replaced it since it was listed.
 */
static bool
still_unused(int sub, const struct tfile *f, int64_t keep_since_ns)
{
	struct stat st;
	int64_t a, m;

	if (fstatat(sub, name_of(f), &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return false;
	a = ns_of(&st.st_atim);
	m = ns_of(&st.st_mtim);
	return (a > m ? a : m) < keep_since_ns;
}

static int
by_use(const void *a, const void *b)
{
	const struct tfile *x = a, *y = b;

	return (x->used > y->used) - (x->used < y->used);
}

int
rec_idstore_prune(struct rec_idstore *s, uint64_t max, int64_t keep_since_ns,
		  struct rec_idstore_pruned *out)
{
	struct tlist l = { NULL, 0, 0, 0 };
	const struct tfile *f;
	size_t i;
	int rc, sub;

	rc = list_tree(s, &l);
	if (rc == 0)
		rc = list_jit(s, &l);
	if (rc == 0 && l.total > max)
		qsort(l.v, l.n, sizeof(*l.v), by_use);
	for (i = 0; rc == 0 && l.total > max && i < l.n; i++) {
		f = &l.v[i];
		if (f->used >= keep_since_ns)
			break;
		sub = f->jit[0] ? open_existing(s->dfd, ".jit")
				: open_sub(s, f->id, false);
		if (sub < 0)
			continue;
		if (still_unused(sub, f, keep_since_ns) &&
		    unlinkat(sub, name_of(f), 0) == 0) {
			l.total -= f->size;
			out->files++;
			out->bytes += f->size;
		}
		close(sub);
	}
	free(l.v);
	return rc;
}

/* Where the bytes come from: a descriptor, else memory. */
struct src {
	int fd;
	const uint8_t *mem;
	uint64_t len;
};

/* Copies `src` into `out`; 0 or a negative errno. */
static int
copy_bytes(int out, const struct src *src)
{
	uint8_t *buf = NULL;
	uint64_t done = 0;
	size_t want;
	ssize_t n, w;
	int rc = 0;

	if (src->fd >= 0 && !(buf = malloc(COPY_CHUNK)))
		return -ENOMEM;
	while (done < src->len && rc == 0) {
		want =
		    src->len - done < COPY_CHUNK ? src->len - done : COPY_CHUNK;
		if (buf) {
			n = pread(src->fd, buf, want, (off_t)done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				rc = n < 0 ? -errno : -EIO;
				break;
			}
		} else {
			n = (ssize_t)want;
		}
		w = write(out, buf ? buf : src->mem + done, (size_t)n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = w < 0 ? -errno : -EIO;
		else
			done += (uint64_t)w;
	}
	free(buf);
	return rc;
}

/*
 * Writes `src` as `name` in directory `dfd` (taken): into a temporary
 * file beside it, renamed over it once whole.
 */
static int
put_at(struct rec_idstore *s, int dfd, const char *name, const struct src *src)
{
	char tmp[256];
	int out, rc;

	snprintf(tmp, sizeof(tmp), "%.180s.tmp.%ld.%u", name, (long)getpid(),
		 s->serial++);
	out =
	    openat(dfd, tmp,
		   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		rc = -errno;
		close(dfd);
		return rc;
	}
	rc = copy_bytes(out, src);
	if (close(out) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && renameat(dfd, tmp, dfd, name) < 0)
		rc = -errno;
	if (rc < 0)
		unlinkat(dfd, tmp, 0);
	close(dfd);
	return rc;
}

static int
put(struct rec_idstore *s, const char *hex, const struct src *src)
{
	int dfd;

	if (!valid_id(hex))
		return -EINVAL;
	dfd = open_sub(s, hex, true);
	if (dfd < 0)
		return dfd;
	return put_at(s, dfd, hex + 2, src);
}

int
rec_idstore_put_jit(struct rec_idstore *s, const char *name, int fd,
		    uint64_t len)
{
	struct src src = { fd, NULL, len };
	int dfd;

	if (!valid_jit(name))
		return -EINVAL;
	dfd = open_dir(s->dfd, ".jit");
	if (dfd < 0)
		return dfd;
	return put_at(s, dfd, name, &src);
}

int
rec_idstore_put_fd(struct rec_idstore *s, const char *hex, int fd, uint64_t len)
{
	struct src src = { fd, NULL, len };

	return put(s, hex, &src);
}

int
rec_idstore_put_mem(struct rec_idstore *s, const char *hex, const void *data,
		    size_t len)
{
	struct src src = { -1, data, len };

	return put(s, hex, &src);
}
