/*
 * jitkeep.c: the JIT symbol files of the recorded processes, held until
 * capture.c copies them (jitkeep.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/htab.h"
#include "sp-record/files/capfile.h"
#include "sp-record/capture/jitkeep.h"
#include "sp-record/sys/proc.h"
#include "common/banned.h"

/* What is known of one process with JIT samples. */
struct jproc {
	int32_t pid, nspid; /* in the host's and in its own pid namespace */
	uid_t uid;          /* whose files are trusted, with root's */
	bool same_ns;       /* it shares the recorder's mount namespace */
	int fd[REC_JIT_NKINDS];
	int tmp;    /* its /tmp (O_PATH), for files written as it exits */
	char *dump; /* the jitdump path it mapped, or NULL */
};

/*
 * The most descriptors held at once: past it (-a over many JIT
 * processes) a process's files are opened only when it is taken.
 */
#define MAX_HELD 256

struct rec_jitkeep {
	char boot[64];
	uint64_t start_us;
	size_t nheld;
	struct sp_htab *by_pid; /* pid -> struct jproc * */
};

struct rec_jitkeep *
rec_jitkeep_new(uint64_t start_us)
{
	struct rec_jitkeep *k = calloc(1, sizeof(*k));
	size_t n;

	if (!k || !(k->by_pid = sp_htab_new())) {
		free(k);
		return NULL;
	}
	k->start_us = start_us;
	rec_proc_read_line("/proc/sys/kernel/random/boot_id", k->boot,
			   sizeof(k->boot));
	/* The name's characters, as sp-symbolize builds it from the host
	 * record: a boot id is a lowercase UUID. */
	n = strspn(k->boot, "0123456789abcdef-");
	if (!n || k->boot[n])
		snprintf(k->boot, sizeof(k->boot), "unknown");
	return k;
}

static void
jproc_free(struct jproc *p)
{
	int i;

	for (i = 0; i < REC_JIT_NKINDS; i++)
		if (p->fd[i] >= 0)
			close(p->fd[i]);
	if (p->tmp >= 0)
		close(p->tmp);
	free(p->dump);
	free(p);
}

void
rec_jitkeep_free(struct rec_jitkeep *k)
{
	const void *key;
	size_t pos = 0;
	uint64_t v;

	if (!k)
		return;
	while (sp_htab_next(k->by_pid, &pos, &key, NULL, &v))
		jproc_free((struct jproc *)(uintptr_t)v);
	sp_htab_free(k->by_pid);
	free(k);
}

/* Whether `pid` is in the recorder's mount namespace. */
static bool
same_mount_ns(int32_t pid)
{
	char path[48];
	struct stat a, b;

	snprintf(path, sizeof(path), "/proc/%" PRId32 "/ns/mnt", pid);
	if (stat(path, &a) < 0 || stat("/proc/self/ns/mnt", &b) < 0)
		return errno == ENOENT; /* gone: most processes shared it */
	return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* The jitdump path process `p` mapped, malloc'ed, or NULL. */
static char *
mapped_dump(const struct jproc *p)
{
	char path[48], want[32], line[4200], *s, *found = NULL;
	size_t n, wn;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRId32 "/maps", p->pid);
	wn = (size_t)snprintf(want, sizeof(want), "/jit-%" PRId32 ".dump",
			      p->nspid);
	if (!(f = fopen(path, "re")))
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		n = strcspn(line, "\n");
		line[n] = '\0';
		s = strchr(line, '/');
		if (s && n >= wn && !strcmp(line + n - wn, want))
			found = strdup(s);
	}
	fclose(f);
	return found;
}

/*
 * Opens file `kind` of `p`: in its root while it lives; once it is gone,
 * in the /tmp held since its first sample (a JIT that writes its map as
 * it exits, in a container gone since), else the host's when it shared
 * the host's view.  Only root's or its user's.
 */
static int
open_kind(const struct jproc *p, enum rec_jitkeep_kind kind, bool alive)
{
	char path[64];
	const char *at = path;
	struct stat st;
	int fd = -1;

	if (kind == REC_JIT_MAP)
		snprintf(path, sizeof(path), "/tmp/perf-%" PRId32 ".map",
			 p->nspid);
	else if (p->dump)
		at = p->dump;
	else
		snprintf(path, sizeof(path), "/tmp/jit-%" PRId32 ".dump",
			 p->nspid);
	if (alive)
		fd = rec_capfile_in_root(p->pid, at, &st);
	else if (p->tmp >= 0 && !strncmp(at, "/tmp/", 5))
		fd = rec_capfile_at(p->tmp, at + 5, &st);
	else if (p->same_ns)
		fd = rec_capfile_host(at, &st);
	if (fd >= 0 && st.st_uid != 0 && st.st_uid != p->uid) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Whether process `pid` still runs (or is a zombie with a root). */
static bool
alive(int32_t pid)
{
	char path[48];

	snprintf(path, sizeof(path), "/proc/%" PRId32 "/root/", pid);
	return access(path, F_OK) == 0;
}

void
rec_jitkeep_seen(struct rec_jitkeep *k, int32_t pid)
{
	struct jproc *p;
	uint64_t *slot;
	bool fresh, live;
	int i;

	if (!k || pid <= 0)
		return;
	slot = sp_htab_slot(k->by_pid, &pid, sizeof(pid), 0, &fresh);
	if (!slot || !fresh)
		return;
	if (!(p = calloc(1, sizeof(*p)))) {
		sp_htab_del(k->by_pid, &pid, sizeof(pid));
		return;
	}
	*slot = (uint64_t)(uintptr_t)p;
	p->pid = pid;
	if (rec_proc_uid(pid, &p->uid) < 0)
		p->uid = geteuid();
	if (rec_proc_nspid(pid, &p->nspid) < 0)
		p->nspid = pid;
	p->same_ns = same_mount_ns(pid);
	p->dump = mapped_dump(p);
	live = alive(pid);
	p->tmp = live && k->nheld < MAX_HELD
		     ? rec_capfile_dir_in_root(pid, "/tmp")
		     : -1;
	k->nheld += p->tmp >= 0;
	for (i = 0; i < REC_JIT_NKINDS; i++) {
		p->fd[i] = k->nheld < MAX_HELD
			       ? open_kind(p, (enum rec_jitkeep_kind)i, live)
			       : -1;
		k->nheld += p->fd[i] >= 0;
	}
}

size_t
rec_jitkeep_take(struct rec_jitkeep *k, int32_t pid,
		 struct rec_jitkeep_file out[REC_JIT_NKINDS])
{
	static const char *const ext[] = { "map", "dump" };
	struct jproc *p;
	struct stat st;
	size_t n = 0;
	uint64_t v;
	bool live;
	int i, fd;

	if (!k || !sp_htab_get(k->by_pid, &pid, sizeof(pid), &v))
		return 0;
	sp_htab_del(k->by_pid, &pid, sizeof(pid));
	p = (struct jproc *)(uintptr_t)v;
	k->nheld -= p->tmp >= 0;
	live = alive(pid);
	for (i = 0; i < REC_JIT_NKINDS; i++) {
		k->nheld -= p->fd[i] >= 0;
		fd = p->fd[i] >= 0
			 ? p->fd[i]
			 : open_kind(p, (enum rec_jitkeep_kind)i, live);
		p->fd[i] = -1;
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		out[n].fd = fd;
		out[n].size = (uint64_t)st.st_size;
		snprintf(out[n].name, sizeof(out[n].name),
			 "%s-%" PRIu64 "-%" PRId32 ".%s", k->boot, k->start_us,
			 pid, ext[i]);
		n++;
	}
	jproc_free(p);
	return n;
}

bool
rec_jitkeep_any(const struct rec_jitkeep *k, int32_t *pid)
{
	const void *key;
	size_t pos = 0;
	uint64_t v;

	if (!k || !sp_htab_next(k->by_pid, &pos, &key, NULL, &v))
		return false;
	*pid = ((const struct jproc *)(uintptr_t)v)->pid;
	return true;
}
