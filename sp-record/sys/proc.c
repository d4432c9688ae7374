/*
 * proc.c: process and thread tables, /proc readers (see proc.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/htab.h"
#include "sp-record/sys/proc.h"
#include "common/pyruntime.h"
#include "common/banned.h"

int
rec_proc_tab_init(struct rec_proc_tab *t)
{
	memset(t, 0, sizeof(*t));
	t->procs = sp_htab_new();
	t->threads = sp_htab_new();
	if (!t->procs || !t->threads) {
		rec_proc_tab_release(t);
		return -ENOMEM;
	}
	return 0;
}

static void
free_proc(struct rec_proc *p)
{
	if (!p)
		return;
	sp_htab_free(p->refreshed);
	free(p);
}

void
rec_proc_tab_release(struct rec_proc_tab *t)
{
	const void *key;
	size_t pos = 0, len;
	uint64_t v;

	while (t->procs && sp_htab_next(t->procs, &pos, &key, &len, &v))
		free_proc((struct rec_proc *)(uintptr_t)v);
	pos = 0;
	while (t->threads && sp_htab_next(t->threads, &pos, &key, &len, &v))
		free((void *)(uintptr_t)v);
	sp_htab_free(t->procs);
	sp_htab_free(t->threads);
	t->procs = NULL;
	t->threads = NULL;
}

struct rec_proc *
rec_proc_tab_get(struct rec_proc_tab *t, int32_t pid)
{
	uint64_t v;

	if (!sp_htab_get(t->procs, &pid, sizeof(pid), &v))
		return NULL;
	return (struct rec_proc *)(uintptr_t)v;
}

struct rec_proc *
rec_proc_tab_add(struct rec_proc_tab *t, int32_t pid)
{
	struct rec_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	p->python_support = -1;
	if (sp_htab_put(t->procs, &pid, sizeof(pid), (uintptr_t)p) < 0) {
		free(p);
		return NULL;
	}
	t->nprocs++;
	t->procs_seen++;
	return p;
}

/* Takes a thread off its process's list. */
static void
thread_unlink(struct rec_proc_thread *th)
{
	if (!th->proc)
		return;
	if (th->prev)
		th->prev->next = th->next;
	else
		th->proc->threads = th->next;
	if (th->next)
		th->next->prev = th->prev;
	th->proc = NULL;
	th->prev = th->next = NULL;
}

void
rec_proc_tab_remove(struct rec_proc_tab *t, int32_t pid)
{
	struct rec_proc *p = rec_proc_tab_get(t, pid);
	struct rec_proc_thread *th, *next;

	if (!p)
		return;
	for (th = p->threads; th; th = next) {
		next = th->next;
		sp_htab_del(t->threads, &th->tid, sizeof(th->tid));
		free(th);
	}
	free_proc(p);
	sp_htab_del(t->procs, &pid, sizeof(pid));
	t->nprocs--;
}

void
rec_proc_tab_each(struct rec_proc_tab *t,
		  void (*fn)(struct rec_proc *p, void *arg), void *arg)
{
	const void *key;
	size_t pos = 0, len;
	uint64_t v;

	while (sp_htab_next(t->procs, &pos, &key, &len, &v))
		if (v)
			fn((struct rec_proc *)(uintptr_t)v, arg);
}

struct rec_proc_thread *
rec_proc_tab_thread(struct rec_proc_tab *t, int32_t tid)
{
	uint64_t v;

	if (!sp_htab_get(t->threads, &tid, sizeof(tid), &v))
		return NULL;
	return (struct rec_proc_thread *)(uintptr_t)v;
}

struct rec_proc_thread *
rec_proc_tab_add_thread(struct rec_proc_tab *t, int32_t pid, int32_t tid,
			const char *comm, size_t comm_len)
{
	struct rec_proc_thread *th = rec_proc_tab_thread(t, tid);

	if (!th) {
		th = calloc(1, sizeof(*th));
		if (!th)
			return NULL;
		if (sp_htab_put(t->threads, &tid, sizeof(tid), (uintptr_t)th) <
		    0) {
			free(th);
			return NULL;
		}
		t->threads_seen++;
	}
	if (!th->proc || th->pid != pid) {
		thread_unlink(th);
		th->proc = rec_proc_tab_get(t, pid);
		if (th->proc) {
			th->next = th->proc->threads;
			if (th->next)
				th->next->prev = th;
			th->proc->threads = th;
		}
	}
	th->pid = pid;
	th->tid = tid;
	if (comm) {
		if (comm_len >= REC_PROC_COMM_MAX)
			comm_len = REC_PROC_COMM_MAX - 1;
		memcpy(th->comm, comm, comm_len);
		th->comm[comm_len] = '\0';
	}
	return th;
}

void
rec_proc_tab_remove_thread(struct rec_proc_tab *t, int32_t tid)
{
	struct rec_proc_thread *th = rec_proc_tab_thread(t, tid);

	if (!th)
		return;
	thread_unlink(th);
	free(th);
	sp_htab_del(t->threads, &tid, sizeof(tid));
}

bool
rec_proc_first_uncovered(struct rec_proc *p, uint64_t pc)
{
	uint64_t page = pc & ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1);
	bool fresh = false;

	if (!p->refreshed && !(p->refreshed = sp_htab_new()))
		return false;
	if (!sp_htab_slot(p->refreshed, &page, sizeof(page), 1, &fresh))
		return false;
	return fresh;
}

void
rec_proc_clear_uncovered(struct rec_proc *p)
{
	sp_htab_free(p->refreshed);
	p->refreshed = NULL;
}

/* Reads a small /proc file into buf (NUL-terminated); returns its length. */
static long
read_small(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (long)len;
}

/*
 * Reads /proc/PID/stat and points *fields at field 3 (the state): the name
 * before it can hold anything, so fields start after the last ')'.
 */
static int
read_stat(int32_t pid, char *buf, size_t size, char **fields)
{
	char path[64], *p;
	long n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	n = read_small(path, buf, size);
	if (n < 0)
		return (int)n;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2])
		return -EBADMSG;
	*fields = p + 2;
	return 0;
}

/* Parses field `want` (numbered as in proc(5)) from field 3 on. */
static int
stat_field(char *fields, int want, uint64_t *v)
{
	char *p = fields, *end;
	int field;

	for (field = 3; field < want; field++) {
		p = strchr(p, ' ');
		if (!p)
			return -EBADMSG;
		p++;
	}
	errno = 0;
	*v = strtoull(p, &end, 10);
	if (end == p || errno)
		return -EBADMSG;
	return 0;
}

int
rec_proc_stat(int32_t pid, char *state, uint64_t *start_time)
{
	char buf[1024], *fields;
	int rc = read_stat(pid, buf, sizeof(buf), &fields);

	if (rc < 0)
		return rc;
	*state = fields[0];
	return stat_field(fields, 22, start_time);
}

int
rec_proc_ppid(int32_t pid, int32_t *ppid)
{
	char buf[1024], *fields;
	uint64_t v;
	int rc = read_stat(pid, buf, sizeof(buf), &fields);

	if (rc == 0)
		rc = stat_field(fields, 4, &v);
	if (rc == 0 && v > INT32_MAX)
		rc = -EBADMSG;
	if (rc == 0)
		*ppid = (int32_t)v;
	return rc;
}

/*
 * The number after `key` ("\nTgid:") in /proc/PID/status, a pid: the
 * line's first, or with `last` its last (NSpid lists one a namespace).
 */
static int
status_pid(int32_t pid, const char *key, bool last, int32_t *out)
{
	char path[64], buf[4096], *p, *end, *eol, *tab;
	long n, v;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	p = strstr(buf, key);
	if (!p)
		return -EBADMSG;
	p += strlen(key);
	if (last && (eol = strchr(p, '\n'))) {
		*eol = '\0';
		if ((tab = strrchr(p, '\t')))
			p = tab + 1;
	}
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || end == p || v <= 0 || v > INT32_MAX)
		return -EBADMSG;
	*out = (int32_t)v;
	return 0;
}

int
rec_proc_tgid(int32_t pid, int32_t *tgid)
{
	return status_pid(pid, "\nTgid:", false, tgid);
}

int
rec_proc_nspid(int32_t pid, int32_t *nspid)
{
	return status_pid(pid, "\nNSpid:", true, nspid);
}

int
rec_proc_uid(int32_t pid, uid_t *uid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	if (stat(path, &st) < 0)
		return -errno;
	*uid = st.st_uid;
	return 0;
}

int
rec_proc_comm(int32_t pid, int32_t tid, char *buf, size_t size)
{
	char path[96];
	long n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid,
		 (int)tid);
	n = read_small(path, buf, size);
	if (n < 0)
		return (int)n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		buf[--n] = '\0';
	return 0;
}

long
rec_proc_tasks(int32_t pid, int32_t **tids)
{
	char path[64], *end;
	struct dirent *e;
	int32_t *v = NULL, *nv;
	size_t n = 0, alloc = 0;
	long tid;
	DIR *d;

	*tids = NULL;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0 || tid > INT32_MAX)
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			nv = reallocarray(v, alloc, sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = (int32_t)tid;
	}
	closedir(d);
	*tids = v;
	return (long)n;
}

bool
rec_proc_exe_python(int32_t pid)
{
	char path[64], exe[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, exe, sizeof(exe));
	return n > 0 && sp_pyruntime_path(exe, (size_t)n);
}

bool
rec_proc_cmdline_has_python_perf(const char *cmdline, size_t len)
{
	const char *p = cmdline, *end = cmdline + len, *nul, *next;
	size_t n;

	while (p < end) {
		nul = memchr(p, '\0', (size_t)(end - p));
		n = nul ? (size_t)(nul - p) : (size_t)(end - p);
		next = p + n + 1;
		if (n == 6 && memcmp(p, "-Xperf", 6) == 0)
			return true;
		if (n >= 7 && memcmp(p, "-Xperf,", 7) == 0)
			return true;
		if (n == 2 && memcmp(p, "-X", 2) == 0 && next < end) {
			size_t rest = (size_t)(end - next);

			if ((rest >= 5 && memcmp(next, "perf", 5) == 0) ||
			    (rest >= 5 && memcmp(next, "perf,", 5) == 0))
				return true;
		}
		p = next;
	}
	return false;
}

/* Reads /proc/PID/NAME whole into a malloc'ed buffer. */
static char *
read_proc_file(int32_t pid, const char *name, size_t *len)
{
	char path[64], *buf = NULL, *nb;
	size_t alloc = 0;
	ssize_t n;
	int fd;

	*len = 0;
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (*len == alloc) {
			alloc = alloc ? 2 * alloc : 4096;
			if (alloc > (1u << 24) || !(nb = realloc(buf, alloc)))
				break;
			buf = nb;
		}
		n = read(fd, buf + *len, alloc - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	close(fd);
	return buf;
}

bool
rec_proc_python_perf(int32_t pid)
{
	static const char key[] = "PYTHONPERFSUPPORT=1";
	const char *p, *end, *nul;
	bool found = false;
	size_t len, n;
	char *buf;

	buf = read_proc_file(pid, "environ", &len);
	for (p = buf, end = buf + len; buf && p < end && !found; p += n + 1) {
		nul = memchr(p, '\0', (size_t)(end - p));
		n = nul ? (size_t)(nul - p) : (size_t)(end - p);
		found = n == sizeof(key) - 1 && memcmp(p, key, n) == 0;
	}
	free(buf);
	if (found)
		return true;
	buf = read_proc_file(pid, "cmdline", &len);
	found = buf && rec_proc_cmdline_has_python_perf(buf, len);
	free(buf);
	return found;
}

void
rec_proc_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)size, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}
