/*
 * recorder.c: the recorder's life (rec_recorder_new, rec_recorder_free), its
 * drain loop (rings -> event sorter -> handlers), the end of a recording and
 * the test seams (recorder.h).
 *
 * The recorder is owned in parts, and this is the one file that sees
 * them all: the output (spoolout.h), the tracked processes and modules
 * (tracking.h), the handlers and what they own (handlers.h), the
 * sampling events, the sorter and the stacker.  Every other file gets
 * only the parts it uses.
 */
#include <asm/perf_regs.h>
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "sp-record/sys/clock.h"
#include "sp-record/files/filepin.h"
#include "sp-record/handlers.h"
#include "sp-record/python/reader.h"
#include "sp-record/python/pybpf.h"
#include "sp-record/ptrace_run.h"
#include "sp-record/recorder.h"
#include "sp-record/perf/sorter.h"
#include "sp-record/out/spoolout.h"
#include "sp-record/start.h"
#include "sp-record/statsrec.h"
#include "sp-record/sys/stopreq.h"
#include "sp-record/summary.h"
#include "sp-record/tracking.h"
#include "common/pyruntime.h"
#include "common/banned.h"

#define HOUSEKEEPING_NS 100000000ULL /* liveness checks and flushes */
/*
 * While stacks deeper than the copy come (read on from the process,
 * deepstack.h), the rings are read every few milliseconds, so that the
 * stack is read close to its sample: until 50 ms after the last one (a
 * deep program's come without pause; a build's a few a second).  Waking
 * for every few samples instead cost a build 14% of the recorder's CPU.
 * So are they while Python stacks are read at the sample (pybpf.h): a
 * code object seen first is named from the process when its sample is
 * handled, and a module's body, run once, is soon freed (at 10 ms
 * python3.11's stacks in t1043 were 6.6-6.9% inconsistent, at 3 ms
 * 2.4-2.8%, and a thread's samples with a script leaf fell below 95%).
 */
#define QUICK_POLL_MS 3
#define DEEP_QUICK_NS 50000000ULL

struct rec_recorder {
	struct rec_config cfg;
	struct rec_events ev;
	struct rec_perfrec_layout layout;
	struct rec_sorter *sorter;
	struct rec_stack stk;
	struct rec_stats st;
	struct rec_spoolout *out;
	struct rec_tracking *trk;
	struct rec_handlers h;
	struct rec_reader *py;      /* Python stacks, or NULL */
	struct rec_capture *cap;    /* module files kept, or NULL */
	struct rec_filepin *pins;   /* module files held open, lent to all */
	struct rec_pybpf *pybpf;    /* Python stacks read at the sample */
	struct rec_deepbpf *deep;   /* deep stacks copied at the sample */
	struct sp_buf py_late;      /* ... or why not */
	bool pybpf_later;           /* loaded at the first CPython process */
	struct rec_ptrace_run *ptd; /* --ptrace sampler, or NULL */
	struct pollfd *pfd;
	bool *hup; /* ring fd reported POLLHUP */
	bool stopped;
	/*
	 * -p or -t: some tracked threads were not born under the events
	 * (those -t left out, threads of an attached process listed
	 * before its events opened), so their exits may never come.
	 */
	bool attached;
	pid_t child;
	bool child_reaped;
	int child_status;
	uint64_t last_check_ns;
	uint64_t last_flush_ns;
	uint64_t deep_seen; /* rec_stack_deep_samples() at the last step */
	uint64_t
	    deep_until_ns; /* polls are short until then (rec_recorder_step) */
};

/*
 * Has the Python reader run at each sample: through the deep stacks'
 * program, which every event already has (threads made before now
 * included), else attached to the events itself.
 */
static void
attach_python(struct rec_recorder *r)
{
	if (!r->deep ||
	    rec_deepbpf_set_next(r->deep, rec_pybpf_prog_fd(r->pybpf)) < 0)
		rec_events_attach_bpf(&r->ev, rec_pybpf_prog_fd(r->pybpf));
}

/* Sets up the parts that write nothing yet; returns 0 or -errno. */
static int
setup(struct rec_recorder *r)
{
	const struct rec_config *cfg = &r->cfg;
	int rc;

	r->pins = rec_filepin_new();
	if (!r->pins)
		return -ENOMEM;
	/*
	 * Stacks read by the kernel at the sample need no wakeup each,
	 * unless perf trampolines' code must be read before the process
	 * ends.  Loading the program costs about 13 ms of CPU: a target
	 * not known to be Python has it loaded only once a CPython
	 * process is found in it (python_found).
	 */
	if (!cfg->no_python && !cfg->ptrace && !cfg->no_bpf &&
	    cfg->ev.wake_each) {
		r->pybpf = rec_pybpf_open(&r->py_late);
		if (r->pybpf && !cfg->py_trampolines)
			r->cfg.ev.wake_each = false;
		else if (!r->pybpf)
			sp_buf_addc(&r->py_late, 0);
	} else if (!cfg->no_python && !cfg->ptrace && !cfg->no_bpf) {
		r->pybpf_later = true;
	}
	/* Quietly without: reads past the copy are then as they were. */
	if (!cfg->ptrace && !cfg->no_bpf && cfg->callgraph == REC_CG_DWARF &&
	    cfg->stack_read > 0) {
		struct sp_buf why = SP_BUF_INIT;

		r->deep = rec_deepbpf_open(
		    cfg->ev.stack_size,
		    (uint32_t)(cfg->stack_read < UINT32_MAX ? cfg->stack_read
							    : UINT32_MAX),
		    &why);
		sp_buf_release(&why);
	}
	rc = rec_stack_init(&r->stk, cfg->callgraph, cfg->ev.regs_mask, 0,
			    r->pins);
	if (rc < 0 && cfg->callgraph == REC_CG_DWARF) {
		warnx("DWARF unwinding is not available (%s): recording "
		      "frame-pointer stacks",
		      strerror(-rc));
		r->cfg.callgraph = REC_CG_FP;
		r->cfg.ev.dwarf = false;
		rc = rec_stack_init(&r->stk, REC_CG_FP, 0, 0, r->pins);
	}
	if (rc == 0)
		rc = rec_stack_set_stack_read(&r->stk, cfg->stack_read);
	if (rc == 0)
		rc = rec_events_init(&r->ev, &r->cfg.ev);
	if (rc == 0 && r->deep)
		rec_events_attach_bpf(&r->ev, rec_deepbpf_prog_fd(r->deep));
	if (rc == 0 && r->pybpf)
		attach_python(r);
	if (rc == 0)
		rc = rec_perfrec_layout_init(&r->layout, r->ev.attr.sample_type,
					     r->ev.attr.sample_regs_user);
	r->stk.max_chain = r->ev.attr.sample_max_stack;
	r->stk.kernel = r->ev.kernel_stacks;
	if (rc == 0)
		rc = rec_handlers_init(&r->h, cfg);
	r->sorter = rec_sorter_new();
	r->pfd = calloc((size_t)r->ev.ncpus + 1, sizeof(*r->pfd));
	r->hup = calloc((size_t)r->ev.ncpus + 1, sizeof(*r->hup));
	if (rc == 0 && (!r->sorter || !r->pfd || !r->hup))
		rc = -ENOMEM;
	return rc;
}

/* The spool: its header and host record; returns 0 or -errno. */
static int
open_output(struct rec_recorder *r, int fd)
{
	struct timespec wall;
	uint64_t start_us, interval_us;

	clock_gettime(CLOCK_REALTIME, &wall);
	start_us =
	    (uint64_t)wall.tv_sec * 1000000 + (uint64_t)wall.tv_nsec / 1000;
	interval_us = r->cfg.ev.freq
			  ? (1000000 + r->cfg.ev.freq / 2) / r->cfg.ev.freq
			  : 0;
	r->out = rec_spoolout_new(fd, r->cfg.output_name, start_us, interval_us,
				  r->pins);
	return r->out ? 0 : -errno;
}

/* The parts that write through the output; returns 0 or -errno. */
static int
connect_parts(struct rec_recorder *r)
{
	const struct rec_capture_opts capo = {
		.mode = r->cfg.capture,
		.dir = r->cfg.capture_dir,
		.max_file = r->cfg.capture_max_file,
		.max_total = r->cfg.capture_max_total,
		.max_tree = r->cfg.capture_max_tree,
	};

	r->trk = rec_tracking_new(&r->cfg, r->out, &r->stk);
	if (!r->trk)
		return -errno;
	r->h.trk = r->trk;
	r->h.out = r->out;
	r->h.stk = &r->stk;
	r->h.layout = &r->layout;
	r->h.ev = &r->ev;
	r->h.st = &r->st;
	if (!r->cfg.no_python && !(r->py = rec_reader_new(r->out)))
		return -errno;
	r->h.py = r->py;
	r->h.deep = r->deep;
	if (r->py)
		rec_reader_set_bpf(r->py, r->pybpf);
	rec_tracking_set_pins(r->trk, r->pins);
	r->cap =
	    rec_capture_new(&capo, r->out, rec_tracking_mods(r->trk), r->pins);
	if (!r->cap && r->cfg.capture != REC_CAPTURE_OFF)
		return -errno;
	r->h.cap = r->cap;
	rec_tracking_set_capture(r->trk, r->cap);
	return 0;
}

struct rec_recorder *
rec_recorder_new(const struct rec_config *cfg, int fd)
{
	struct rec_recorder *r = calloc(1, sizeof(*r));
	int rc;

	if (!r) {
		warn("calloc");
		return NULL;
	}
	r->cfg = *cfg;
	rc = setup(r);
	if (rc < 0) {
		warnx("cannot set up the recorder: %s", strerror(-rc));
		rec_recorder_free(r);
		return NULL;
	}
	rc = open_output(r, fd);
	if (rc < 0) {
		warnx("cannot create the spool writer: %s", strerror(-rc));
		rec_recorder_free(r);
		return NULL;
	}
	rc = connect_parts(r);
	if (rc < 0) {
		warnx("cannot set up the recorder: %s", strerror(-rc));
		rec_recorder_free(r);
		return NULL;
	}
	r->last_check_ns = r->last_flush_ns = rec_clock_now_ns();
	return r;
}

void
rec_recorder_free(struct rec_recorder *r)
{
	if (!r)
		return;
	rec_ptrace_run_free(r->ptd);
	rec_events_release(&r->ev);
	rec_tracking_free(r->trk);
	rec_capture_free(r->cap);
	rec_stack_release(&r->stk);
	rec_sorter_free(r->sorter);
	rec_handlers_release(&r->h);
	rec_reader_free(r->py);
	rec_pybpf_free(r->pybpf); /* after the events and the annotator */
	rec_deepbpf_free(r->deep);
	sp_buf_release(&r->py_late);
	rec_spoolout_free(r->out);
	rec_filepin_free(r->pins); /* after every part it was lent to */
	free(r->pfd);
	free(r->hup);
	free(r);
}

/*
 * The first CPython process was found in targets not known to be
 * Python: the BPF program is loaded now, attached to the events open
 * and to be opened, and given the processes attached so far.
 */
static void
python_found(struct rec_recorder *r)
{
	r->pybpf_later = false;
	if (!(r->pybpf = rec_pybpf_open(&r->py_late))) {
		sp_buf_addc(&r->py_late, 0);
		return;
	}
	attach_python(r);
	rec_reader_set_bpf(r->py, r->pybpf);
}

/*
 * What the Python annotator needs of a record as it leaves the ring: a
 * sample of a tracked process has its Python stack read now, the nearer
 * its moment the better; an exec or a process's end drops the reader, a
 * mapping lets a reader read the process's maps again, and a process
 * found without an interpreter is probed again when it maps one.
 */
static int
python_early(struct rec_recorder *r, const struct perf_event_header *h)
{
	struct rec_perfrec_sample s;
	struct rec_perfrec_comm c;
	struct rec_perfrec_task t;
	struct rec_perfrec_mmap2 m;
	int rc;

	if (h->type == PERF_RECORD_SAMPLE) {
		if (rec_perfrec_sample_parse(&r->layout, h, h->size, &s) < 0 ||
		    s.pid == 0 || s.pid > INT32_MAX || s.tid > INT32_MAX ||
		    !rec_proc_tab_get(rec_tracking_procs(r->trk),
				      (int32_t)s.pid))
			return 0;
		rc = rec_reader_read(r->py, (int32_t)s.pid, (int32_t)s.tid,
				     s.time);
		if (r->pybpf_later && rec_reader_stats(r->py)->processes)
			python_found(r);
		return rc;
	}
	if (h->type == PERF_RECORD_COMM &&
	    rec_perfrec_comm_parse(&r->layout, h, h->size, &c) == 0 &&
	    c.is_exec && c.pid <= INT32_MAX)
		rec_reader_exec(r->py, (int32_t)c.pid);
	if (h->type == PERF_RECORD_MMAP2 &&
	    rec_perfrec_mmap2_parse(&r->layout, h, h->size, &m) == 0 &&
	    m.pid <= INT32_MAX) {
		rec_reader_maps_changed(r->py, (int32_t)m.pid);
		if (sp_pyruntime_path(m.path, m.path_len))
			rec_reader_mapped(r->py, (int32_t)m.pid);
	}
	if (h->type == PERF_RECORD_EXIT &&
	    rec_perfrec_task_parse(h, h->size, &t) == 0 && t.pid == t.tid &&
	    t.pid <= INT32_MAX)
		rec_reader_forget(r->py, (int32_t)t.pid);
	return 0;
}

/*
 * An executable file mapping has its file pinned as it leaves the ring,
 * while its process most likely still lives: one that ends before the
 * mapping is handled would take its files with it (filepin.h).
 */
static void
pin_early(struct rec_recorder *r, const struct perf_event_header *h)
{
	struct rec_filepin_map pm;
	struct rec_perfrec_mmap2 m;

	if (rec_perfrec_mmap2_parse(&r->layout, h, h->size, &m) < 0 ||
	    m.pid == 0 || m.pid > INT32_MAX || m.has_build_id ||
	    m.addr + m.len < m.addr)
		return;
	pm = (struct rec_filepin_map){ (int32_t)m.pid, m.addr, m.addr + m.len,
				       m.maj,          m.min,  m.ino,
				       m.path };
	rec_filepin_mapped(r->pins, &pm);
}

/*
 * The bytes above a sample's full stack copy (the stack goes on) that the
 * BPF program copied at the same instant (deepbpf.h), and their number;
 * NULL when there are none.
 */
static const uint8_t *
deep_copy_of(struct rec_recorder *r, const struct rec_perfrec_sample *s,
	     size_t *len)
{
	uint64_t sp;

	if (!r->deep || !s->stack_field ||
	    s->stack_len != r->cfg.ev.stack_size || s->tid > INT32_MAX ||
	    !rec_perfrec_regs_value(s->regs, r->layout.regs_mask,
				    PERF_REG_X86_SP, &sp))
		return NULL;
	return rec_deepbpf_take(r->deep, (int32_t)s->tid, s->time, sp, len);
}

/*
 * Queues one ring record.  A sample's stack copy is cut to the bytes the
 * kernel filled (dyn_size) as it is copied out of the ring, straight into
 * the sorter's event: one copy of what is used, not of the whole
 * --stack-size the ring holds; a full one is followed by BPF's copy of
 * what lies above it, if there is one.
 */
static int
queue_record(struct rec_recorder *r, const struct perf_event_header *h)
{
	const uint8_t *more = NULL;
	struct rec_perfrec_sample s;
	struct rec_sorter_event *e;
	size_t n, more_len = 0;
	uint64_t ts;

	if (rec_perfrec_time_of(&r->layout, h, h->size, &ts) < 0)
		r->st.bad_records++;
	if (r->py && python_early(r, h) < 0)
		return rec_spoolout_error(r->out);
	if (h->type == PERF_RECORD_MMAP2)
		pin_early(r, h);
	n = h->type == PERF_RECORD_SAMPLE
		? rec_perfrec_sample_compact_size(&r->layout, h, h->size, &s)
		: 0;
	/* a full copy (nothing to cut) may go on in one made by BPF */
	if (n == 0 && h->type == PERF_RECORD_SAMPLE &&
	    (more = deep_copy_of(r, &s, &more_len)))
		n = rec_perfrec_sample_extended_size(&s, more_len);
	if (!(e = rec_sorter_reserve(r->sorter, n ? n : h->size)))
		return -ENOMEM;
	if (more)
		rec_perfrec_sample_extend_write(h, &s, more, more_len, e->data);
	else if (n)
		rec_perfrec_sample_compact_write(h, &s, n, e->data);
	else
		memcpy(e->data, h, h->size);
	return rec_sorter_queue(r->sorter, e, ts, REC_KIND_PERF,
				n ? n : h->size);
}

/* Reads every ring once, queueing its records: one sorter round. */
static int
drain_rings(struct rec_recorder *r)
{
	const struct perf_event_header *h;
	struct rec_ring *ring;
	int c, rc;

	/* Stacks read at samples precede them: taken before the rings. */
	if (r->pybpf && rec_pybpf_consume(r->pybpf) < 0)
		r->st.bad_records++;
	if (r->deep && rec_deepbpf_consume(r->deep) < 0)
		r->st.bad_records++;
	for (c = 0; c < r->ev.ncpus; c++) {
		ring = &r->ev.rings[c];
		if (ring->fd < 0)
			continue;
		rec_ring_begin(ring);
		while ((rc = rec_ring_next(ring, &h)) == 1) {
			if ((rc = queue_record(r, h)) < 0) {
				rec_ring_end(ring);
				return rec_spoolout_wr(r->out, rc);
			}
		}
		if (rc < 0)
			r->st.bad_records++;
		rec_ring_end(ring);
	}
	rec_sorter_end_round(r->sorter);
	return 0;
}

/* Handles the ready events (all of them with `force`). */
static int
process_ready(struct rec_recorder *r, bool force)
{
	struct rec_sorter_event *e;

	while (!rec_spoolout_error(r->out) &&
	       (e = rec_sorter_pop(r->sorter, force))) {
		rec_handlers_handle(&r->h, e);
		rec_sorter_release(r->sorter, e);
	}
	return rec_spoolout_error(r->out);
}

/*
 * Queues the retirement of a process found dead, after earlier events.
 * Its time is taken now, after /proc showed it dead: the process may have
 * exited after the check began, and its exit record (stamped before it
 * became a zombie) must sort before the forget.
 */
static bool
queue_retire(const struct rec_proc *p, void *arg)
{
	struct rec_recorder *r = arg;
	struct rec_handlers_retire rt = { p->pid, 0, p->start_time };

	return rec_sorter_push(r->sorter, rec_clock_now_ns(), REC_KIND_RETIRE,
			       &rt, sizeof(rt)) == 0;
}

int
rec_recorder_step(struct rec_recorder *r, int timeout_ms)
{
	int c, n = 0, rc;
	uint64_t now;

	if (rec_spoolout_error(r->out))
		return rec_spoolout_error(r->out);
	for (c = 0; c < r->ev.ncpus; c++) {
		if (r->ev.rings[c].fd < 0 || r->hup[c])
			continue;
		r->pfd[n].fd = r->ev.rings[c].fd;
		r->pfd[n].events = POLLIN;
		r->pfd[n].revents = 0;
		n++;
	}
	if ((r->pybpf || rec_clock_now_ns() < r->deep_until_ns) &&
	    timeout_ms > QUICK_POLL_MS)
		timeout_ms = QUICK_POLL_MS;
	rec_stopreq_doing("waiting for samples");
	rc = poll(r->pfd, (nfds_t)n, timeout_ms);
	/* A ring whose events all ended reports POLLHUP forever: stop
	 * polling it (it is still drained) so the loop does not spin. */
	for (c = 0; rc > 0 && c < n; c++)
		if (r->pfd[c].revents & (POLLHUP | POLLERR)) {
			int k;

			for (k = 0; k < r->ev.ncpus; k++)
				if (r->ev.rings[k].fd == r->pfd[c].fd)
					r->hup[k] = true;
		}
	rec_stopreq_doing("reading the rings");
	drain_rings(r);
	rec_stopreq_doing("handling samples");
	process_ready(r, false);
	rec_recorder_reap(r, false, NULL);
	now = rec_clock_now_ns();
	if (rec_stack_deep_samples(&r->stk) != r->deep_seen) {
		r->deep_seen = rec_stack_deep_samples(&r->stk);
		r->deep_until_ns = now + DEEP_QUICK_NS;
	}
	/* -a retires processes at their last thread's exit record: the
	 * /proc check over every process is only a safety net there. */
	if (now - r->last_check_ns >=
	    (r->cfg.system_wide ? 20 : 1) * HOUSEKEEPING_NS) {
		r->last_check_ns = now;
		rec_stopreq_doing("checking the processes");
		rec_tracking_check_processes(r->trk, !r->h.gap && !r->attached,
					     queue_retire, r);
		if (r->h.gap && r->cfg.follow)
			r->st.adopted +=
			    rec_tracking_adopt_children(r->trk, now);
		r->h.gap = false;
	}
	if (!rec_spoolout_error(r->out) &&
	    now - r->last_flush_ns >= HOUSEKEEPING_NS) {
		r->last_flush_ns = now;
		rec_stopreq_doing("writing the spool");
		rec_spoolout_flush(r->out);
		rec_stopreq_doing("capturing module files");
		rec_capture_tick(r->cap, now);
	}
	rec_stopreq_doing(NULL);
	return rec_spoolout_error(r->out);
}

bool
rec_recorder_targets_gone(struct rec_recorder *r)
{
	if (r->cfg.system_wide) /* until -d, a signal, or its command */
		return r->child > 0 && r->child_reaped;
	return rec_tracking_procs(r->trk)->nprocs == 0 &&
	       (r->child <= 0 || r->child_reaped);
}

int
rec_recorder_failed(const struct rec_recorder *r)
{
	return rec_spoolout_error(r->out);
}

pid_t
rec_recorder_child(const struct rec_recorder *r)
{
	return r->child_reaped ? 0 : r->child;
}

bool
rec_recorder_reap(struct rec_recorder *r, bool block, int *status)
{
	int st;
	pid_t rc;

	if (r->child <= 0)
		return false;
	if (!r->child_reaped) {
		do
			rc = waitpid(r->child, &st, block ? 0 : WNOHANG);
		while (rc < 0 && errno == EINTR && block);
		if (rc == r->child) {
			r->child_reaped = true;
			r->child_status = st;
		}
	}
	if (r->child_reaped && status)
		*status = r->child_status;
	return r->child_reaped;
}

/* The parts the summary, the status line and the stats record read. */
static struct rec_summary
report(const struct rec_recorder *r)
{
	struct rec_summary rp = {
		&r->cfg,
		&r->ev,
		&r->st,
		&r->stk,
		rec_tracking_procs_const(r->trk),
		rec_tracking_nmodules(r->trk),
		r->out,
		r->ptd ? rec_ptrace_run_summary(r->ptd) : NULL,
		r->h.offcpu_short,
		r->py,
		r->py_late.len ? (const char *)r->py_late.data : "",
		r->cap ? rec_capture_stats(r->cap) : NULL,
		rec_filepin_stats(r->pins),
		r->deep ? rec_deepbpf_stats(r->deep) : NULL,
		r->pybpf ? rec_pybpf_stats(r->pybpf) : NULL,
	};

	return rp;
}

/* What rec_recorder_stop() returns: a reader that went away is no error. */
static int
stop_status(const struct rec_recorder *r)
{
	return rec_spoolout_reader_gone(r->out, NULL)
		   ? 0
		   : rec_spoolout_error(r->out);
}

int
rec_recorder_stop(struct rec_recorder *r)
{
	uint64_t counted;
	int c;

	if (r->stopped)
		return stop_status(r);
	r->stopped = true;
	rec_events_disable(&r->ev);
	if (!rec_spoolout_error(r->out)) {
		drain_rings(r);
		process_ready(r, true);
	}
	/* Threads still waiting have waited until now. */
	if (!rec_spoolout_error(r->out))
		rec_handlers_offcpu_flush(&r->h, rec_clock_now_ns());
	rec_capture_finish(r->cap);
	for (c = 0; c < r->ev.ncpus; c++)
		r->st.wrapped += r->ev.rings[c].wrapped;
	/* The per-event counters also see losses no LOST record told. */
	if (rec_events_lost(&r->ev, &counted) && counted > r->st.lost &&
	    !rec_spoolout_error(r->out)) {
		rec_spoolout_lost(r->out, rec_clock_now_ns(),
				  counted - r->st.lost);
		r->st.lost = counted;
	}
	if (!rec_spoolout_error(r->out)) {
		struct rec_summary rp = report(r);

		rec_statsrec_write(r->out, &rp);
	}
	rec_spoolout_flush(r->out);
	rec_spoolout_trim(r->out);
	return stop_status(r);
}

/* The parts starting a recording uses. */
static struct rec_start
starter(struct rec_recorder *r)
{
	struct rec_start s = { &r->cfg, &r->ev, &r->stk, r->trk,
			       r->out,  0,      false,   0 };

	return s;
}

/* Takes what a start learnt of the launched command. */
static int
started(struct rec_recorder *r, const struct rec_start *s, int rc)
{
	if (s->child > 0) {
		r->child = s->child;
		r->child_reaped = s->reaped;
		r->child_status = s->status;
	}
	return rc;
}

int
rec_recorder_launch(struct rec_recorder *r, char **argv)
{
	struct rec_start s = starter(r);

	r->h.exits_whole = !r->cfg.ptrace;
	return started(r, &s, rec_start_launch(&s, argv));
}

int
rec_recorder_attach(struct rec_recorder *r, int32_t *pids, size_t n)
{
	struct rec_start s = starter(r);

	r->attached = true;
	return started(r, &s, rec_start_attach(&s, pids, n));
}

int
rec_recorder_system_wide(struct rec_recorder *r, char **argv)
{
	struct rec_start s = starter(r);

	return started(r, &s, rec_start_system_wide(&s, argv));
}

int
rec_recorder_attach_threads(struct rec_recorder *r, const int32_t *tids,
			    size_t n)
{
	struct rec_start s = starter(r);

	r->attached = true;
	return started(r, &s, rec_start_threads(&s, tids, n));
}

int
rec_recorder_ptrace_start(struct rec_recorder *r, char **argv, int32_t pid)
{
	r->ptd = rec_ptrace_run_new(&r->cfg, &r->h);
	if (!r->ptd) {
		warn("cannot set up ptrace sampling");
		return 1;
	}
	r->h.ptrace = true;
	return rec_ptrace_run_start(r->ptd, argv, pid, &r->child);
}

int
rec_recorder_ptrace_run(struct rec_recorder *r, double seconds,
			volatile sig_atomic_t *stop)
{
	int rc = rec_ptrace_run_run(r->ptd, seconds, stop), status;

	if (!r->child_reaped && rec_ptrace_run_child_exited(r->ptd, &status)) {
		r->child_reaped = true;
		r->child_status = status;
	}
	return rc;
}

int
rec_recorder_track(struct rec_recorder *r, int32_t pid)
{
	return rec_tracking_track_process(r->trk, pid, true) ? 0 : -ENOMEM;
}

int
rec_recorder_inject(struct rec_recorder *r, const void *rec, size_t len)
{
	uint64_t ts;

	rec_perfrec_time_of(&r->layout, rec, len, &ts);
	return rec_sorter_push(r->sorter, ts, REC_KIND_PERF, rec, len);
}

int
rec_recorder_handle_queued(struct rec_recorder *r)
{
	return process_ready(r, true);
}

uint64_t
rec_recorder_sample_type(const struct rec_recorder *r)
{
	return r->layout.sample_type;
}

void
rec_recorder_summary(const struct rec_recorder *r, FILE *out, double seconds)
{
	struct rec_summary rp = report(r);

	rec_summary_print(&rp, out, seconds);
}

void
rec_recorder_status_line(const struct rec_recorder *r, FILE *out,
			 double seconds)
{
	struct rec_summary rp = report(r);

	rec_summary_status(&rp, out, seconds);
}

void
rec_recorder_status_clear(FILE *out)
{
	fputs("\r\033[K", out);
	fflush(out);
}
