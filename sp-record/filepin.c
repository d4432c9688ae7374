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
#include "sp-record/capfile.h"
#include "sp-record/filepin.h"
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

static struct pin pins[REC_FILEPIN_MAX];
static size_t npins;
static uint64_t clock_now, serials;
static struct sp_htab *by_pid; /* pid -> struct held * */
static struct rec_filepin_stats stats;

/* The slot of (dev, ino), or -1. */
static int
find(dev_t dev, uint64_t ino)
{
	size_t i;

	for (i = 0; i < npins; i++)
		if (pins[i].fd >= 0 && pins[i].dev == dev && pins[i].ino == ino)
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
hold(int32_t pid, size_t i)
{
	uint64_t *slot;
	struct held *h;
	bool fresh;
	size_t k;

	if (!by_pid && !(by_pid = sp_htab_new()))
		return;
	slot = sp_htab_slot(by_pid, &pid, sizeof(pid), 0, &fresh);
	if (!slot)
		return;
	if (fresh && !(*slot = (uint64_t)(uintptr_t)calloc(1, sizeof(*h)))) {
		sp_htab_del(by_pid, &pid, sizeof(pid));
		return;
	}
	h = (struct held *)(uintptr_t)*slot;
	for (k = 0; k < h->n; k += 2)
		if (h->pairs[k] == i && h->pairs[k + 1] == pins[i].serial)
			return;
	if (SP_GROW(h->pairs, h->alloc, h->n + 2))
		return;
	h->pairs[h->n++] = i;
	h->pairs[h->n++] = pins[i].serial;
	pins[i].holders++;
}

/* A slot to fill: a free one, else the one mapped least recently. */
static struct pin *
slot(void)
{
	size_t i, old = 0;

	for (i = 0; i < npins; i++)
		if (pins[i].fd < 0)
			return &pins[i];
	if (npins < REC_FILEPIN_MAX)
		return &pins[npins++];
	for (i = 1; i < npins; i++)
		if (pins[i].used < pins[old].used)
			old = i;
	release(&pins[old]);
	stats.evicted++;
	return &pins[old];
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
rec_filepin_mapped(const struct rec_filepin_map *m)
{
	dev_t dev = makedev(m->maj, m->min);
	struct pin *p;
	char *path;
	int i, fd;

	if (m->pid <= 0 || !m->ino || m->path[0] != '/')
		return;
	clock_now++;
	i = find(dev, m->ino);
	if (i >= 0) {
		pins[i].used = clock_now;
		hold(m->pid, (size_t)i);
		return;
	}
	fd = open_mapped(m, dev);
	path = fd >= 0 ? strdup(m->path) : NULL;
	if (!path) {
		if (fd >= 0)
			close(fd);
		stats.unopened++;
		return;
	}
	p = slot();
	*p = (struct pin){ fd, dev, m->ino, path, clock_now, ++serials, 0 };
	stats.pinned++;
	hold(m->pid, (size_t)(p - pins));
}

void
rec_filepin_retire(int32_t pid)
{
	struct held *h;
	struct pin *p;
	uint64_t v;
	size_t k;

	if (!by_pid || !sp_htab_get(by_pid, &pid, sizeof(pid), &v))
		return;
	sp_htab_del(by_pid, &pid, sizeof(pid));
	h = (struct held *)(uintptr_t)v;
	for (k = 0; k < h->n; k += 2) {
		p = &pins[h->pairs[k]];
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
rec_filepin_open(const struct sp_module *m, struct stat *st)
{
	char self[64];
	size_t i;
	int fd;

	for (i = 0; i < npins; i++) {
		if (pins[i].fd < 0 || pins[i].ino != m->inode || !m->inode ||
		    !same_path(m->path, m->path_len, pins[i].path))
			continue;
		/* The pin is the target's file: a regular file, never a
		 * FIFO reopened. */
		if (fstat(pins[i].fd, st) < 0 || !S_ISREG(st->st_mode))
			break;
		snprintf(self, sizeof(self), "/proc/self/fd/%d", pins[i].fd);
		fd = open(self, O_RDONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return -1;
		pins[i].used = ++clock_now;
		stats.used++;
		return fd;
	}
	errno = ENOENT;
	return -1;
}

const struct rec_filepin_stats *
rec_filepin_stats(void)
{
	return &stats;
}

void
rec_filepin_clear(void)
{
	const void *key;
	size_t i, pos = 0;
	struct held *h;
	uint64_t v;

	for (i = 0; i < npins; i++)
		if (pins[i].fd >= 0)
			release(&pins[i]);
	npins = 0;
	while (by_pid && sp_htab_next(by_pid, &pos, &key, NULL, &v)) {
		h = (struct held *)(uintptr_t)v;
		free(h->pairs);
		free(h);
	}
	sp_htab_free(by_pid);
	by_pid = NULL;
	memset(&stats, 0, sizeof(stats));
}
