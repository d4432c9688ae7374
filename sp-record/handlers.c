/*
 * handlers.c: the handlers that turn perf records (sample, mmap2, comm, fork,
 * exit, lost) into spool records, in time order (recorder.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sp-record/recorder_impl.h"
#include "common/banned.h"

/* Names a thread first seen in a sample, from /proc. */
static int
ensure_thread(struct recorder *r, struct rec_proc *p, int32_t tid, uint64_t ts)
{
	struct rec_thread *th = rec_ptab_thread(&r->procs, tid);
	char comm[REC_COMM_MAX];

	if (th && th->pid == p->pid)
		return 0;
	if (rec_proc_comm(p->pid, tid, comm, sizeof(comm)) < 0)
		comm[0] = '\0';
	if (!rec_ptab_add_thread(&r->procs, p->pid, tid, comm, strlen(comm)))
		return rec_wr(r, -ENOMEM);
	if (!comm[0])
		return 0;
	return rec_write_comm(r, ts, p->pid, tid, false, comm, strlen(comm));
}

/*
 * A pc no module covers: the maps may have changed unseen; read them,
 * once a page.  Returns 1 for a sample to drop: one taken inside the
 * exec that replaced the program, whose user registers are still the
 * old program's (the kernel has announced the new one), so that its pc
 * lies in no mapping of the new image; 0 to write it, or an error.
 */
static int
cover_pc(struct recorder *r, struct rec_proc *p, const struct rec_sample *s)
{
	struct sp_frame f;
	uint64_t pc;
	int rc;

	if (!rec_sample_user_pc(&r->stk, s, &pc))
		return 0;
	sp_modtab_resolve(r->mods, p->pid, pc, SP_FRAME_USER, &f);
	if (f.module_id != SP_NONE)
		return 0;
	if (rec_proc_first_uncovered(p, pc)) {
		r->st.maps_refreshes++;
		rc = rec_snapshot_maps(r, p, s->time);
		if (rc < 0)
			return rc;
		sp_modtab_resolve(r->mods, p->pid, pc, SP_FRAME_USER, &f);
		if (f.module_id != SP_NONE)
			return 0;
	}
	if (!p->exec_time || s->time < p->exec_time ||
	    s->time - p->exec_time > REC_EXEC_STALE_NS)
		return 0;
	r->st.stale_exec++;
	return 1;
}

/*
 * With --ptrace no MMAP2 record announces a library loaded after the
 * maps snapshot, and a caller frame in it comes out of the unwinder
 * without module and without CFI.  Re-reads /proc/PID/maps then, at most
 * once per 100 ms and once per page of the missed pc; returns 1 when it
 * did (the sample is worth unwinding again), 0 when not, or the error.
 */
static int
cover_missed(struct recorder *r, struct rec_proc *p, uint64_t ts)
{
	uint64_t pc, now;
	int rc;

	if (!r->pt || !rec_stacker_missed_module(&r->stk, &pc))
		return 0;
	now = rec_now_ns();
	if (p->missed_refresh_ns &&
	    now - p->missed_refresh_ns < MISSED_REFRESH_NS)
		return 0;
	if (!rec_proc_first_uncovered(p, pc))
		return 0;
	p->missed_refresh_ns = now;
	r->st.maps_refreshes++;
	rc = rec_snapshot_maps(r, p, ts);
	return rc < 0 ? rc : 1;
}

/*
 * Unwinds and writes one sample of tracked process `p`.  A sample whose
 * unwinding led to a maps refresh is unwound again (the unwinder's own
 * counters count both passes; the truncation count only the second).
 */
int
rec_write_sample(struct recorder *r, struct rec_proc *p,
		 const struct rec_sample *s)
{
	struct rec_stack_stats before = r->stk.stats;
	size_t n, event = r->pt ? 0 : rec_events_index(&r->ev, s->id);
	uint32_t stack_id;
	int rc;

	rc = ensure_thread(r, p, (int32_t)s->tid, s->time);
	if (rc == 0)
		rc = cover_pc(r, p, s);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	n = rec_stack_build(&r->stk, r->mods, p->pid, s, r->frames);
	rc = cover_missed(r, p, s->time);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		r->stk.stats = before;
		n = rec_stack_build(&r->stk, r->mods, p->pid, s, r->frames);
	}
	/* --off-cpu: a switch-out's stack waits for its thread to run. */
	if (n > 0 && r->offcpu && event == r->ev.opts.nevents - 1)
		return rec_wr(
		    r, rec_offcpu_put(
			   r->offcpu, p->pid, s->tid, s->time,
			   rec_evspec_wait_state(&r->ev.opts.events[event],
						 s->raw, s->raw_len),
			   r->frames, n));
	/* The weight goes with a sample that will be written: one with
	 * frames (the ptrace sampler has no event of its own). */
	if (n > 0 && !r->pt && rec_needs_weight(r) &&
	    (rc = rec_write_weight(r, (uint32_t)event, s->period)) < 0)
		return rc;
	rc = rec_wr(r, sp_spool_writer_sample(r->w, s->time, p->pid, s->tid,
					      r->frames, n, &stack_id));
	if (rc < 0)
		return rc;
	if (stack_id == SP_NONE) {
		r->st.empty_stacks++;
	} else {
		r->st.samples++;
		p->samples++;
	}
	return 0;
}

static int
on_sample(struct recorder *r, const struct rec_event *e)
{
	struct rec_sample s;
	struct rec_proc *p;

	if (rec_sample_parse(&r->layout, e->data, e->len, &s) < 0) {
		r->st.bad_records++;
		return 0;
	}
	r->st.sample_events++;
	if (s.pid == 0 || s.tid == 0 || s.tid > INT32_MAX) {
		r->st.idle++;
		return 0;
	}
	p = s.pid <= INT32_MAX ? rec_ptab_get(&r->procs, (int32_t)s.pid) : NULL;
	if (!p && r->cfg.system_wide && s.pid <= INT32_MAX)
		p = rec_adopt_sampled(r, (int32_t)s.pid, s.time);
	if (!p) {
		r->st.untracked++;
		return 0;
	}
	return rec_write_sample(r, p, &s);
}

static bool
mmap_is_module(const struct rec_mmap2 *m)
{
	if (!(m->prot & PROT_EXEC) || m->len == 0)
		return false;
	if (m->path_len > 0 && m->path[0] == '/')
		return true;
	return m->path_len == 6 && !memcmp(m->path, "[vdso]", 6);
}

/* Executable memory without a file: JIT code, Python's trampolines. */
static bool
mmap_is_anon_code(const struct rec_mmap2 *m)
{
	return (m->prot & PROT_EXEC) && m->len > 0 &&
	       !(m->path_len > 0 && m->path[0] == '/');
}

static int
on_mmap2(struct recorder *r, const struct rec_event *e, uint64_t ts)
{
	struct sp_frame lo, hi;
	struct rec_mmap2 mm;
	struct sp_module m;
	struct rec_proc *p;
	uint32_t id;
	int rc;

	if (rec_mmap2_parse(&r->layout, e->data, e->len, &mm) < 0) {
		r->st.bad_records++;
		return 0;
	}
	if (mm.pid > INT32_MAX)
		return 0;
	p = rec_ptab_get(&r->procs, (int32_t)mm.pid);
	if (!p)
		return 0;
	/* Out of memory, a missing range only ends some stacks early. */
	if (!mmap_is_module(&mm)) {
		if (mmap_is_anon_code(&mm))
			(void)rec_stacker_add_code(&r->stk, p->pid, mm.addr,
						   mm.addr + mm.len);
		return 0;
	}
	memset(&m, 0, sizeof(m));
	m.pid = p->pid;
	m.start = mm.addr;
	m.end = mm.addr + mm.len;
	m.file_offset = mm.pgoff;
	m.inode = mm.has_build_id ? 0 : mm.ino;
	m.path = mm.path;
	m.path_len = mm.path_len;
	/* A mapping over an older one replaces code the unwinder knows. */
	sp_modtab_resolve(r->mods, p->pid, m.start, SP_FRAME_USER, &lo);
	sp_modtab_resolve(r->mods, p->pid, m.end - 1, SP_FRAME_USER, &hi);
	rc = rec_intern(r, &m, &id);
	if (rc < 0)
		return rc;
	r->st.mmaps++;
	if (rec_replaces(&lo, &hi, id))
		rec_stacker_forget(&r->stk, p->pid);
	if (rec_is_python_runtime_path(mm.path, mm.path_len) &&
	    rec_python_support(p))
		return rec_mark_python(r, p, ts);
	return 0;
}

/* A new program: the process's old modules no longer apply. */
int
rec_exec_epoch(struct recorder *r, struct rec_proc *p, uint64_t ts)
{
	int rc;

	r->st.execs++;
	p->exec_time = ts;
	rc = rec_wr(r, sp_spool_writer_exec(r->w, ts, p->pid, false));
	if (rc == 0)
		rc = rec_wr(r, sp_modtab_deactivate(r->mods, p->pid, r->w));
	p->python_runtime = false;
	p->python_support = -1;
	rec_proc_clear_uncovered(p);
	rec_stacker_end(&r->stk, p->pid);
	return rc;
}

static int
on_comm(struct recorder *r, const struct rec_event *e, uint64_t ts)
{
	struct rec_comm c;
	struct rec_proc *p;
	int rc;

	if (rec_comm_parse(&r->layout, e->data, e->len, &c) < 0) {
		r->st.bad_records++;
		return 0;
	}
	if (c.pid > INT32_MAX || c.tid > INT32_MAX)
		return 0;
	p = rec_ptab_get(&r->procs, (int32_t)c.pid);
	if (!p)
		return 0;
	if (c.is_exec) {
		rc = rec_exec_epoch(r, p, ts);
		if (rc < 0)
			return rc;
	}
	if (!rec_ptab_add_thread(&r->procs, p->pid, (int32_t)c.tid, c.name,
				 c.name_len))
		return rec_wr(r, -ENOMEM);
	return rec_write_comm(r, ts, p->pid, (int32_t)c.tid, c.is_exec, c.name,
			      c.name_len);
}

/* Names a new thread after the thread that created it, as the kernel. */
static int
new_thread(struct recorder *r, int32_t pid, int32_t tid, int32_t ptid,
	   uint64_t ts)
{
	struct rec_thread *parent = rec_ptab_thread(&r->procs, ptid);
	char comm[REC_COMM_MAX] = "";

	if (parent)
		memcpy(comm, parent->comm, sizeof(comm));
	else if (rec_proc_comm(pid, tid, comm, sizeof(comm)) < 0)
		comm[0] = '\0';
	if (!rec_ptab_add_thread(&r->procs, pid, tid, comm, strlen(comm)))
		return rec_wr(r, -ENOMEM);
	if (!comm[0])
		return 0;
	return rec_write_comm(r, ts, pid, tid, false, comm, strlen(comm));
}

static int
on_fork(struct recorder *r, const struct rec_event *e, uint64_t ts)
{
	struct rec_proc *parent, *child;
	struct rec_task t;
	int32_t pid, ppid;
	uint32_t first;
	int rc;

	if (rec_task_parse(e->data, e->len, &t) < 0) {
		r->st.bad_records++;
		return 0;
	}
	if (t.pid > INT32_MAX || t.ppid > INT32_MAX || t.tid > INT32_MAX ||
	    t.ptid > INT32_MAX)
		return 0;
	pid = (int32_t)t.pid;
	ppid = (int32_t)t.ppid;
	if (pid == ppid) {
		if (t.tid == t.ptid || !rec_ptab_get(&r->procs, pid))
			return 0;
		return new_thread(r, pid, (int32_t)t.tid, (int32_t)t.ptid, ts);
	}
	parent = rec_ptab_get(&r->procs, ppid);
	if (!parent && r->cfg.system_wide) {
		r->st.forks++;
		if (!rec_ptab_get(&r->procs, pid) && !rec_adopt_forked(r, pid))
			return r->werr;
		return new_thread(r, pid, (int32_t)t.tid, (int32_t)t.ptid, ts);
	}
	if (!parent)
		return 0;
	r->st.forks++;
	if (!r->cfg.follow)
		return 0;
	/* Still tracked under this pid: an older process that went away. */
	if (rec_ptab_get(&r->procs, pid)) {
		rc = rec_retire(r, pid, ts);
		if (rc < 0)
			return rc;
	}
	child = rec_track_process(r, pid, false);
	if (!child)
		return r->werr;
	parent = rec_ptab_get(&r->procs, ppid);
	child->python_support = parent->python_support;
	if (parent->python_runtime) {
		rc = rec_mark_python(r, child, ts);
		if (rc < 0)
			return rc;
	}
	first = sp_modtab_count(r->mods);
	rc = rec_wr(r, sp_modtab_clone(r->mods, ppid, pid, r->w));
	if (rc == 0)
		rc = rec_write_buildids(r, first);
	if (rc < 0)
		return rc;
	return new_thread(r, pid, (int32_t)t.tid, (int32_t)t.ptid, ts);
}

static int
on_exit_record(struct recorder *r, const struct rec_event *e, uint64_t ts)
{
	struct rec_proc *p;
	struct rec_task t;
	int rc;

	if (rec_task_parse(e->data, e->len, &t) < 0) {
		r->st.bad_records++;
		return 0;
	}
	if (t.pid > INT32_MAX || t.tid > INT32_MAX)
		return 0;
	if (t.pid == t.tid)
		rec_forget_ignored(r, (int32_t)t.pid);
	if (!rec_ptab_get(&r->procs, (int32_t)t.pid))
		return 0;
	rec_ptab_remove_thread(&r->procs, (int32_t)t.tid);
	if (r->offcpu)
		free(rec_offcpu_take(r->offcpu, t.tid));
	sp_spool_writer_forget_thread(r->w, (int32_t)t.pid, t.tid);
	rc = rec_write_exit(r, ts, (int32_t)t.pid, (int32_t)t.tid);
	/* -a sees every thread come and go: the last one out ends the
	 * process now, not at the next liveness check. */
	p = rec_ptab_get(&r->procs, (int32_t)t.pid);
	if (rc == 0 && r->cfg.system_wide && p && !p->threads)
		rc = rec_retire(r, (int32_t)t.pid, ts);
	return rc;
}

/* Writes a waiting stack with the time its thread spent off the CPU. */
static int
write_wait(struct recorder *r, struct rec_offcpu_wait *w, uint64_t in_ns)
{
	uint64_t ns = in_ns > w->out_ns ? in_ns - w->out_ns : 0;
	uint32_t stack_id;
	int rc = 0;

	if (ns < r->cfg.off_cpu_min_ns || ns == 0)
		r->offcpu_short++;
	else if ((!w->state || (rc = rec_write_wait(r, w->state)) == 0) &&
		 (rc = rec_write_weight(r, (uint32_t)(r->ev.opts.nevents - 1),
					ns)) == 0)
		rc = rec_wr(r, sp_spool_writer_sample(r->w, w->out_ns, w->pid,
						      w->tid, w->frames,
						      w->nframes, &stack_id));
	if (rc == 0 && ns >= r->cfg.off_cpu_min_ns && ns)
		r->st.samples++;
	free(w);
	return rc;
}

int
rec_offcpu_flush(struct recorder *r, uint64_t now)
{
	struct rec_offcpu_wait *w;
	int rc = 0;

	while (r->offcpu && rc == 0 && (w = rec_offcpu_take_any(r->offcpu)))
		rc = write_wait(r, w, now);
	return rc;
}

/* --off-cpu: a thread back on a CPU ends its wait. */
static int
on_switch(struct recorder *r, const struct rec_event *e)
{
	struct rec_offcpu_wait *w;
	struct rec_switch sw;

	if (!r->offcpu)
		return 0;
	if (rec_switch_parse(&r->layout, e->data, e->len, &sw) < 0) {
		r->st.bad_records++;
		return 0;
	}
	/* The switch-out record follows its sample and says whether the
	 * thread was still runnable (preempted) or went to wait. */
	if (sw.out) {
		if ((w = rec_offcpu_peek(r->offcpu, sw.tid)) && !w->state)
			w->state =
			    sw.preempt ? SP_WAIT_PREEMPTED : SP_WAIT_BLOCKED;
		return 0;
	}
	if (!(w = rec_offcpu_take(r->offcpu, sw.tid)))
		return 0;
	return write_wait(r, w, sw.time);
}

static int
on_lost(struct recorder *r, const struct rec_event *e, uint64_t ts)
{
	uint64_t n;

	if (rec_lost_parse(e->data, e->len, &n) < 0) {
		r->st.bad_records++;
		return 0;
	}
	r->st.lost += n;
	r->gap = n > 0;
	return rec_write_lost(r, ts, n);
}

static int
on_retire(struct recorder *r, const struct rec_event *e)
{
	struct rec_proc *p;
	struct retire rt;

	if (e->len != sizeof(rt))
		return 0;
	memcpy(&rt, e->data, sizeof(rt));
	p = rec_ptab_get(&r->procs, rt.pid);
	/* Only the generation that was found dead. */
	if (!p || !p->retiring || p->start_time != rt.start_time)
		return 0;
	return rec_retire(r, rt.pid, e->ts);
}

int
rec_handle(struct recorder *r, const struct rec_event *e)
{
	const struct perf_event_header *h = (const void *)e->data;

	if (e->kind == KIND_RETIRE)
		return on_retire(r, e);
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(r, e);
	case PERF_RECORD_MMAP2:
		return on_mmap2(r, e, e->ts);
	case PERF_RECORD_COMM:
		return on_comm(r, e, e->ts);
	case PERF_RECORD_FORK:
		return on_fork(r, e, e->ts);
	case PERF_RECORD_EXIT:
		return on_exit_record(r, e, e->ts);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return on_lost(r, e, e->ts);
	case PERF_RECORD_THROTTLE:
		r->st.throttles++;
		return 0;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return on_switch(r, e);
	default:
		return 0;
	}
}
