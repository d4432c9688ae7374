/*
 * tracking.c: the recorder's tracking part (tracking.h): which processes
 * are recorded, their modules from perf records and /proc/PID/maps, the
 * Python runtime marker, the liveness checks and the adoption of
 * processes found late.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/htab.h"
#include "sp-record/files/filepin.h"
#include "sp-record/sys/maps.h"
#include "sp-record/tracking.h"
#include "common/pyruntime.h"
#include "common/banned.h"

struct rec_tracking {
	struct rec_proc_tab procs;
	struct sp_modtab *mods;
	struct rec_spoolout *out; /* borrowed */
	struct rec_stack *stk;    /* borrowed */
	struct rec_capture *cap;  /* borrowed, or NULL */
	struct rec_filepin *pins; /* borrowed, or NULL */
	struct sp_buf maps;       /* /proc/PID/maps scratch */
	struct sp_buf
	    maps_seen; /* the text rec_tracking_refresh_maps() last read */
	int32_t maps_seen_pid;
	int32_t self;            /* our pid: -a does not record us */
	int32_t held;            /* -a -- CMD: our child, ours until exec */
	struct sp_htab *ignored; /* -a: pids not recorded (-u, us) */
	struct sp_htab *execs;   /* -a: pids not tracked -> their exec's time */
	bool system_wide, only_uid;
	uid_t uid;
};

struct rec_tracking *
rec_tracking_new(const struct rec_config *cfg, struct rec_spoolout *out,
		 struct rec_stack *stk)
{
	struct rec_tracking *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return NULL;
	t->out = out;
	t->stk = stk;
	t->self = (int32_t)getpid();
	t->system_wide = cfg->system_wide;
	t->only_uid = cfg->only_uid;
	t->uid = cfg->uid;
	rc = rec_proc_tab_init(&t->procs);
	t->mods = sp_modtab_new();
	t->ignored = sp_htab_new();
	t->execs = sp_htab_new();
	if (rc < 0 || !t->mods || !t->ignored || !t->execs) {
		rec_tracking_free(t);
		errno = rc < 0 ? -rc : ENOMEM;
		return NULL;
	}
	return t;
}

void
rec_tracking_free(struct rec_tracking *t)
{
	if (!t)
		return;
	rec_proc_tab_release(&t->procs);
	sp_modtab_free(t->mods);
	sp_htab_free(t->ignored);
	sp_htab_free(t->execs);
	sp_buf_release(&t->maps);
	sp_buf_release(&t->maps_seen);
	free(t);
}

void
rec_tracking_set_capture(struct rec_tracking *t, struct rec_capture *cap)
{
	t->cap = cap;
}

void
rec_tracking_set_pins(struct rec_tracking *t, struct rec_filepin *pins)
{
	t->pins = pins;
}

struct rec_proc_tab *
rec_tracking_procs(struct rec_tracking *t)
{
	return &t->procs;
}

const struct rec_proc_tab *
rec_tracking_procs_const(const struct rec_tracking *t)
{
	return &t->procs;
}

struct sp_modtab *
rec_tracking_mods(struct rec_tracking *t)
{
	return t->mods;
}

uint32_t
rec_tracking_nmodules(const struct rec_tracking *t)
{
	return sp_modtab_count(t->mods);
}

/* Writes the runtime marker the first time a Python runtime shows up. */
static int
mark_python(struct rec_tracking *t, struct rec_proc *p, uint64_t ts)
{
	if (p->python_runtime)
		return 0;
	p->python_runtime = true;
	if (rec_spoolout_error(t->out))
		return rec_spoolout_error(t->out);
	return rec_spoolout_wr(t->out,
			       sp_spool_writer_exec(rec_spoolout_writer(t->out),
						    ts, p->pid, true));
}

static bool
python_support(struct rec_proc *p)
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
static bool
replaces(const struct sp_frame *lo, const struct sp_frame *hi, uint32_t id)
{
	return (lo->module_id != SP_NONE && lo->module_id != id) ||
	       (hi->module_id != SP_NONE && hi->module_id != id);
}

/* Interns `m`; *replaced tells whether it took another module's place. */
static int
intern(struct rec_tracking *t, const struct sp_module *m, bool *replaced)
{
	struct sp_frame lo, hi;
	uint32_t id;
	int rc;

	sp_modtab_resolve(t->mods, m->pid, m->start, SP_FRAME_USER, &lo);
	sp_modtab_resolve(t->mods, m->pid, m->end - 1, SP_FRAME_USER, &hi);
	rc = rec_spoolout_intern(t->out, t->mods, m, &id);
	if (rc == 0)
		*replaced = replaces(&lo, &hi, id);
	return rc;
}

int
rec_tracking_map_module(struct rec_tracking *t, struct rec_proc *p,
			const struct sp_module *m, uint64_t ts)
{
	bool replaced;
	int rc = intern(t, m, &replaced);

	if (rc < 0)
		return rc;
	if (replaced)
		rec_stack_forget(t->stk, p->pid);
	if (sp_pyruntime_path(m->path, m->path_len) && python_support(p))
		return mark_python(t, p, ts);
	return 0;
}

/*
 * Interns every module of a maps snapshot of `p`; marks the Python
 * runtime when one is mapped and perf support is on.  A mapping that
 * replaced another one (a refresh after dlclose and dlopen, which
 * --ptrace sees only this way) resets the unwinder's view of `p`.
 */
static int
register_maps(struct rec_tracking *t, struct rec_proc *p, uint64_t ts)
{
	const char *text = (const char *)t->maps.data;
	bool python = false, replaced = false, one;
	struct sp_module m;
	struct rec_maps_entry map;
	size_t pos = 0;
	int rc;

	while (rec_maps_next(text, t->maps.len, &pos, &map, NULL) == 1) {
		if (!rec_maps_is_module(&map)) {
			if (map.perms[2] == 'x') /* anonymous code */
				(void)rec_stack_add_code(t->stk, p->pid,
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
		rc = intern(t, &m, &one);
		if (rc < 0)
			return rc;
		replaced |= one;
		python |= sp_pyruntime_path(map.path, map.path_len);
	}
	if (replaced)
		rec_stack_forget(t->stk, p->pid);
	if (python && python_support(p))
		return mark_python(t, p, ts);
	return 0;
}

int
rec_tracking_snapshot_maps(struct rec_tracking *t, struct rec_proc *p,
			   uint64_t ts)
{
	if (rec_maps_read(p->pid, &t->maps) < 0)
		return 0; /* gone: its EXIT is on its way */
	return register_maps(t, p, ts);
}

int
rec_tracking_refresh_maps(struct rec_tracking *t, struct rec_proc *p,
			  uint64_t ts)
{
	int rc;

	if (rec_maps_read(p->pid, &t->maps) < 0)
		return 0;
	if (t->maps_seen_pid == p->pid && t->maps_seen.len == t->maps.len &&
	    !memcmp(t->maps_seen.data, t->maps.data, t->maps.len))
		return 0;
	sp_buf_reset(&t->maps_seen);
	t->maps_seen_pid = 0;
	if (sp_buf_add(&t->maps_seen, t->maps.data, t->maps.len) == 0)
		t->maps_seen_pid = p->pid;
	rc = register_maps(t, p, ts);
	return rc < 0 ? rc : 1;
}

struct rec_proc *
rec_tracking_track_child(struct rec_tracking *t, int32_t pid)
{
	struct rec_proc *p = rec_proc_tab_add(&t->procs, pid);

	if (!p)
		rec_spoolout_wr(t->out, -ENOMEM);
	return p;
}

struct rec_proc *
rec_tracking_track_process(struct rec_tracking *t, int32_t pid, bool target)
{
	struct rec_proc *p = rec_tracking_track_child(t, pid);
	char state;

	if (!p)
		return NULL;
	p->target = target;
	if (rec_proc_stat(pid, &state, &p->start_time) < 0)
		p->start_time = 0;
	return p;
}

int
rec_tracking_exec_epoch(struct rec_tracking *t, struct rec_proc *p, uint64_t ts)
{
	struct rec_spoolout *o = t->out;
	int rc;

	p->exec_time = ts;
	rc = rec_spoolout_wr(
	    o, sp_spool_writer_exec(rec_spoolout_writer(o), ts, p->pid, false));
	if (rc == 0)
		rc = rec_spoolout_wr(
		    o, sp_modtab_deactivate(t->mods, p->pid,
					    rec_spoolout_writer(o)));
	p->python_runtime = false;
	p->python_support = -1;
	rec_proc_clear_uncovered(p);
	rec_stack_end(t->stk, p->pid);
	return rc;
}

int
rec_tracking_inherit(struct rec_tracking *t, struct rec_proc *parent,
		     struct rec_proc *child, uint64_t ts)
{
	uint32_t first;
	int rc;

	child->python_support = parent->python_support;
	if (parent->python_runtime) {
		rc = mark_python(t, child, ts);
		if (rc < 0)
			return rc;
	}
	first = sp_modtab_count(t->mods);
	rc = rec_spoolout_wr(t->out,
			     sp_modtab_clone(t->mods, parent->pid, child->pid,
					     rec_spoolout_writer(t->out)));
	if (rc == 0)
		rc = rec_spoolout_buildids(t->out, t->mods, first);
	return rc;
}

/* -a: whether `pid` is to be recorded (not us; the -u user's). */
static bool
wanted(struct rec_tracking *t, int32_t pid)
{
	uid_t uid;

	if (pid == t->self || pid == t->held)
		return false;
	return !t->only_uid || (rec_proc_uid(pid, &uid) == 0 && uid == t->uid);
}

/*
 * How long a process found unwanted stays so without a look: it may
 * change users (setuid after fork, as daemons drop privileges) with no
 * exec to tell (an exec forgets the verdict at once).
 */
#define RECHECK_NS 1000000000ULL

struct rec_proc *
rec_tracking_adopt_sampled(struct rec_tracking *t, int32_t pid, uint64_t ts)
{
	struct rec_proc *p;
	uint64_t when;

	if (sp_htab_get(t->ignored, &pid, sizeof(pid), &when) &&
	    ts - when < RECHECK_NS)
		return NULL;
	if (!wanted(t, pid)) {
		if (sp_htab_put(t->ignored, &pid, sizeof(pid), ts) < 0)
			rec_spoolout_wr(t->out, -ENOMEM);
		return NULL;
	}
	sp_htab_del(t->ignored, &pid, sizeof(pid));
	p = rec_tracking_track_process(t, pid, false);
	/* Its exec's samples with the old program's registers are dropped
	 * as a tracked process's are (handlers.c). */
	if (p && sp_htab_get(t->execs, &pid, sizeof(pid), &when)) {
		p->exec_time = when;
		sp_htab_del(t->execs, &pid, sizeof(pid));
	}
	if (!p || rec_tracking_snapshot_maps(t, p, ts) < 0 ||
	    rec_tracking_name_threads(t, pid, ts) < 0)
		return NULL;
	return p;
}

struct rec_proc *
rec_tracking_adopt_forked(struct rec_tracking *t, int32_t pid)
{
	/* Its own children (-a -- CMD) are recorded; a child of another
	 * user's process may have changed users. */
	if (!wanted(t, pid))
		return NULL;
	return rec_tracking_track_process(t, pid, false);
}

void
rec_tracking_hold_until_exec(struct rec_tracking *t, int32_t pid)
{
	t->held = pid;
}

void
rec_tracking_untracked_exec(struct rec_tracking *t, int32_t pid, uint64_t ts)
{
	if (pid == t->held)
		t->held = 0;
	sp_htab_del(t->ignored, &pid, sizeof(pid));
	if (t->system_wide && sp_htab_put(t->execs, &pid, sizeof(pid), ts) < 0)
		rec_spoolout_wr(t->out, -ENOMEM);
}

void
rec_tracking_untracked_exit(struct rec_tracking *t, int32_t pid)
{
	sp_htab_del(t->ignored, &pid, sizeof(pid));
	sp_htab_del(t->execs, &pid, sizeof(pid));
}

int
rec_tracking_retire(struct rec_tracking *t, int32_t pid, uint64_t ts)
{
	struct rec_proc *p = rec_proc_tab_get(&t->procs, pid);
	struct rec_spoolout *o = t->out;
	int rc = 0;

	if (!p)
		return 0;
	if (p->python_runtime && !rec_spoolout_error(o))
		rc = rec_spoolout_wr(
		    o, sp_spool_writer_exec(rec_spoolout_writer(o), ts, pid,
					    false));
	if (!rc && !rec_spoolout_error(o))
		rc = rec_spoolout_wr(
		    o,
		    sp_modtab_deactivate(t->mods, pid, rec_spoolout_writer(o)));
	/*
	 * -a runs for hours while processes come and go: a forget record
	 * lets every reader down the pipe free what was only this one's.
	 */
	if (!rc && t->system_wide && !rec_spoolout_error(o))
		rc = rec_spoolout_wr(
		    o, sp_spool_writer_forget(rec_spoolout_writer(o), pid));
	rec_stack_end(t->stk, pid);
	rec_capture_retire(t->cap, pid);
	rec_filepin_retire(t->pins, pid);
	rec_proc_tab_remove(&t->procs, pid);
	t->procs.procs_exited++;
	return rc;
}

struct check_ctx {
	bool (*dead)(const struct rec_proc *p, void *arg);
	void *arg;
	bool ring_whole;
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
	uint64_t start;
	bool dead;
	char state;
	int rc;

	if (p->retiring || (cc->ring_whole && p->threads))
		return;
	rc = rec_proc_stat(p->pid, &state, &start);
	if (rc == 0 && !p->start_time)
		p->start_time =
		    start; /* not read (rec_tracking_track_child): now */
	if (rc == -ENOENT || rc == -ESRCH)
		dead = true;
	else if (rc < 0)
		dead = false;
	else if (start != p->start_time)
		dead = true;
	else
		dead = (state == 'Z' || state == 'X') && !group_alive(p->pid);
	if (dead && cc->dead(p, cc->arg))
		p->retiring = true;
}

void
rec_tracking_check_processes(struct rec_tracking *t, bool ring_whole,
			     bool (*dead)(const struct rec_proc *p, void *arg),
			     void *arg)
{
	struct check_ctx cc = { dead, arg, ring_whole };

	rec_proc_tab_each(&t->procs, check_one, &cc);
}

uint64_t
rec_tracking_adopt_children(struct rec_tracking *t, uint64_t now)
{
	struct rec_proc *p;
	struct dirent *e;
	int32_t pid, ppid;
	int pass, found;
	uint64_t adopted = 0;
	char *end;
	long v;
	DIR *d;

	for (pass = 0, found = 1;
	     pass < 8 && found && !rec_spoolout_error(t->out); pass++) {
		d = opendir("/proc");
		if (!d)
			return adopted;
		found = 0;
		while ((e = readdir(d)) && !rec_spoolout_error(t->out)) {
			v = strtol(e->d_name, &end, 10);
			if (*end || v <= 0 || v > INT32_MAX)
				continue;
			pid = (int32_t)v;
			if (rec_proc_tab_get(&t->procs, pid) ||
			    rec_proc_ppid(pid, &ppid) < 0 ||
			    !rec_proc_tab_get(&t->procs, ppid))
				continue;
			/* -a records the shell that started us: we are its
			 * child, and never recorded. */
			if (t->system_wide && !wanted(t, pid))
				continue;
			p = rec_tracking_track_process(t, pid, false);
			if (!p)
				break;
			adopted++;
			found = 1;
			if (rec_tracking_snapshot_maps(t, p, now) == 0)
				rec_tracking_name_threads(t, pid, now);
		}
		closedir(d);
	}
	return adopted;
}

int
rec_tracking_name_threads(struct rec_tracking *t, int32_t pid, uint64_t ts)
{
	char comm[REC_PROC_COMM_MAX];
	int32_t *tids;
	long n, i;
	int rc = 0;

	n = rec_proc_tasks(pid, &tids);
	for (i = 0; i < n && rc == 0; i++) {
		if (rec_proc_comm(pid, tids[i], comm, sizeof(comm)) < 0)
			continue;
		if (!rec_proc_tab_add_thread(&t->procs, pid, tids[i], comm,
					     strlen(comm))) {
			rc = rec_spoolout_wr(t->out, -ENOMEM);
			break;
		}
		rc = rec_spoolout_comm(t->out, ts, pid, tids[i], false, comm,
				       strlen(comm));
	}
	free(tids);
	return rc;
}
