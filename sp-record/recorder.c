/*
 * recorder.c: the recorder's life (rec_new, rec_free), its drain
 * loop (rings -> event sorter -> handlers), the end of a recording and
 * the test seams (recorder.h).
 */
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/ext.h"
#include "common/htab.h"
#include "sp-record/recorder_impl.h"
#include "sp-record/spooltrim.h"
#include "common/banned.h"

struct recorder *
rec_new(const struct rec_config *cfg, int fd)
{
	struct recorder *r = calloc(1, sizeof(*r));
	struct timespec wall;
	uint64_t start_us, interval_us;
	int rc;

	if (!r) {
		warn("calloc");
		return NULL;
	}
	r->cfg = *cfg;
	r->out_fd = fd;
	r->out_start = rec_spool_start(fd);
	rc = rec_stacker_init(&r->stk, cfg->callgraph, cfg->ev.regs_mask, 0);
	if (rc < 0 && cfg->callgraph == REC_CG_DWARF) {
		warnx("DWARF unwinding is not available (%s): recording "
		      "frame-pointer stacks",
		      strerror(-rc));
		r->cfg.callgraph = REC_CG_FP;
		r->cfg.ev.dwarf = false;
		rc = rec_stacker_init(&r->stk, REC_CG_FP, 0, 0);
	}
	if (rc == 0)
		rc = rec_events_init(&r->ev, &r->cfg.ev);
	if (rc == 0)
		rc = rec_layout_init(&r->layout, r->ev.attr.sample_type,
				     r->ev.attr.sample_regs_user);
	r->stk.max_chain = r->ev.attr.sample_max_stack;
	r->stk.kernel = r->ev.kernel_stacks;
	if (rc == 0)
		rc = rec_ptab_init(&r->procs);
	r->sorter = rec_sorter_new();
	r->mods = sp_modtab_new();
	r->buildids = rec_buildids_new();
	r->ignored = sp_htab_new();
	if (cfg->off_cpu && !(r->offcpu = rec_offcpu_new()))
		rc = rc ? rc : -ENOMEM;
	r->self = (int32_t)getpid();
	r->frames = calloc(REC_STACK_MAX, sizeof(*r->frames));
	r->pfd = calloc((size_t)r->ev.ncpus + 1, sizeof(*r->pfd));
	r->hup = calloc((size_t)r->ev.ncpus + 1, sizeof(*r->hup));
	if (rc < 0 || !r->sorter || !r->mods || !r->frames || !r->pfd ||
	    !r->hup || !r->buildids || !r->ignored) {
		warnx("cannot set up the recorder: %s",
		      strerror(rc < 0 ? -rc : ENOMEM));
		rec_free(r);
		return NULL;
	}
	clock_gettime(CLOCK_REALTIME, &wall);
	start_us =
	    (uint64_t)wall.tv_sec * 1000000 + (uint64_t)wall.tv_nsec / 1000;
	interval_us =
	    cfg->ev.freq ? (1000000 + cfg->ev.freq / 2) / cfg->ev.freq : 0;
	r->w = sp_spool_writer_new(fd, start_us, interval_us);
	if (!r->w) {
		warn("cannot create the spool writer");
		rec_free(r);
		return NULL;
	}
	rec_write_host(r);
	r->last_check_ns = r->last_flush_ns = rec_now_ns();
	return r;
}

void
rec_free(struct recorder *r)
{
	if (!r)
		return;
	rec_ptracer_free(r->pt);
	rec_events_release(&r->ev);
	rec_stacker_release(&r->stk);
	rec_ptab_release(&r->procs);
	rec_sorter_free(r->sorter);
	sp_spool_writer_free(r->w);
	sp_modtab_free(r->mods);
	rec_buildids_free(r->buildids);
	sp_htab_free(r->ignored);
	rec_offcpu_free(r->offcpu);
	sp_buf_release(&r->ext);
	sp_buf_release(&r->maps);
	sp_buf_release(&r->maps_seen);
	free(r->frames);
	free(r->pfd);
	free(r->hup);
	free(r);
}

/*
 * Queues one ring record.  A sample's stack copy is cut to the bytes the
 * kernel filled (dyn_size) as it is copied out of the ring, straight into
 * the sorter's event: one copy of what is used, not of the whole
 * --stack-size the ring holds.
 */
static int
queue_record(struct recorder *r, const struct perf_event_header *h)
{
	struct rec_sample s;
	struct rec_event *e;
	uint64_t ts;
	size_t n;

	if (rec_record_time(&r->layout, h, h->size, &ts) < 0)
		r->st.bad_records++;
	n = h->type == PERF_RECORD_SAMPLE
		? rec_sample_compact_size(&r->layout, h, h->size, &s)
		: 0;
	if (!(e = rec_sorter_reserve(r->sorter, n ? n : h->size)))
		return -ENOMEM;
	if (n)
		rec_sample_compact_write(h, &s, n, e->data);
	else
		memcpy(e->data, h, h->size);
	return rec_sorter_queue(r->sorter, e, ts, KIND_PERF, n ? n : h->size);
}

/* Reads every ring once, queueing its records: one sorter round. */
static int
drain_rings(struct recorder *r)
{
	const struct perf_event_header *h;
	struct rec_ring *ring;
	int c, rc;

	for (c = 0; c < r->ev.ncpus; c++) {
		ring = &r->ev.rings[c];
		if (ring->fd < 0)
			continue;
		rec_ring_begin(ring);
		while ((rc = rec_ring_next(ring, &h)) == 1) {
			if (queue_record(r, h) < 0) {
				rec_ring_end(ring);
				return rec_wr(r, -ENOMEM);
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
process_ready(struct recorder *r, bool force)
{
	struct rec_event *e;

	while (!r->werr && (e = rec_sorter_pop(r->sorter, force))) {
		rec_handle(r, e);
		rec_sorter_release(r->sorter, e);
	}
	return r->werr;
}

int
rec_step(struct recorder *r, int timeout_ms)
{
	int c, n = 0, rc;
	uint64_t now;

	if (r->werr)
		return r->werr;
	for (c = 0; c < r->ev.ncpus; c++) {
		if (r->ev.rings[c].fd < 0 || r->hup[c])
			continue;
		r->pfd[n].fd = r->ev.rings[c].fd;
		r->pfd[n].events = POLLIN;
		r->pfd[n].revents = 0;
		n++;
	}
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
	drain_rings(r);
	process_ready(r, false);
	rec_reap(r, false, NULL);
	now = rec_now_ns();
	/* -a retires processes at their last thread's exit record: the
	 * /proc check over every process is only a safety net there. */
	if (now - r->last_check_ns >=
	    (r->cfg.system_wide ? 20 : 1) * HOUSEKEEPING_NS) {
		r->last_check_ns = now;
		rec_check_processes(r, now);
		if (r->gap && r->cfg.follow)
			rec_adopt_children(r, now);
		r->gap = false;
	}
	if (!r->werr && now - r->last_flush_ns >= HOUSEKEEPING_NS) {
		r->last_flush_ns = now;
		rec_wr(r, sp_spool_writer_flush(r->w));
	}
	return r->werr;
}

bool
rec_targets_gone(struct recorder *r)
{
	if (r->cfg.system_wide) /* until -d, a signal, or its command */
		return r->child > 0 && r->child_reaped;
	return r->procs.nprocs == 0 && (r->child <= 0 || r->child_reaped);
}

int
rec_failed(const struct recorder *r)
{
	return r->werr;
}

pid_t
rec_child(const struct recorder *r)
{
	return r->child_reaped ? 0 : r->child;
}

bool
rec_reap(struct recorder *r, bool block, int *status)
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

static void
add_counter(const char *key, uint64_t value, void *arg)
{
	struct sp_buf *b = arg;

	sp_ext_counter_encode(b, key, value);
}

static int
write_stats(struct recorder *r)
{
	const struct rec_stats *s = &r->st;
	struct sp_buf *b = &r->ext;
	int rc = 0;

	sp_buf_reset(b);
	rc |= sp_ext_counter_encode(b, "sample_events", s->sample_events);
	rc |= sp_ext_counter_encode(b, "samples", s->samples);
	rc |= sp_ext_counter_encode(b, "lost", s->lost);
	rc |= sp_ext_counter_encode(b, "untracked_samples", s->untracked);
	rc |= sp_ext_counter_encode(b, "idle_samples", s->idle);
	rc |= sp_ext_counter_encode(b, "empty_stacks", s->empty_stacks);
	rc |= sp_ext_counter_encode(b, "stale_exec_samples", s->stale_exec);
	rc |= sp_ext_counter_encode(b, "bad_records", s->bad_records);
	rc |= sp_ext_counter_encode(b, "throttles", s->throttles);
	rc |= sp_ext_counter_encode(b, "truncated_markers",
				    r->stk.stats.truncated);
	rc |= sp_ext_counter_encode(b, "ip_only_stacks", r->stk.stats.ip_only);
	rc |= sp_ext_counter_encode(b, "ignored_user_callchain_frames",
				    r->stk.stats.ignored_user_frames);
	rc |= sp_ext_counter_encode(b, "maps_refreshes", s->maps_refreshes);
	rc |= sp_ext_counter_encode(b, "mmaps", s->mmaps);
	rc |= sp_ext_counter_encode(b, "execs", s->execs);
	rc |= sp_ext_counter_encode(b, "forks", s->forks);
	rc |= sp_ext_counter_encode(b, "adopted_children", s->adopted);
	rc |= sp_ext_counter_encode(b, "processes", r->procs.procs_seen);
	rc |= sp_ext_counter_encode(b, "threads", r->procs.threads_seen);
	rc |= sp_ext_counter_encode(b, "wrapped_records", s->wrapped);
	if (rc)
		return rec_wr(r, -ENOMEM);
	rec_stacker_counters(&r->stk, add_counter, b);
	return rec_write_ext(r, SP_EXT_STATS);
}

/*
 * A write error (a full disk) can leave the spool ending inside a record:
 * cut it back to a record boundary so readers take what was written.
 */
static void
trim_output(struct recorder *r)
{
	int rc = rec_spool_trim(r->out_fd, r->out_start, &r->kept_bytes);

	if (rc < 0)
		warnx("'%s': cannot cut the spool back to its last whole "
		      "record: %s",
		      r->cfg.output_name, strerror(-rc));
	r->trimmed = rc > 0;
}

int
rec_stop(struct recorder *r)
{
	uint64_t counted;
	int c;

	if (r->stopped)
		return r->closed_after_stop ? 0 : r->werr;
	r->stopped = true;
	rec_events_disable(&r->ev);
	if (!r->werr) {
		drain_rings(r);
		process_ready(r, true);
	}
	/* Threads still waiting have waited until now. */
	if (!r->werr)
		rec_offcpu_flush(r, rec_now_ns());
	for (c = 0; c < r->ev.ncpus; c++)
		r->st.wrapped += r->ev.rings[c].wrapped;
	/* The per-event counters also see losses no LOST record told. */
	if (rec_events_lost(&r->ev, &counted) && counted > r->st.lost &&
	    !r->werr) {
		rec_write_lost(r, rec_now_ns(), counted - r->st.lost);
		r->st.lost = counted;
	}
	if (!r->werr)
		write_stats(r);
	if (!r->werr)
		rec_wr(r, sp_spool_writer_flush(r->w));
	if (r->werr && !r->closed_after_stop)
		trim_output(r);
	return r->closed_after_stop ? 0 : r->werr;
}

int
rec_track(struct recorder *r, int32_t pid)
{
	return rec_track_process(r, pid, true) ? 0 : -ENOMEM;
}

int
rec_inject(struct recorder *r, const void *rec, size_t len)
{
	uint64_t ts;

	rec_record_time(&r->layout, rec, len, &ts);
	return rec_sorter_push(r->sorter, ts, KIND_PERF, rec, len);
}

int
rec_handle_queued(struct recorder *r)
{
	return process_ready(r, true);
}

uint64_t
rec_sample_type(const struct recorder *r)
{
	return r->layout.sample_type;
}
