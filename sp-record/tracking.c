/*
 * tracking.c: which processes are recorded: tracking and retiring them, their
 * modules from /proc/PID/maps, the Python runtime marker, the liveness
 * checks and the adoption of children found late (recorder.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/htab.h"
#include "sp-record/recorder_impl.h"
#include "common/banned.h"

/* Writes the runtime marker the first time a Python runtime shows up. */
int
rec_mark_python(struct recorder *r, struct rec_proc *p, uint64_t ts)
{
	if (p->python_runtime)
		return 0;
	p->python_runtime = true;
	if (r->werr)
		return r->werr;
	return rec_wr(r, sp_spool_writer_exec(r->w, ts, p->pid, true));
}

bool
rec_python_support(struct rec_proc *p)
{
	if (p->python_support < 0)
		p->python_support = rec_proc_python_perf(p->pid);
	return p->python_support > 0;
}

/*
 * Whether interning module `id` over [m->start, m->end) replaced code of
 * another module, as read just before (lo, hi: what the ends resolved
 * to): the unwinder must then forget what it learnt of the process.
 */
bool
rec_replaces(const struct sp_frame *lo, const struct sp_frame *hi, uint32_t id)
{
	return (lo->module_id != SP_NONE && lo->module_id != id) ||
	       (hi->module_id != SP_NONE && hi->module_id != id);
}

/*
 * Interns every module of a maps snapshot of `p`; marks the Python
 * runtime when one is mapped and perf support is on.  A mapping that
 * replaced another one (a refresh after dlclose and dlopen, which
 * --ptrace sees only this way) resets the unwinder's view of `p`.
 */
static int
register_maps(struct recorder *r, struct rec_proc *p, uint64_t ts)
{
	const char *text = (const char *)r->maps.data;
	bool python = false, replaced = false;
	struct sp_frame lo, hi;
	struct sp_module m;
	struct rec_map map;
	size_t pos = 0;
	uint32_t id;
	int rc;

	while (rec_maps_next(text, r->maps.len, &pos, &map, NULL) == 1) {
		if (!rec_map_is_module(&map)) {
			if (map.perms[2] == 'x') /* anonymous code */
				(void)rec_stacker_add_code(&r->stk, p->pid,
							   map.start, map.end);
			continue;
		}
		memset(&m, 0, sizeof(m));
		m.pid = p->pid;
		m.start = map.start;
		m.end = map.end;
		m.file_offset = map.offset;
		m.inode = map.inode;
		m.path = map.path;
		m.path_len = map.path_len;
		sp_modtab_resolve(r->mods, p->pid, m.start, SP_FRAME_USER, &lo);
		sp_modtab_resolve(r->mods, p->pid, m.end - 1, SP_FRAME_USER,
				  &hi);
		rc = rec_intern(r, &m, &id);
		if (rc < 0)
			return rc;
		replaced |= rec_replaces(&lo, &hi, id);
		python |= rec_is_python_runtime_path(map.path, map.path_len);
	}
	if (replaced)
		rec_stacker_forget(&r->stk, p->pid);
	if (python && rec_python_support(p))
		return rec_mark_python(r, p, ts);
	return 0;
}

/* Reads /proc/PID/maps of `p` and interns its modules. */
int
rec_snapshot_maps(struct recorder *r, struct rec_proc *p, uint64_t ts)
{
	if (rec_maps_read(p->pid, &r->maps) < 0)
		return 0; /* gone: its EXIT is on its way */
	return register_maps(r, p, ts);
}

/*
 * Reads /proc/PID/maps of `p` again and interns its modules when the
 * text differs from what the last call read (of any process).  Returns
 * 1 when it did, 0 when nothing changed or the process is gone, or a
 * negative errno.
 */
int
rec_refresh_maps(struct recorder *r, struct rec_proc *p, uint64_t ts)
{
	int rc;

	if (rec_maps_read(p->pid, &r->maps) < 0)
		return 0;
	if (r->maps_seen_pid == p->pid && r->maps_seen.len == r->maps.len &&
	    !memcmp(r->maps_seen.data, r->maps.data, r->maps.len))
		return 0;
	sp_buf_reset(&r->maps_seen);
	r->maps_seen_pid = 0;
	if (sp_buf_add(&r->maps_seen, r->maps.data, r->maps.len) == 0)
		r->maps_seen_pid = p->pid;
	rc = register_maps(r, p, ts);
	return rc < 0 ? rc : 1;
}

/* Starts tracking `pid`; its start time tells generations apart. */
struct rec_proc *
rec_track_process(struct recorder *r, int32_t pid, bool target)
{
	struct rec_proc *p = rec_ptab_add(&r->procs, pid);
	char state;

	if (!p) {
		rec_wr(r, -ENOMEM);
		return NULL;
	}
	p->target = target;
	if (rec_proc_stat(pid, &state, &p->start_time) < 0)
		p->start_time = 0;
	return p;
}

/* -a: whether `pid` is to be recorded (not us; the -u user's). */
static bool
wanted(struct recorder *r, int32_t pid)
{
	uid_t uid;

	if (pid == r->self)
		return false;
	return !r->cfg.only_uid ||
	       (rec_proc_uid(pid, &uid) == 0 && uid == r->cfg.uid);
}

struct rec_proc *
rec_adopt_sampled(struct recorder *r, int32_t pid, uint64_t ts)
{
	struct rec_proc *p;

	if (sp_htab_get(r->ignored, &pid, sizeof(pid), NULL))
		return NULL;
	if (!wanted(r, pid)) {
		if (sp_htab_put(r->ignored, &pid, sizeof(pid), 1) < 0)
			rec_wr(r, -ENOMEM);
		return NULL;
	}
	p = rec_track_process(r, pid, false);
	if (!p || rec_snapshot_maps(r, p, ts) < 0 ||
	    rec_name_threads(r, pid, ts) < 0)
		return NULL;
	return p;
}

struct rec_proc *
rec_adopt_forked(struct recorder *r, int32_t pid)
{
	/* Its own children (-a -- CMD) are recorded; a child of another
	 * user's process may have changed users. */
	if (!wanted(r, pid))
		return NULL;
	return rec_track_process(r, pid, false);
}

void
rec_forget_ignored(struct recorder *r, int32_t pid)
{
	sp_htab_del(r->ignored, &pid, sizeof(pid));
}

/* A process ended (or its pid was reused): close its module epoch. */
int
rec_retire(struct recorder *r, int32_t pid, uint64_t ts)
{
	struct rec_proc *p = rec_ptab_get(&r->procs, pid);
	int rc = 0;

	if (!p)
		return 0;
	if (p->python_runtime && !r->werr)
		rc = rec_wr(r, sp_spool_writer_exec(r->w, ts, pid, false));
	if (!rc && !r->werr)
		rc = rec_wr(r, sp_modtab_deactivate(r->mods, pid, r->w));
	rec_stacker_end(&r->stk, pid);
	rec_ptab_remove(&r->procs, pid);
	r->procs.procs_exited++;
	return rc;
}

struct check_ctx {
	struct recorder *r;
	uint64_t now;
};

/* A zombie leader may still have live threads (it called pthread_exit). */
static bool
group_alive(int32_t pid)
{
	int32_t *tids;
	long n = rec_proc_tasks(pid, &tids);

	free(tids);
	return n > 1;
}

static void
check_one(struct rec_proc *p, void *arg)
{
	struct check_ctx *cc = arg;
	struct retire rt = { p->pid, 0, p->start_time };
	uint64_t start;
	bool dead;
	char state;
	int rc;

	if (p->retiring)
		return;
	rc = rec_proc_stat(p->pid, &state, &start);
	if (rc == -ENOENT || rc == -ESRCH)
		dead = true;
	else if (rc < 0)
		dead = false;
	else if (p->start_time && start != p->start_time)
		dead = true;
	else
		dead = (state == 'Z' || state == 'X') && !group_alive(p->pid);
	if (!dead)
		return;
	/* Retire after every event already written before its death. */
	if (rec_sorter_push(cc->r->sorter, cc->now, KIND_RETIRE, &rt,
			    sizeof(rt)) == 0)
		p->retiring = true;
}

void
rec_check_processes(struct recorder *r, uint64_t now)
{
	struct check_ctx cc = { r, now };

	rec_ptab_each(&r->procs, check_one, &cc);
}

/*
 * Lost events may include the FORK of a child -f should follow: adopt
 * every untracked process whose parent is tracked, with its maps and
 * thread names, until none is left (grandchildren come in later passes).
 */
void
rec_adopt_children(struct recorder *r, uint64_t now)
{
	struct rec_proc *p;
	struct dirent *e;
	int32_t pid, ppid;
	int pass, found;
	char *end;
	long v;
	DIR *d;

	for (pass = 0, found = 1; pass < 8 && found && !r->werr; pass++) {
		d = opendir("/proc");
		if (!d)
			return;
		found = 0;
		while ((e = readdir(d)) && !r->werr) {
			v = strtol(e->d_name, &end, 10);
			if (*end || v <= 0 || v > INT32_MAX)
				continue;
			pid = (int32_t)v;
			if (rec_ptab_get(&r->procs, pid) ||
			    rec_proc_ppid(pid, &ppid) < 0 ||
			    !rec_ptab_get(&r->procs, ppid))
				continue;
			/* -a records the shell that started us: we are its
			 * child, and never recorded. */
			if (r->cfg.system_wide && !wanted(r, pid))
				continue;
			p = rec_track_process(r, pid, false);
			if (!p)
				break;
			r->st.adopted++;
			found = 1;
			if (rec_snapshot_maps(r, p, now) == 0)
				rec_name_threads(r, pid, now);
		}
		closedir(d);
	}
}

/* Names every thread of a freshly attached process. */
int
rec_name_threads(struct recorder *r, int32_t pid, uint64_t ts)
{
	char comm[REC_COMM_MAX];
	int32_t *tids;
	long n, i;
	int rc = 0;

	n = rec_proc_tasks(pid, &tids);
	for (i = 0; i < n && rc == 0; i++) {
		if (rec_proc_comm(pid, tids[i], comm, sizeof(comm)) < 0)
			continue;
		if (!rec_ptab_add_thread(&r->procs, pid, tids[i], comm,
					 strlen(comm))) {
			rc = rec_wr(r, -ENOMEM);
			break;
		}
		rc = rec_write_comm(r, ts, pid, tids[i], false, comm,
				    strlen(comm));
	}
	free(tids);
	return rc;
}
