/*
 * perfmap.c: JIT perf maps (see perfmap.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/openreg.h"
#include "sp-symbolize/jit/perfmap.h"
#include "common/buf.h"
#include "common/search.h"
#include "common/banned.h"

/* How many earlier entries a lookup checks for an enclosing range. */
#define SYM_PERFMAP_BACKSCAN 16

struct sym_pment {
	uint64_t start;
	uint64_t end;
	size_t name;
	size_t seq;
};

struct sym_perfmap {
	struct sym_pment *v;
	size_t n;
	size_t alloc;
	struct sp_buf names;
};

static bool
parse_hex(char **p, uint64_t *v)
{
	char *end;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (!isxdigit((unsigned char)**p))
		return false;
	errno = 0;
	*v = strtoull(*p, &end, 16);
	if (errno || (*end != ' ' && *end != '\t'))
		return false;
	*p = end + 1;
	return true;
}

struct sym_perfmap *
sym_perfmap_new(void)
{
	return calloc(1, sizeof(struct sym_perfmap));
}

int
sym_perfmap_add(struct sym_perfmap *m, uint64_t start, uint64_t size,
		const char *name, size_t len)
{
	struct sym_pment *e;

	if (m->n == m->alloc) {
		if (SP_GROW(m->v, m->alloc, m->n + 1))
			return -ENOMEM;
	}
	e = &m->v[m->n];
	e->start = start;
	e->end = start + size < start ? UINT64_MAX : start + size;
	e->seq = m->n;
	e->name = m->names.len;
	if (sp_buf_add(&m->names, name, len) || sp_buf_addc(&m->names, '\0'))
		return -ENOMEM;
	m->n++;
	return 0;
}

static int
pm_parse_line(struct sym_perfmap *m, char *line, size_t len)
{
	uint64_t start, size;
	char *p = line;

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	if (!parse_hex(&p, &start) || !parse_hex(&p, &size) || size == 0 || !*p)
		return 0;
	return sym_perfmap_add(m, start, size, p, len - (size_t)(p - line));
}

static int
cmp_entry(const void *pa, const void *pb)
{
	const struct sym_pment *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void
sym_perfmap_sort(struct sym_perfmap *m)
{
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), cmp_entry);
}

struct sym_perfmap *
sym_perfmap_read(FILE *f)
{
	struct sym_perfmap *m = sym_perfmap_new();
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint64_t total = 0;
	int rc = 0;

	if (!m)
		return NULL;
	while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
		/* A file that grew past the bound after it was checked. */
		if ((total += (uint64_t)len) > SYM_PERFMAP_MAX_SIZE)
			rc = -EFBIG;
		else
			rc = pm_parse_line(m, line, (size_t)len);
	}
	free(line);
	if (rc == 0 && ferror(f))
		rc = -EIO;
	if (rc) {
		sym_perfmap_free(m);
		errno = -rc;
		return NULL;
	}
	sym_perfmap_sort(m);
	return m;
}

void
sym_perfmap_id_of(const struct stat *st, struct sym_perfmap_id *id)
{
	memset(id, 0, sizeof(*id));
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->size = st->st_size;
	id->mtime_ns =
	    (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

bool
sym_perfmap_stat(const char *path, struct sym_perfmap_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (lstat(path, &st))
		return false;
	sym_perfmap_id_of(&st, id);
	return true;
}

bool
sym_perfmap_id_equal(const struct sym_perfmap_id *a,
		     const struct sym_perfmap_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns;
}

/*
 * Maps sit in /tmp, where anyone can plant a name: open one only the way
 * perf trusts it (perfmap.h).
 */
int
sym_perfmap_open(const char *path, uid_t owner, struct stat *st)
{
	int fd = sp_open_regular(AT_FDCWD, path, true, st);

	if (fd == -EINVAL ||
	    (fd >= 0 && st->st_uid != owner && st->st_uid != 0)) {
		if (fd >= 0)
			close(fd);
		fd = -EPERM;
	}
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

struct sym_perfmap *
sym_perfmap_load(const char *path, uid_t owner, struct sym_perfmap_id *id)
{
	struct sym_perfmap *m;
	struct stat st;
	int fd = sym_perfmap_open(path, owner, &st), saved;
	FILE *f;

	if (fd >= 0 && (uint64_t)st.st_size > SYM_PERFMAP_MAX_SIZE) {
		close(fd);
		fd = -1;
		errno = EFBIG;
	}
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (id)
		sym_perfmap_id_of(&st, id);
	if (!f) {
		saved = errno;
		if (fd >= 0)
			close(fd);
		errno = saved;
		return NULL;
	}
	m = sym_perfmap_read(f);
	saved = errno;
	fclose(f);
	errno = saved;
	return m;
}

void
sym_perfmap_free(struct sym_perfmap *m)
{
	if (!m)
		return;
	free(m->v);
	sp_buf_release(&m->names);
	free(m);
}

size_t
sym_perfmap_count(const struct sym_perfmap *m)
{
	return m->n;
}

bool
sym_perfmap_lookup(const struct sym_perfmap *m, uint64_t addr,
		   const char **name, uint64_t *start)
{
	size_t i = SP_SEARCH_LAST_LE(m->v, m->n, start, addr), k;
	const struct sym_pment *best = NULL;

	for (k = 0; i != SIZE_MAX && k <= i && k < SYM_PERFMAP_BACKSCAN; k++) {
		const struct sym_pment *e = &m->v[i - k];

		if (addr < e->end && (!best || e->seq > best->seq))
			best = e;
	}
	if (!best)
		return false;
	*name = (const char *)m->names.data + best->name;
	*start = best->start;
	return true;
}

bool
sym_perfmap_python(const char *name, char **func, char **file)
{
	const char *colon;

	if (strncmp(name, "py::", 4) != 0)
		return false;
	name += 4;
	colon = strchr(name, ':');
	*func = colon ? strndup(name, (size_t)(colon - name)) : strdup(name);
	*file = strdup(colon ? colon + 1 : "");
	if (!*func || !*file) {
		free(*func);
		free(*file);
		return false;
	}
	return true;
}
