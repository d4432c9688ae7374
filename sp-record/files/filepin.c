/*
 * filepin.c: module files pinned as their mappings are read (filepin.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/htab.h"
#include "common/names.h"
#include "common/spool.h"
#include "sp-record/files/capfile.h"
#include "sp-record/files/filepin.h"
#include "common/banned.h"

struct pin {
	int fd; /* O_PATH; -1: a free slot */
	dev_t dev;
	uint64_t ino;
	char *path;       /* as first mapped */
	uint64_t used;    /* the clock below, at its last mapping or open */
	uint64_t serial;  /* which pin this slot holds */
	uint32_t holders; /* live processes that mapped it */
};

/* The pins a live process mapped: slot and serial, in pairs. */
struct held {
	uint64_t *pairs;
	size_t n, alloc;
};

struct rec_filepin {
	struct pin pins[REC_FILEPIN_MAX];
	size_t npins;
	uint64_t clock_now, serials;
	struct sp_htab *by_pid; /* pid -> struct held * */
	struct rec_filepin_stats stats;
};

struct rec_filepin *
rec_filepin_new(void)
{
	struct rec_filepin *f = calloc(1, sizeof(*f));

	if (f && !(f->by_pid = sp_htab_new())) {
		free(f);
		f = NULL;
	}
	if (!f)
		errno = ENOMEM;
	return f;
}

/* The slot of (dev, ino), or -1. */
static int
find(const struct rec_filepin *f, dev_t dev, uint64_t ino)
{
	size_t i;

	for (i = 0; i < f->npins; i++)
		if (f->pins[i].fd >= 0 && f->pins[i].dev == dev &&
		    f->pins[i].ino == ino)
			return (int)i;
	return -1;
}

static void
release(struct pin *p)
{
	close(p->fd);
	free(p->path);
	p->fd = -1;
	p->path = NULL;
}

/*
 * Process `pid` holds pin `i` until it is retired (once).  A process
 * whose holding cannot be noted for want of memory does not hold it: the
 * pin then goes with its other holders, or at the end.
 */
static void
hold(struct rec_filepin *f, int32_t pid, size_t i)
{
	uint64_t *slot;
	struct held *h;
	bool fresh;
	size_t k;

	slot = sp_htab_slot(f->by_pid, &pid, sizeof(pid), 0, &fresh);
	if (!slot)
		return;
	if (fresh && !(*slot = (uint64_t)(uintptr_t)calloc(1, sizeof(*h)))) {
		sp_htab_del(f->by_pid, &pid, sizeof(pid));
		return;
	}
	h = (struct held *)(uintptr_t)*slot;
	for (k = 0; k < h->n; k += 2)
		if (h->pairs[k] == i && h->pairs[k + 1] == f->pins[i].serial)
			return;
	if (SP_GROW(h->pairs, h->alloc, h->n + 2))
		return;
	h->pairs[h->n++] = i;
	h->pairs[h->n++] = f->pins[i].serial;
	f->pins[i].holders++;
}

/* A slot to fill: a free one, else the one mapped least recently. */
static struct pin *
slot(struct rec_filepin *f)
{
	size_t i, old = 0;

	for (i = 0; i < f->npins; i++)
		if (f->pins[i].fd < 0)
			return &f->pins[i];
	if (f->npins < REC_FILEPIN_MAX)
		return &f->pins[f->npins++];
	for (i = 1; i < f->npins; i++)
		if (f->pins[i].used < f->pins[old].used)
			old = i;
	release(&f->pins[old]);
	f->stats.evicted++;
	return &f->pins[old];
}

/*
 * An O_PATH descriptor for the file open as `fd`, which is closed: a pin
 * is never a descriptor open for reading.
 */
static int
to_path(int fd)
{
	char self[64];
	int pfd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	pfd = open(self, O_PATH | O_CLOEXEC);
	close(fd);
	return pfd;
}

/*
 * The file of `m` as the host sees it, else as its process does, as an
 * O_PATH descriptor; -1 when neither is that device and inode.
 */
static int
open_mapped(const struct rec_filepin_map *m, dev_t dev)
{
	struct sp_module mod;
	enum rec_capfile_via via;
	struct stat st;
	int fd;

	fd = open(m->path, O_PATH | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_dev == dev && st.st_ino == m->ino)
		return fd;
	if (fd >= 0)
		close(fd);
	memset(&mod, 0, sizeof(mod));
	mod.pid = m->pid;
	mod.start = m->start;
	mod.end = m->end;
	mod.inode = m->ino;
	mod.path = m->path;
	mod.path_len = strlen(m->path);
	fd = rec_capfile_process(&mod, &st, &via);
	if (fd >= 0 && (st.st_dev != dev || st.st_ino != m->ino)) {
		close(fd);
		fd = -1;
	}
	return fd < 0 ? -1 : to_path(fd);
}

void
rec_filepin_mapped(struct rec_filepin *f, const struct rec_filepin_map *m)
{
	dev_t dev = makedev(m->maj, m->min);
	struct pin *p;
	char *path;
	int i, fd;

	if (!f || m->pid <= 0 || !m->ino || m->path[0] != '/')
		return;
	f->clock_now++;
	i = find(f, dev, m->ino);
	if (i >= 0) {
		f->pins[i].used = f->clock_now;
		hold(f, m->pid, (size_t)i);
		return;
	}
	fd = open_mapped(m, dev);
	path = fd >= 0 ? strdup(m->path) : NULL;
	if (!path) {
		if (fd >= 0)
			close(fd);
		f->stats.unopened++;
		return;
	}
	p = slot(f);
	*p = (struct pin){
		fd, dev, m->ino, path, f->clock_now, ++f->serials, 0
	};
	f->stats.pinned++;
	hold(f, m->pid, (size_t)(p - f->pins));
}

void
rec_filepin_retire(struct rec_filepin *f, int32_t pid)
{
	struct held *h;
	struct pin *p;
	uint64_t v;
	size_t k;

	if (!f || !sp_htab_get(f->by_pid, &pid, sizeof(pid), &v))
		return;
	sp_htab_del(f->by_pid, &pid, sizeof(pid));
	h = (struct held *)(uintptr_t)v;
	for (k = 0; k < h->n; k += 2) {
		p = &f->pins[h->pairs[k]];
		if (p->fd >= 0 && p->serial == h->pairs[k + 1] &&
		    --p->holders == 0)
			release(p);
	}
	free(h->pairs);
	free(h);
}

/* Whether module path `mp` names the file first mapped as `pinned`. */
static bool
same_path(const char *mp, size_t len, const char *pinned)
{
	size_t n = strlen(pinned);

	return (n == len || n == sp_module_path_undeleted(mp, len)) &&
	       memcmp(mp, pinned, n) == 0;
}

int
rec_filepin_open(struct rec_filepin *f, const struct sp_module *m,
		 struct stat *st)
{
	struct pin *p;
	char self[64];
	size_t i;
	int fd;

	for (i = 0; f && i < f->npins; i++) {
		p = &f->pins[i];
		if (p->fd < 0 || p->ino != m->inode || !m->inode ||
		    !same_path(m->path, m->path_len, p->path))
			continue;
		/* The pin is the target's file: a regular file, never a
		 * FIFO reopened. */
		if (fstat(p->fd, st) < 0 || !S_ISREG(st->st_mode))
			break;
		snprintf(self, sizeof(self), "/proc/self/fd/%d", p->fd);
		fd = open(self, O_RDONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		p->used = ++f->clock_now;
		f->stats.used++;
		return fd;
	}
	errno = ENOENT;
	return -1;
}

const struct rec_filepin_stats *
rec_filepin_stats(const struct rec_filepin *f)
{
	return &f->stats;
}

void
rec_filepin_free(struct rec_filepin *f)
{
	const void *key;
	size_t i, pos = 0;
	struct held *h;
	uint64_t v;

	if (!f)
		return;
	for (i = 0; i < f->npins; i++)
		if (f->pins[i].fd >= 0)
			release(&f->pins[i]);
	while (sp_htab_next(f->by_pid, &pos, &key, NULL, &v)) {
		h = (struct held *)(uintptr_t)v;
		free(h->pairs);
		free(h);
	}
	sp_htab_free(f->by_pid);
	free(f);
}
