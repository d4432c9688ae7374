/*
 * statsrec.c: the stats record that ends a recording (statsrec.h).  The
 * counters' names are the spool's: sp-fold and the tests read them.
 */
#include <errno.h>

#include "common/ext.h"
#include "sp-record/statsrec.h"
#include "common/banned.h"

static void
add_counter(const char *key, uint64_t value, void *arg)
{
	struct sp_buf *b = arg;

	sp_ext_counter_encode(b, key, value);
}

/* The deep stacks' copies at the sample (deepbpf.h). */
static int
deep_counters(struct sp_buf *b, const struct rec_deepbpf_stats *ds)
{
	int rc = 0;

	rc |= sp_ext_counter_encode(b, "unwind_deep.bpf_copies", ds->copies);
	rc |= sp_ext_counter_encode(b, "unwind_deep.bpf_taken", ds->taken);
	rc |=
	    sp_ext_counter_encode(b, "unwind_deep.bpf_unpaired", ds->unpaired);
	rc |= sp_ext_counter_encode(b, "unwind_deep.bpf_empty", ds->empty);
	rc |= sp_ext_counter_encode(b, "unwind_deep.bpf_bytes", ds->bytes);
	return rc;
}

static int
python_counters(struct sp_buf *b, const struct rec_reader_stats *ps)
{
	int rc = 0;

	rc |= sp_ext_counter_encode(b, "python_stacks", ps->stacks);
	rc |= sp_ext_counter_encode(b, "python_truncated", ps->truncated);
	rc |= sp_ext_counter_encode(b, "python_inconsistent", ps->inconsistent);
	rc |= sp_ext_counter_encode(b, "python_failed_reads", ps->failed);
	if (ps->entering)
		rc |= sp_ext_counter_encode(b, "python_entering_calls",
					    ps->entering);
	if (ps->known_plain)
		rc |= sp_ext_counter_encode(b, "python_known_plain",
					    ps->known_plain);
	if (ps->gave_up)
		rc |= sp_ext_counter_encode(b, "python_gave_up_processes",
					    ps->gave_up);
	if (ps->gave_up_samples)
		rc |= sp_ext_counter_encode(b, "python_gave_up_samples",
					    ps->gave_up_samples);
	rc |= sp_ext_counter_encode(b, "python_maps_rereads", ps->maps_rereads);
	return rc;
}

/* The counters every recording has. */
static int
core_counters(struct sp_buf *b, const struct rec_summary *p)
{
	const struct rec_stats *s = p->st;
	int rc = 0;

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
				    p->stk->stats.truncated);
	rc |= sp_ext_counter_encode(b, "ip_only_stacks", p->stk->stats.ip_only);
	rc |= sp_ext_counter_encode(b, "ignored_user_callchain_frames",
				    p->stk->stats.ignored_user_frames);
	rc |= sp_ext_counter_encode(b, "maps_refreshes", s->maps_refreshes);
	rc |= sp_ext_counter_encode(b, "mmaps", s->mmaps);
	rc |= sp_ext_counter_encode(b, "execs", s->execs);
	rc |= sp_ext_counter_encode(b, "forks", s->forks);
	rc |= sp_ext_counter_encode(b, "adopted_children", s->adopted);
	rc |= sp_ext_counter_encode(b, "processes", p->procs->procs_seen);
	rc |= sp_ext_counter_encode(b, "threads", p->procs->threads_seen);
	rc |= sp_ext_counter_encode(b, "wrapped_records", s->wrapped);
	return rc;
}

/* The module files captured and held open. */
static int
file_counters(struct sp_buf *b, const struct rec_summary *p)
{
	int rc = 0;

	if (p->cap) {
		rc |= sp_ext_counter_encode(b, "capture_files", p->cap->files);
		rc |= sp_ext_counter_encode(b, "capture_bytes", p->cap->bytes);
		rc |= sp_ext_counter_encode(b, "capture_jit_files",
					    p->cap->jit_files);
	}
	rc |= sp_ext_counter_encode(b, "files_pinned", p->pins->pinned);
	rc |= sp_ext_counter_encode(b, "files_pinned_used", p->pins->used);
	rc |= sp_ext_counter_encode(b, "files_not_pinned", p->pins->unopened);
	return rc;
}

/* Python stacks read at the sample (pybpf.h). */
static int
pybpf_counters(struct sp_buf *b, const struct rec_pybpf_stats *ps)
{
	int rc = 0;

	rc |= sp_ext_counter_encode(b, "python_bpf.stacks", ps->stacks);
	rc |= sp_ext_counter_encode(b, "python_bpf.unpaired", ps->unpaired);
	rc |= sp_ext_counter_encode(b, "python_bpf.faults", ps->faults);
	rc |= sp_ext_counter_encode(b, "python_bpf.codes", ps->codes);
	return rc;
}

int
rec_statsrec_write(struct rec_spoolout *out, const struct rec_summary *p)
{
	struct sp_buf *b = rec_spoolout_scratch(out);
	int rc = core_counters(b, p) | file_counters(b, p);

	if (p->deep)
		rc |= deep_counters(b, p->deep);
	if (p->pybpf)
		rc |= pybpf_counters(b, p->pybpf);
	if (rc)
		return rec_spoolout_wr(out, -ENOMEM);
	rec_stack_counters(p->stk, add_counter, b);
	if (p->py && rec_reader_stats(p->py)->processes)
		rc |= python_counters(b, rec_reader_stats(p->py));
	if (rc)
		return rec_spoolout_wr(out, -ENOMEM);
	return rec_spoolout_ext(out, SP_EXT_STATS);
}
