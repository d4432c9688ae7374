/*
 * capture.c: module files kept by build id as they are sampled
 * (capture.h).
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cachedir.h"
#include "common/grow.h"
#include "common/hex.h"
#include "common/htab.h"
#include "common/names.h"
#include "sp-record/files/buildid.h"
#include "sp-record/files/capfile.h"
#include "sp-record/capture/capture.h"
#include "sp-record/sys/clock.h"
#include "sp-record/files/filememo.h"
#include "sp-record/files/filepin.h"
#include "sp-record/capture/idstore.h"
#include "sp-record/capture/jitkeep.h"
#include "common/banned.h"

#define DEFAULT_MAX_FILE (256ull << 20)
#define DEFAULT_MAX_TOTAL (1ull << 30)
#define DEFAULT_MAX_TREE (4ull << 30)
#define MAX_HELD 512 /* descriptors held at once */
/*
 * How long a file the host reaches stays held once no process holds it:
 * long enough for the next process of a build, short enough that a
 * binary deleted since does not keep its disk space for long.
 */
#define IDLE_NS 1000000000ULL

enum ent_state { ENT_NEW, ENT_HELD, ENT_DONE };

/* One build id: its file, held until decided. */
struct ent {
	char id[2 * REC_BUILDID_MAX + 1];
	enum ent_state state;
	int fd;
	uint64_t size;
	uint32_t holders; /* live processes that sampled it */
	char *path;       /* the module's path, for the host's view */
	uint64_t inode;   /* the recorded inode, or 0 */
	struct rec_filememo_id held; /* the identity of the file held */
	uint64_t idle_since;         /* decided, held with no holder, since */
};

/* Files whose build ids are kept by identity (verified below). */
#define MAX_VERIFIED 1024

/* The entries a live process holds. */
struct held {
	uint32_t *ents;
	size_t n, alloc;
};

struct rec_capture {
	enum rec_capture_mode mode;
	char *dir;
	uint64_t max_file, max_total, max_tree;
	int64_t started_ns;       /* wall clock: the tree's files used since */
	struct rec_spoolout *out; /* borrowed */
	const struct sp_modtab *mods; /* borrowed */
	struct rec_idstore *store;    /* opened at the first copy */
	bool off;                     /* the tree was refused */
	uint8_t *seen;                /* per module id: looked at */
	size_t aseen;
	struct sp_htab *by_id; /* build id -> index into ents */
	struct ent *ents;
	size_t nents, aents, nheld;
	struct sp_htab *by_pid; /* pid -> struct held * */
	/*
	 * The build id (hex) read from a file, by its identity: each cc1 of
	 * a build is opened at its first sample and looked at again when
	 * retired; its build id is read once.
	 */
	struct rec_filememo *verified;
	struct rec_jitkeep *jit;  /* perf maps and jitdumps */
	struct rec_filepin *pins; /* borrowed, or NULL */
	struct rec_capture_stats st;
};

struct rec_capture *
rec_capture_new(const struct rec_capture_opts *o, struct rec_spoolout *out,
		const struct sp_modtab *mods, struct rec_filepin *pins)
{
	struct rec_capture *c;
	struct timespec now;

	if (o->mode == REC_CAPTURE_OFF)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->mode = o->mode;
	c->max_file = o->max_file ? o->max_file : DEFAULT_MAX_FILE;
	c->max_total = o->max_total ? o->max_total : DEFAULT_MAX_TOTAL;
	c->max_tree = o->max_tree ? o->max_tree : DEFAULT_MAX_TREE;
	/* The clock file times are set by, so none written later is older. */
	clock_gettime(CLOCK_REALTIME_COARSE, &now);
	c->started_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	c->out = out;
	c->mods = mods;
	c->pins = pins;
	c->dir = o->dir ? strdup(o->dir) : sp_cache_dir();
	c->off = !c->dir;
	c->by_id = sp_htab_new();
	c->by_pid = sp_htab_new();
	c->verified = rec_filememo_new(2 * REC_BUILDID_MAX + 1, MAX_VERIFIED);
	c->jit = rec_jitkeep_new(rec_spoolout_start_us(out));
	if (!c->by_id || !c->by_pid || !c->verified || !c->jit ||
	    (o->dir && !c->dir)) {
		rec_capture_free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->st.dir = c->dir;
	return c;
}

static void
drop_held(struct rec_capture *c)
{
	const void *key;
	uint64_t v;
	size_t pos = 0;
	struct held *h;

	while (sp_htab_next(c->by_pid, &pos, &key, NULL, &v)) {
		h = (struct held *)(uintptr_t)v;
		free(h->ents);
		free(h);
	}
}

void
rec_capture_free(struct rec_capture *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nents; i++) {
		if (c->ents[i].fd >= 0)
			close(c->ents[i].fd);
		free(c->ents[i].path);
	}
	if (c->by_pid)
		drop_held(c);
	sp_htab_free(c->by_pid);
	sp_htab_free(c->by_id);
	rec_filememo_free(c->verified);
	rec_jitkeep_free(c->jit);
	rec_idstore_free(c->store);
	free(c->ents);
	free(c->seen);
	free(c->dir);
	free(c);
}

const struct rec_capture_stats *
rec_capture_stats(const struct rec_capture *c)
{
	return &c->st;
}

/* The bytes copied so far, for --capture-max-total. */
static uint64_t
used(const struct rec_capture *c)
{
	return c->st.bytes + c->st.jit_bytes;
}

/* The tree, opened at its first use; false when it cannot be used. */
static bool
store(struct rec_capture *c)
{
	const char *why;

	if (c->store || c->off)
		return !c->off;
	c->store = rec_idstore_open(c->dir);
	if (c->store)
		return true;
	c->off = true;
	why = errno == EPERM ? "another user's, or writable by others"
	      : errno == ELOOP || errno == ENOTDIR
		  ? "a symbolic link, or not a directory"
		  : strerror(errno);
	warnx("'%s': %s; module files are not kept", c->dir, why);
	return false;
}

/* Whether the tree holds build id `hex` already; marks it used then. */
static bool
in_tree(struct rec_capture *c, const char *hex)
{
	if (!rec_idstore_has(c->store, hex))
		return false;
	rec_idstore_touch(c->store, hex);
	return true;
}

/* Whether the file open as `fd` has build id `hex`. */
static bool
has_id(int fd, const char *hex)
{
	uint8_t raw[REC_BUILDID_MAX];
	char have[2 * REC_BUILDID_MAX + 1];
	size_t len = rec_buildid_from_fd(fd, raw);

	sp_hex_encode(raw, len, have);
	return len && strcmp(have, hex) == 0;
}

/*
 * Whether the file open as `fd` (of status `st`) has build id `hex`:
 * read once per file identity and build id.
 */
static bool
has_id_memo(struct rec_capture *c, int fd, const struct stat *st,
	    const char *hex)
{
	char have[2 * REC_BUILDID_MAX + 1] = "";
	struct rec_filememo_id id;

	rec_filememo_id_of(st, &id);
	if (rec_filememo_get(c->verified, &id, have))
		return strcmp(have, hex) == 0;
	if (!has_id(fd, hex))
		return false;
	snprintf(have, sizeof(have), "%s", hex);
	/* Out of memory, it is read again next time. */
	(void)rec_filememo_put(c->verified, &id, have);
	return true;
}

/*
 * The host's file at `path` when it is the recorded one, as sp-symbolize
 * judges it (resolve.c's host_lost): the inode recorded (when one was)
 * and the build id.  The descriptor, or -1.
 */
static int
host_file(struct rec_capture *c, const char *path, uint64_t inode,
	  const char *hex, struct stat *st)
{
	int fd = rec_capfile_host(path, st);

	if (fd >= 0 &&
	    ((inode && st->st_ino != inode) || !has_id_memo(c, fd, st, hex))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The file of module `m`, of build id `hex`: the host's, else its own. */
static int
open_module(struct rec_capture *c, const struct sp_module *m, const char *hex,
	    struct stat *st)
{
	enum rec_capfile_via via;
	int fd = host_file(c, m->path, m->inode, hex, st);

	if (fd >= 0)
		return fd;
	fd = rec_capfile_process(m, st, &via);
	/* A process that ended before its first sample was handled. */
	if (fd < 0)
		fd = rec_filepin_open(c->pins, m, st);
	if (fd >= 0 && !has_id_memo(c, fd, st, hex)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The entry of `hex`, made when new; NULL on ENOMEM. */
static struct ent *
entry(struct rec_capture *c, const char *hex)
{
	uint64_t *slot;
	struct ent *e;
	bool fresh;

	slot = sp_htab_slot(c->by_id, hex, strlen(hex), 0, &fresh);
	if (!slot)
		return NULL;
	if (!fresh)
		return &c->ents[*slot];
	if (SP_GROW(c->ents, c->aents, c->nents + 1)) {
		sp_htab_del(c->by_id, hex, strlen(hex));
		return NULL;
	}
	*slot = c->nents;
	e = &c->ents[c->nents++];
	memset(e, 0, sizeof(*e));
	snprintf(e->id, sizeof(e->id), "%s", hex);
	e->fd = -1;
	return e;
}

/* Process `pid` holds entry `e` until it is retired. */
static void
hold(struct rec_capture *c, struct ent *e, int32_t pid)
{
	uint64_t *slot;
	struct held *h;
	bool fresh;

	slot = sp_htab_slot(c->by_pid, &pid, sizeof(pid), 0, &fresh);
	if (!slot)
		return;
	if (fresh && !(*slot = (uint64_t)(uintptr_t)calloc(1, sizeof(*h)))) {
		sp_htab_del(c->by_pid, &pid, sizeof(pid));
		return;
	}
	h = (struct held *)(uintptr_t)*slot;
	if (SP_GROW(h->ents, h->alloc, h->n + 1))
		return;
	h->ents[h->n++] = (uint32_t)(e - c->ents);
	e->holders++;
}

/*
 * Copies the held file of `e` into the tree, within the caps.  A library
 * rewritten in place since it was opened holds another build now: it
 * is not filed under the old one's id.
 */
static void
copy(struct rec_capture *c, struct ent *e)
{
	struct stat st;
	int rc;

	if (!store(c) || in_tree(c, e->id))
		return;
	if (fstat(e->fd, &st) < 0 || !has_id(e->fd, e->id)) {
		c->st.unreadable++;
		return;
	}
	e->size = (uint64_t)st.st_size;
	if (e->size > c->max_file) {
		c->st.too_big++;
		return;
	}
	if (e->size > c->max_total - used(c)) {
		c->st.over_total++;
		return;
	}
	rc = rec_idstore_put_fd(c->store, e->id, e->fd, e->size);
	if (rc < 0) {
		if (!c->st.failed)
			warnx("'%s': cannot keep the module file of build id "
			      "%s: %s",
			      c->dir, e->id, strerror(-rc));
		c->st.failed++;
		return;
	}
	c->st.files++;
	c->st.bytes += e->size;
}

/*
 * Whether the host reaches the file held for `e` at its path: a stat
 * that finds the file held, unchanged (one system call, where opening
 * it and reading its build id took seven), or else the path's file is
 * of the same build id.
 */
static bool
host_reaches(struct rec_capture *c, const struct ent *e)
{
	struct rec_filememo_id now;
	struct stat st;
	int fd;

	if (stat(e->path, &st) == 0 && S_ISREG(st.st_mode) &&
	    (!e->inode || st.st_ino == e->inode)) {
		rec_filememo_id_of(&st, &now);
		if (!memcmp(&now, &e->held, sizeof(now)))
			return true;
	}
	if ((fd = host_file(c, e->path, e->inode, e->id, &st)) < 0)
		return false;
	close(fd);
	return true;
}

/* Lets go of held file `e`, to be looked at again when sampled again. */
static void
let_go(struct rec_capture *c, struct ent *e)
{
	close(e->fd);
	e->fd = -1;
	c->nheld--;
	free(e->path);
	e->path = NULL;
}

/*
 * Decides a held file: copied when the host cannot reach it (or with
 * --capture all).  One it reaches stays held, idle, for the next process
 * that samples it (each cc1 of a build), for IDLE_NS (rec_capture_tick)
 * or until its descriptor is wanted for another file (let_go_idle).
 */
static void
decide(struct rec_capture *c, struct ent *e)
{
	if (c->mode == REC_CAPTURE_LOST && host_reaches(c, e)) {
		e->idle_since = rec_clock_now_ns();
		return;
	}
	copy(c, e);
	e->state = ENT_DONE;
	let_go(c, e);
}

/* Lets go of `e` when it is held idle; returns whether it was. */
static bool
let_go_if_idle(struct rec_capture *c, struct ent *e)
{
	if (e->state != ENT_HELD || e->holders)
		return false;
	e->state = ENT_NEW;
	let_go(c, e);
	return true;
}

/* Lets go of one idle held file; false when none is idle. */
static bool
let_go_idle(struct rec_capture *c)
{
	size_t i;

	for (i = 0; i < c->nents; i++)
		if (let_go_if_idle(c, &c->ents[i]))
			return true;
	return false;
}

/* The recorder's own vdso: the image of every process of this kernel. */
static void
keep_vdso(struct rec_capture *c, struct ent *e)
{
	const void *img = (const void *)getauxval(AT_SYSINFO_EHDR);
	unsigned long lo, hi;
	char line[256];
	size_t len = 0;
	FILE *f;
	int rc;

	e->state = ENT_DONE;
	if (!img || !store(c) || in_tree(c, e->id))
		return;
	f = fopen("/proc/self/maps", "re");
	while (f && !len && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    lo == (unsigned long)(uintptr_t)img && hi > lo)
			len = hi - lo;
	if (f)
		fclose(f);
	if (!len || len > c->max_total - used(c))
		return;
	rc = rec_idstore_put_mem(c->store, e->id, img, len);
	if (rc < 0) {
		c->st.failed++;
		return;
	}
	c->st.files++;
	c->st.bytes += len;
}

/* The first sample in module `id`. */
static void
first_look(struct rec_capture *c, uint32_t id)
{
	const struct sp_module *m = sp_modtab_get(c->mods, id);
	uint8_t raw[REC_BUILDID_MAX];
	char hex[2 * REC_BUILDID_MAX + 1];
	struct stat st;
	struct ent *e;
	size_t len;
	int fd;

	if (!m || m->is_kernel)
		return;
	if (sp_module_path_anonymous(m->path, m->path_len)) {
		rec_jitkeep_seen(c->jit, m->pid);
		return;
	}
	if (m->path[0] != '/' && strcmp(m->path, "[vdso]") != 0)
		return;
	len = rec_spoolout_module_buildid(c->out, m, raw);
	if (!len)
		return;
	sp_hex_encode(raw, len, hex);
	e = entry(c, hex);
	if (!e || e->state == ENT_DONE)
		return;
	if (m->path[0] == '[') {
		keep_vdso(c, e);
		return;
	}
	if (e->state == ENT_HELD) {
		hold(c, e, m->pid);
		return;
	}
	if (c->store && in_tree(c, hex))
		return;
	if (c->nheld >= MAX_HELD && !let_go_idle(c)) {
		c->st.busy++;
		return;
	}
	fd = open_module(c, m, hex, &st);
	if (fd < 0) {
		c->st.unreadable++;
		return;
	}
	e->path = strdup(m->path);
	if (!e->path) {
		close(fd);
		return;
	}
	e->fd = fd;
	e->size = (uint64_t)st.st_size;
	e->inode = m->inode;
	rec_filememo_id_of(&st, &e->held);
	e->state = ENT_HELD;
	c->nheld++;
	hold(c, e, m->pid);
}

void
rec_capture_frames(struct rec_capture *c, int32_t pid, const struct sp_frame *f,
		   size_t n)
{
	size_t i, had;
	uint32_t id;

	for (i = 0; i < n; i++) {
		id = f[i].module_id;
		/* Code outside any file: a JIT's, named by its files. */
		if (id == SP_NONE && f[i].mode == SP_FRAME_USER)
			rec_jitkeep_seen(c->jit, pid);
		if (id == SP_NONE || (id < c->aseen && c->seen[id]))
			continue;
		if (id >= c->aseen) {
			had = c->aseen;
			if (SP_GROW(c->seen, c->aseen, (size_t)id + 1))
				return;
			memset(c->seen + had, 0, c->aseen - had);
		}
		c->seen[id] = 1;
		first_look(c, id);
	}
}

/* One holder of entry `i` is gone; the last decides it. */
static void
release(struct rec_capture *c, uint32_t i)
{
	struct ent *e = &c->ents[i];

	if (e->holders && --e->holders == 0 && e->state == ENT_HELD)
		decide(c, e);
}

/*
 * Copies the JIT files of `pid` into the tree's .jit directory, within
 * the same caps as module files.
 */
static void
keep_jit(struct rec_capture *c, int32_t pid)
{
	struct rec_jitkeep_file f[REC_JIT_NKINDS];
	size_t i, n = rec_jitkeep_take(c->jit, pid, f);
	int rc;

	for (i = 0; i < n; i++) {
		if (!store(c))
			rc = 1;
		else if (f[i].size > c->max_file)
			rc = 1, c->st.too_big++;
		else if (f[i].size > c->max_total - used(c))
			rc = 1, c->st.over_total++;
		else if ((rc = rec_idstore_put_jit(c->store, f[i].name, f[i].fd,
						   f[i].size)) < 0)
			c->st.failed++;
		if (rc == 0) {
			c->st.jit_files++;
			c->st.jit_bytes += f[i].size;
		}
		close(f[i].fd);
	}
}

void
rec_capture_retire(struct rec_capture *c, int32_t pid)
{
	struct held *h;
	uint64_t v;
	size_t i;

	if (c)
		keep_jit(c, pid);
	if (!c || !sp_htab_get(c->by_pid, &pid, sizeof(pid), &v))
		return;
	sp_htab_del(c->by_pid, &pid, sizeof(pid));
	h = (struct held *)(uintptr_t)v;
	for (i = 0; i < h->n; i++)
		release(c, h->ents[i]);
	free(h->ents);
	free(h);
}

void
rec_capture_tick(struct rec_capture *c, uint64_t now)
{
	size_t i;

	for (i = 0; c && i < c->nents; i++)
		if (now - c->ents[i].idle_since >= IDLE_NS)
			let_go_if_idle(c, &c->ents[i]);
}

void
rec_capture_finish(struct rec_capture *c)
{
	struct rec_idstore_pruned pr = { 0, 0 };
	int32_t pid;
	size_t i;
	int rc;

	if (!c)
		return;
	while (rec_jitkeep_any(c->jit, &pid))
		keep_jit(c, pid);
	for (i = 0; i < c->nents; i++)
		if (c->ents[i].state == ENT_HELD)
			decide(c, &c->ents[i]);
	/* Only copies grow the tree: a recording without any leaves it. */
	if (!c->store || !(c->st.files || c->st.jit_files))
		return;
	rc = rec_idstore_prune(c->store, c->max_tree, c->started_ns, &pr);
	if (rc < 0)
		warnx("'%s': cannot read the build-id tree to bound it: %s",
		      c->dir, strerror(-rc));
	c->st.pruned = pr.files;
	c->st.pruned_bytes = pr.bytes;
}
