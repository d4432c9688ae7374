/*
 * handlers.c: the handlers that turn perf records (sample, mmap2, comm, fork,
 * exit, lost) into spool records, in time order (recorder.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sp-record/sys/clock.h"
#include "sp-record/handlers.h"
#include "common/banned.h"

#define MISSED_REFRESH_NS 100000000ULL /* maps reads for unwinder misses */

static struct rec_proc_tab *
procs(struct rec_handlers *h)
{
	return rec_tracking_procs(h->trk);
}

static struct sp_modtab *
mods(struct rec_handlers *h)
{
	return rec_tracking_mods(h->trk);
}

int
rec_handlers_init(struct rec_handlers *h, const struct rec_config *cfg)
{
	memset(h, 0, sizeof(*h));
	h->system_wide = cfg->system_wide;
	h->follow = cfg->follow;
	h->off_cpu_min_ns = cfg->off_cpu_min_ns;
	h->frames = calloc(REC_STACK_MAX, sizeof(*h->frames));
	if (cfg->off_cpu)
		h->offcpu = rec_offcpu_new();
	return h->frames && (!cfg->off_cpu || h->offcpu) ? 0 : -ENOMEM;
}

void
rec_handlers_release(struct rec_handlers *h)
{
	rec_offcpu_free(h->offcpu);
	free(h->frames);
	h->offcpu = NULL;
	h->frames = NULL;
}

/*
 * Whether samples carry their event and weight: a recording of several
 * events, or of one event counted at a frequency (its period varies).
 */
static bool
needs_weight(const struct rec_events *ev)
{
	return ev->opts.nevents > 1 ||
	       (!ev->opts.events[0].is_time && !rec_events_period(ev, 0));
}

/* Names a thread first seen in a sample, from /proc. */
static int
ensure_thread(struct rec_handlers *h, struct rec_proc *p, int32_t tid,
	      uint64_t ts)
{
	struct rec_proc_thread *th = rec_proc_tab_thread(procs(h), tid);
	char comm[REC_PROC_COMM_MAX];

	if (th && th->pid == p->pid)
		return 0;
	if (rec_proc_comm(p->pid, tid, comm, sizeof(comm)) < 0)
		comm[0] = '\0';
	if (!rec_proc_tab_add_thread(procs(h), p->pid, tid, comm, strlen(comm)))
		return rec_spoolout_wr(h->out, -ENOMEM);
	if (!comm[0])
		return 0;
	return rec_spoolout_comm(h->out, ts, p->pid, tid, false, comm,
				 strlen(comm));
}

/* Whether `s` may carry the registers of the program `p` replaced. */
static bool
in_exec(const struct rec_proc *p, const struct rec_perfrec_sample *s)
{
	return p->exec_time && s->time >= p->exec_time &&
	       s->time - p->exec_time <= REC_HANDLERS_EXEC_STALE_NS;
}

/*
 * A pc no module covers: the maps may have changed unseen; read them,
 * once a page.  Returns 1 for a sample to drop: one taken inside the
 * exec that replaced the program, whose user registers are still the
 * old program's (the kernel has announced the new one), so that its pc
 * lies in no mapping of the new image; 0 to write it, or an error.
 */
static int
cover_pc(struct rec_handlers *h, struct rec_proc *p,
	 const struct rec_perfrec_sample *s)
{
	struct sp_frame f;
	uint64_t pc;
	int rc;

	if (!rec_stack_sample_user_pc(h->stk, s, &pc))
		return 0;
	sp_modtab_resolve(mods(h), p->pid, pc, SP_FRAME_USER, &f);
	if (f.module_id != SP_NONE)
		return 0;
	/*
	 * Just after an exec the new image's mappings all came before the
	 * sample (the sorter orders them): an uncovered pc is the old
	 * program's, and reading the maps (once per process on a build)
	 * could only find a later mapping there.  Unless records were lost,
	 * or --ptrace, where no mapping is announced.
	 */
	if (h->ptrace || h->gap || !in_exec(p, s)) {
		if (rec_proc_first_uncovered(p, pc)) {
			h->st->maps_refreshes++;
			rc = rec_tracking_snapshot_maps(h->trk, p, s->time);
			if (rc < 0)
				return rc;
			sp_modtab_resolve(mods(h), p->pid, pc, SP_FRAME_USER,
					  &f);
			if (f.module_id != SP_NONE)
				return 0;
		}
		if (!in_exec(p, s))
			return 0;
	}
	h->st->stale_exec++;
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
cover_missed(struct rec_handlers *h, struct rec_proc *p, uint64_t ts)
{
	uint64_t pc, now;
	int rc;

	if (!h->ptrace || !rec_stack_missed_module(h->stk, &pc))
		return 0;
	now = rec_clock_now_ns();
	if (p->missed_refresh_ns &&
	    now - p->missed_refresh_ns < MISSED_REFRESH_NS)
		return 0;
	if (!rec_proc_first_uncovered(p, pc))
		return 0;
	p->missed_refresh_ns = now;
	h->st->maps_refreshes++;
	rc = rec_tracking_snapshot_maps(h->trk, p, ts);
	return rc < 0 ? rc : 1;
}

/*
 * A sample whose stack the unwinder read past its copy and cut (its `n`
 * frames end in the marker): its thread may have more of its stack
 * copied by BPF at its next samples (deepbpf.h).
 */
static void
note_deep(struct rec_handlers *h, const struct rec_perfrec_sample *s, size_t n)
{
	uint64_t lo, hi;

	if (h->deep && s->pid <= INT32_MAX && s->tid <= INT32_MAX && n > 0 &&
	    h->frames[n - 1].mode == SP_FRAME_TRUNCATED &&
	    rec_stack_last_deep(h->stk, &lo, &hi))
		rec_deepbpf_want(h->deep, (int32_t)s->pid, (int32_t)s->tid, lo,
				 hi);
}

/*
 * Unwinds and writes one sample of tracked process `p`.  A sample whose
 * unwinding led to a maps refresh is unwound again (the unwinder's own
 * counters count both passes; the truncation count only the second).
 */
int
rec_handlers_write_sample(struct rec_handlers *h, struct rec_proc *p,
			  const struct rec_perfrec_sample *s)
{
	struct rec_stack_stats before = h->stk->stats;
	size_t n, event = h->ptrace ? 0 : rec_events_index(h->ev, s->id);
	uint32_t stack_id;
	int rc;

	rc = ensure_thread(h, p, (int32_t)s->tid, s->time);
	if (rc == 0)
		rc = cover_pc(h, p, s);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	n = rec_stack_build(h->stk, mods(h), p->pid, s, h->frames);
	note_deep(h, s, n);
	rc = cover_missed(h, p, s->time);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		h->stk->stats = before;
		n = rec_stack_build(h->stk, mods(h), p->pid, s, h->frames);
	}
	if (h->cap)
		rec_capture_frames(h->cap, p->pid, h->frames, n);
	/* --off-cpu: a switch-out's stack waits for its thread to run. */
	if (n > 0 && h->offcpu && event == h->ev->opts.nevents - 1)
		return rec_spoolout_wr(
		    h->out, rec_offcpu_put(h->offcpu, p->pid, s->tid, s->time,
					   rec_evname_wait_state(
					       &h->ev->opts.events[event],
					       s->raw, s->raw_len),
					   h->frames, n));
	/* The Python stack, then the weight, go with a sample that will be
	 * written: one with frames (the ptrace sampler has no event). */
	if (n > 0 && h->py &&
	    (rc = rec_reader_write(h->py, p->pid, (int32_t)s->tid, s->time,
				   h->frames, n)) < 0)
		return rc;
	if (n > 0 && !h->ptrace && needs_weight(h->ev) &&
	    (rc = rec_spoolout_weight(h->out, (uint32_t)event, s->period)) < 0)
		return rc;
	rc = rec_spoolout_wr(h->out,
			     sp_spool_writer_sample(rec_spoolout_writer(h->out),
						    s->time, p->pid, s->tid,
						    h->frames, n, &stack_id));
	if (rc < 0)
		return rc;
	if (stack_id == SP_NONE) {
		h->st->empty_stacks++;
	} else {
		h->st->samples++;
		p->samples++;
	}
	return 0;
}

static int
on_sample(struct rec_handlers *h, const struct rec_sorter_event *e)
{
	struct rec_perfrec_sample s;
	struct rec_proc *p;

	if (rec_perfrec_sample_parse(h->layout, e->data, e->len, &s) < 0) {
		h->st->bad_records++;
		return 0;
	}
	h->st->sample_events++;
	if (s.pid == 0 || s.tid == 0 || s.tid > INT32_MAX) {
		h->st->idle++;
		return 0;
	}
	p = s.pid <= INT32_MAX ? rec_proc_tab_get(procs(h), (int32_t)s.pid)
			       : NULL;
	if (!p && h->system_wide && s.pid <= INT32_MAX)
		p = rec_tracking_adopt_sampled(h->trk, (int32_t)s.pid, s.time);
	if (!p) {
		h->st->untracked++;
		return 0;
	}
	return rec_handlers_write_sample(h, p, &s);
}

static bool
mmap_is_module(const struct rec_perfrec_mmap2 *m)
{
	if (!(m->prot & PROT_EXEC) || m->len == 0)
		return false;
	if (m->path_len > 0 && m->path[0] == '/')
		return true;
	return m->path_len == 6 && !memcmp(m->path, "[vdso]", 6);
}

/* Executable memory without a file: JIT code, Python's trampolines. */
static bool
mmap_is_anon_code(const struct rec_perfrec_mmap2 *m)
{
	return (m->prot & PROT_EXEC) && m->len > 0 &&
	       !(m->path_len > 0 && m->path[0] == '/');
}

static int
on_mmap2(struct rec_handlers *h, const struct rec_sorter_event *e, uint64_t ts)
{
	struct rec_perfrec_mmap2 mm;
	struct sp_module m;
	struct rec_proc *p;
	int rc;

	if (rec_perfrec_mmap2_parse(h->layout, e->data, e->len, &mm) < 0) {
		h->st->bad_records++;
		return 0;
	}
	if (mm.pid > INT32_MAX)
		return 0;
	p = rec_proc_tab_get(procs(h), (int32_t)mm.pid);
	if (!p)
		return 0;
	/* Out of memory, a missing range only ends some stacks early. */
	if (!mmap_is_module(&mm)) {
		if (mmap_is_anon_code(&mm))
			(void)rec_stack_add_code(h->stk, p->pid, mm.addr,
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
	rc = rec_tracking_map_module(h->trk, p, &m, ts);
	if (rc == 0)
		h->st->mmaps++;
	return rc;
}

static int
on_comm(struct rec_handlers *h, const struct rec_sorter_event *e, uint64_t ts)
{
	struct rec_perfrec_comm c;
	struct rec_proc *p;
	int rc;

	if (rec_perfrec_comm_parse(h->layout, e->data, e->len, &c) < 0) {
		h->st->bad_records++;
		return 0;
	}
	if (c.pid > INT32_MAX || c.tid > INT32_MAX)
		return 0;
	p = rec_proc_tab_get(procs(h), (int32_t)c.pid);
	/* -a: a process that execs may have changed users (setpriv, su):
	 * its next sample asks again, and its exec's samples with the old
	 * program's registers are told apart once it is adopted. */
	if (!p && c.is_exec)
		rec_tracking_untracked_exec(h->trk, (int32_t)c.pid, ts);
	if (!p)
		return 0;
	if (c.is_exec) {
		h->st->execs++;
		rc = rec_tracking_exec_epoch(h->trk, p, ts);
		if (rc < 0)
			return rc;
	}
	if (!rec_proc_tab_add_thread(procs(h), p->pid, (int32_t)c.tid, c.name,
				     c.name_len))
		return rec_spoolout_wr(h->out, -ENOMEM);
	return rec_spoolout_comm(h->out, ts, p->pid, (int32_t)c.tid, c.is_exec,
				 c.name, c.name_len);
}

/* Names a new thread after the thread that created it, as the kernel. */
static int
new_thread(struct rec_handlers *h, int32_t pid, int32_t tid, int32_t ptid,
	   uint64_t ts)
{
	struct rec_proc_thread *parent = rec_proc_tab_thread(procs(h), ptid);
	char comm[REC_PROC_COMM_MAX] = "";

	if (parent)
		memcpy(comm, parent->comm, sizeof(comm));
	else if (rec_proc_comm(pid, tid, comm, sizeof(comm)) < 0)
		comm[0] = '\0';
	if (!rec_proc_tab_add_thread(procs(h), pid, tid, comm, strlen(comm)))
		return rec_spoolout_wr(h->out, -ENOMEM);
	if (!comm[0])
		return 0;
	return rec_spoolout_comm(h->out, ts, pid, tid, false, comm,
				 strlen(comm));
}

static int
on_fork(struct rec_handlers *h, const struct rec_sorter_event *e, uint64_t ts)
{
	struct rec_proc *parent, *child;
	struct rec_perfrec_task t;
	int32_t pid, ppid;
	int rc;

	if (rec_perfrec_task_parse(e->data, e->len, &t) < 0) {
		h->st->bad_records++;
		return 0;
	}
	if (t.pid > INT32_MAX || t.ppid > INT32_MAX || t.tid > INT32_MAX ||
	    t.ptid > INT32_MAX)
		return 0;
	pid = (int32_t)t.pid;
	ppid = (int32_t)t.ppid;
	if (pid == ppid) {
		if (t.tid == t.ptid || !rec_proc_tab_get(procs(h), pid))
			return 0;
		return new_thread(h, pid, (int32_t)t.tid, (int32_t)t.ptid, ts);
	}
	parent = rec_proc_tab_get(procs(h), ppid);
	if (!parent && h->system_wide) {
		h->st->forks++;
		if (!rec_proc_tab_get(procs(h), pid) &&
		    !rec_tracking_adopt_forked(h->trk, pid))
			return rec_spoolout_error(h->out);
		return new_thread(h, pid, (int32_t)t.tid, (int32_t)t.ptid, ts);
	}
	if (!parent)
		return 0;
	h->st->forks++;
	if (!h->follow)
		return 0;
	/* Still tracked under this pid: an older process that went away. */
	if (rec_proc_tab_get(procs(h), pid)) {
		rc = rec_tracking_retire(h->trk, pid, ts);
		if (rc < 0)
			return rc;
	}
	child = h->exits_whole ? rec_tracking_track_child(h->trk, pid)
			       : rec_tracking_track_process(h->trk, pid, false);
	if (!child)
		return rec_spoolout_error(h->out);
	parent = rec_proc_tab_get(procs(h), ppid);
	rc = rec_tracking_inherit(h->trk, parent, child, ts);
	if (rc < 0)
		return rc;
	return new_thread(h, pid, (int32_t)t.tid, (int32_t)t.ptid, ts);
}

static int
on_exit_record(struct rec_handlers *h, const struct rec_sorter_event *e,
	       uint64_t ts)
{
	struct rec_proc *p;
	struct rec_perfrec_task t;
	int rc;

	if (rec_perfrec_task_parse(e->data, e->len, &t) < 0) {
		h->st->bad_records++;
		return 0;
	}
	if (t.pid > INT32_MAX || t.tid > INT32_MAX)
		return 0;
	if (t.pid == t.tid)
		rec_tracking_untracked_exit(h->trk, (int32_t)t.pid);
	if (!rec_proc_tab_get(procs(h), (int32_t)t.pid))
		return 0;
	rec_proc_tab_remove_thread(procs(h), (int32_t)t.tid);
	if (h->offcpu)
		free(rec_offcpu_take(h->offcpu, t.tid));
	if (h->deep)
		rec_deepbpf_forget(h->deep, (int32_t)t.pid, (int32_t)t.tid);
	sp_spool_writer_forget_thread(rec_spoolout_writer(h->out),
				      (int32_t)t.pid, t.tid);
	rc = rec_spoolout_exit(h->out, ts, (int32_t)t.pid, (int32_t)t.tid);
	/* -a and a launch see every thread come and go: the last one out
	 * ends the process now, not at the next liveness check. */
	p = rec_proc_tab_get(procs(h), (int32_t)t.pid);
	if (rc == 0 && (h->system_wide || h->exits_whole) && p && !p->threads)
		rc = rec_tracking_retire(h->trk, (int32_t)t.pid, ts);
	return rc;
}

/* Writes a waiting stack with the time its thread spent off the CPU. */
static int
write_wait(struct rec_handlers *h, struct rec_offcpu_wait *w, uint64_t in_ns)
{
	uint64_t ns = in_ns > w->out_ns ? in_ns - w->out_ns : 0;
	uint32_t stack_id;
	int rc = 0;

	if (ns < h->off_cpu_min_ns || ns == 0)
		h->offcpu_short++;
	else if ((!w->state ||
		  (rc = rec_spoolout_wait(h->out, w->state)) == 0) &&
		 (rc = rec_spoolout_weight(
		      h->out, (uint32_t)(h->ev->opts.nevents - 1), ns)) == 0)
		rc = rec_spoolout_wr(
		    h->out, sp_spool_writer_sample(
				rec_spoolout_writer(h->out), w->out_ns, w->pid,
				w->tid, w->frames, w->nframes, &stack_id));
	if (rc == 0 && ns >= h->off_cpu_min_ns && ns)
		h->st->samples++;
	free(w);
	return rc;
}

int
rec_handlers_offcpu_flush(struct rec_handlers *h, uint64_t now)
{
	struct rec_offcpu_wait *w;
	int rc = 0;

	while (h->offcpu && rc == 0 && (w = rec_offcpu_take_any(h->offcpu)))
		rc = write_wait(h, w, now);
	return rc;
}

/* --off-cpu: a thread back on a CPU ends its wait. */
static int
on_switch(struct rec_handlers *h, const struct rec_sorter_event *e)
{
	struct rec_offcpu_wait *w;
	struct rec_perfrec_switch sw;

	if (!h->offcpu)
		return 0;
	if (rec_perfrec_switch_parse(h->layout, e->data, e->len, &sw) < 0) {
		h->st->bad_records++;
		return 0;
	}
	/* The switch-out record follows its sample and says whether the
	 * thread was still runnable (preempted) or went to wait. */
	if (sw.out) {
		if ((w = rec_offcpu_peek(h->offcpu, sw.tid)) && !w->state)
			w->state =
			    sw.preempt ? SP_WAIT_PREEMPTED : SP_WAIT_BLOCKED;
		return 0;
	}
	if (!(w = rec_offcpu_take(h->offcpu, sw.tid)))
		return 0;
	return write_wait(h, w, sw.time);
}

static int
on_lost(struct rec_handlers *h, const struct rec_sorter_event *e, uint64_t ts)
{
	uint64_t n;

	if (rec_perfrec_lost_parse(e->data, e->len, &n) < 0) {
		h->st->bad_records++;
		return 0;
	}
	h->st->lost += n;
	h->gap = n > 0;
	if (n > 0)
		h->exits_whole = false;
	return rec_spoolout_lost(h->out, ts, n);
}

static int
on_retire(struct rec_handlers *h, const struct rec_sorter_event *e)
{
	struct rec_proc *p;
	struct rec_handlers_retire rt;

	if (e->len != sizeof(rt))
		return 0;
	memcpy(&rt, e->data, sizeof(rt));
	p = rec_proc_tab_get(procs(h), rt.pid);
	/* Only the generation that was found dead. */
	if (!p || !p->retiring || p->start_time != rt.start_time)
		return 0;
	return rec_tracking_retire(h->trk, rt.pid, e->ts);
}

int
rec_handlers_handle(struct rec_handlers *h, const struct rec_sorter_event *e)
{
	const struct perf_event_header *hdr = (const void *)e->data;

	if (e->kind == REC_KIND_RETIRE)
		return on_retire(h, e);
	switch (hdr->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(h, e);
	case PERF_RECORD_MMAP2:
		return on_mmap2(h, e, e->ts);
	case PERF_RECORD_COMM:
		return on_comm(h, e, e->ts);
	case PERF_RECORD_FORK:
		return on_fork(h, e, e->ts);
	case PERF_RECORD_EXIT:
		return on_exit_record(h, e, e->ts);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		return on_lost(h, e, e->ts);
	case PERF_RECORD_THROTTLE:
		h->st->throttles++;
		return 0;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return on_switch(h, e);
	default:
		return 0;
	}
}
