/*
 * summary.c: the summary sp-record prints on stderr at the end, and its
 * status line (summary.h).
 */
#include <inttypes.h>
#include <string.h>

#include "sp-record/summary.h"
#include "common/banned.h"

/*
 * The unwinder's counters, sorted into summary lines: "unwind.samples"
 * and "unwind.frames" are figures of their own; errors and fallbacks
 * become lists of "kind count", wrapped under 80 columns.
 */
struct unwind_lines {
	uint64_t samples, frames, changed;
	struct sp_buf errors, fallbacks, deep, go;
};

/*
 * Appends "kind value" to a list line that starts with `head`, going on
 * in a new "sp-record:" line before it would pass 79 columns.
 */
static void
list_add(struct sp_buf *b, const char *head, const char *kind, uint64_t value)
{
	char item[96];
	size_t col = 0;
	int n;

	n = snprintf(item, sizeof(item), "%s %" PRIu64, kind, value);
	if (n < 0)
		return;
	while (col < b->len && b->data[b->len - 1 - col] != '\n')
		col++;
	if (!b->len)
		sp_buf_adds(b, head);
	else if (col + 2 + (size_t)n > 79)
		sp_buf_adds(b, ",\nsp-record:     ");
	else
		sp_buf_adds(b, ", ");
	sp_buf_adds(b, item);
}

static void
sort_counter(const char *key, uint64_t value, void *arg)
{
	struct unwind_lines *u = arg;

	if (!strcmp(key, "unwind.samples"))
		u->samples = value;
	else if (!strcmp(key, "unwind.frames"))
		u->frames = value;
	else if (!strcmp(key, "unwind.changed_files"))
		u->changed = value;
	else if (!strncmp(key, "unwind_error.", 13))
		list_add(&u->errors, "sp-record: unwinding errors: ", key + 13,
			 value);
	else if (!strncmp(key, "unwind_deep.", 12))
		list_add(&u->deep,
			 "sp-record: stacks read past the copy: ", key + 12,
			 value);
	else if (!strncmp(key, "unwind_go.", 10))
		list_add(&u->go, "sp-record: Go stacks: ", key + 10, value);
	else if (!strncmp(key, "unwind_fallback.", 16))
		list_add(&u->fallbacks,
			 "sp-record: frame-pointer steps "
			 "(no CFI): ",
			 key + 16, value);
}

static void
print_unwinding(const struct rec_summary *rp, FILE *out)
{
	struct unwind_lines u = { 0,           0,           0,
				  SP_BUF_INIT, SP_BUF_INIT, SP_BUF_INIT,
				  SP_BUF_INIT };

	rec_stack_counters(rp->stk, sort_counter, &u);
	if (u.samples)
		fprintf(out,
			"sp-record: unwound %" PRIu64 " stack%s, %.1f "
			"frames each\n",
			u.samples, u.samples == 1 ? "" : "s",
			(double)u.frames / (double)u.samples);
	if (u.changed)
		fprintf(out,
			"sp-record: %" PRIu64 " module file%s shrank on disk "
			"while mapped: skipped, stacks stop there\n",
			u.changed, u.changed == 1 ? "" : "s");
	if (u.errors.len)
		fprintf(out, "%.*s\n", (int)u.errors.len,
			(char *)u.errors.data);
	if (u.fallbacks.len)
		fprintf(out, "%.*s\n", (int)u.fallbacks.len,
			(char *)u.fallbacks.data);
	if (u.deep.len)
		fprintf(out, "%.*s\n", (int)u.deep.len, (char *)u.deep.data);
	if (u.go.len)
		fprintf(out, "%.*s\n", (int)u.go.len, (char *)u.go.data);
	sp_buf_release(&u.errors);
	sp_buf_release(&u.fallbacks);
	sp_buf_release(&u.deep);
	sp_buf_release(&u.go);
}

/* "s" unless n is 1, for English plurals. */
static const char *
s_(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* "cpu-clock at 999 Hz, sched:sched_switch every 1 event" */
static void
print_events(const struct rec_events *ev, FILE *out)
{
	uint64_t period;
	size_t i;

	for (i = 0; i < ev->opts.nevents; i++) {
		period = rec_events_period(ev, i);
		fprintf(out, "%s%s", i ? ", " : "", rec_events_name(ev, i));
		if (period)
			fprintf(out, " every %" PRIu64 " event%s", period,
				s_(period));
		else
			fprintf(out, " at %" PRIu64 " Hz", ev->opts.freq);
	}
	/* Said here, once, not as a warning on every run of such a VM. */
	if (ev->fell_back)
		fputs(" (no hardware cycles here)", out);
}

/* The Python stacks read, and why a Python-looking process has none. */
static void
print_python(struct rec_reader *py, const char *late, FILE *out)
{
	const struct rec_reader_stats *ps;
	const char *notes, *nl;

	if (!py)
		return;
	ps = rec_reader_stats(py);
	if (ps->processes)
		fprintf(out,
			"sp-record: Python: %" PRIu64
			" stack%s read from %" PRIu64 " process%s, %" PRIu64
			" truncated, %" PRIu64 " inconsistent (%.1f%%)\n",
			ps->stacks, s_(ps->stacks), ps->processes,
			ps->processes == 1 ? "" : "es", ps->truncated,
			ps->inconsistent,
			ps->stacks ? 100.0 * (double)ps->inconsistent /
					 (double)ps->stacks
				   : 0.0);
	if (ps->processes && ps->at_sample)
		fprintf(out,
			"sp-record: Python: %" PRIu64
			" stack%s read at the sample by BPF\n",
			ps->at_sample, s_(ps->at_sample));
	else if (ps->processes && late && *late)
		fprintf(out,
			"sp-record: Python: stacks read after their sample "
			"(%s)\n",
			late);
	if (ps->gave_up)
		fprintf(out,
			"sp-record: Python: %" PRIu64
			" process%s given up: frame chains kept pointing "
			"outside their memory (%" PRIu64 " sample%s unread)\n",
			ps->gave_up, ps->gave_up == 1 ? "" : "es",
			ps->gave_up_samples, s_(ps->gave_up_samples));
	for (notes = rec_reader_notes(py); (nl = strchr(notes, '\n'));
	     notes = nl + 1)
		fprintf(out, "sp-record: no Python frames: %.*s\n",
			(int)(nl - notes), notes);
}

/* The module files kept by build id, and those that could not be. */
static void
print_capture(const struct rec_capture_stats *c, FILE *out)
{
	struct sp_buf b = SP_BUF_INIT;
	const char *head = "sp-record: module files not kept: ";

	if (!c)
		return;
	if (c->files)
		fprintf(out,
			"sp-record: kept %" PRIu64 " module file%s, %" PRIu64
			" bytes, by build id in '%s'\n",
			c->files, s_(c->files), c->bytes, c->dir);
	if (c->jit_files)
		fprintf(out,
			"sp-record: kept %" PRIu64 " JIT symbol file%s (perf "
			"maps, jitdumps), %" PRIu64 " bytes, in '%s/.jit'\n",
			c->jit_files, s_(c->jit_files), c->jit_bytes, c->dir);
	if (c->pruned)
		fprintf(out,
			"sp-record: removed %" PRIu64 " least recently used "
			"module file%s, %" PRIu64
			" bytes, to keep the tree within --capture-max-tree\n",
			c->pruned, s_(c->pruned), c->pruned_bytes);
	if (c->too_big)
		list_add(&b, head, "over --capture-max-file", c->too_big);
	if (c->over_total)
		list_add(&b, head, "past --capture-max-total", c->over_total);
	if (c->unreadable)
		list_add(&b, head, "unreadable", c->unreadable);
	if (c->failed)
		list_add(&b, head, "write failed", c->failed);
	if (c->busy)
		list_add(&b, head, "too many held at once", c->busy);
	if (b.len)
		fprintf(out, "%.*s\n", (int)b.len, (char *)b.data);
	sp_buf_release(&b);
}

void
rec_summary_print(const struct rec_summary *rp, FILE *out, double seconds)
{
	const struct rec_stats *s = rp->st;
	/* After a write error, what reached the output, not what was made. */
	uint64_t bytes = rec_spoolout_bytes(rp->out), kept;
	bool at_stop;
	uint64_t procs = rp->procs->procs_seen;
	uint64_t threads = rp->procs->threads_seen;
	uint64_t dropped =
	    s->untracked + s->idle + s->empty_stacks + s->stale_exec;
	uint32_t nmods = rp->nmodules;

	fprintf(out,
		"sp-record: %" PRIu64 " sample%s in %.2f s from %" PRIu64
		" process%s, %" PRIu64 " thread%s\n",
		s->samples, s_(s->samples), seconds, procs,
		procs == 1 ? "" : "es", threads, s_(threads));
	fputs("sp-record: ", out);
	if (rp->ptsum)
		fprintf(out, "ptrace at %" PRIu64 " Hz", rp->cfg->ev.freq);
	else
		print_events(rp->ev, out);
	fprintf(out, ", %s stacks%s\n",
		rp->cfg->callgraph == REC_CG_DWARF ? "dwarf" : "frame-pointer",
		rp->ev->kernel_stacks ? " with kernel frames" : "");
	if (rp->offcpu_short)
		fprintf(out,
			"sp-record: %" PRIu64 " wait%s under --off-cpu-min "
			"left out\n",
			rp->offcpu_short, s_(rp->offcpu_short));
	fprintf(out, "sp-record: lost %" PRIu64 " event%s", s->lost,
		s_(s->lost));
	if (s->bad_records)
		fprintf(out, ", %" PRIu64 " undecodable record%s",
			s->bad_records, s_(s->bad_records));
	fputc('\n', out);
	if (s->lost && !rp->ptsum)
		fprintf(
		    out,
		    "sp-record: the kernel dropped them when a %zu KiB "
		    "ring filled before sp-record read it: use larger rings "
		    "(-m), a lower rate (-F) or a smaller --stack-size\n",
		    rp->ev->opts.pages * (size_t)sysconf(_SC_PAGESIZE) / 1024);
	if (dropped) {
		fprintf(out,
			"sp-record: dropped %" PRIu64 " sample%s: %" PRIu64
			" idle, %" PRIu64 " of other processes, %" PRIu64
			" empty",
			dropped, s_(dropped), s->idle, s->untracked,
			s->empty_stacks);
		if (s->stale_exec)
			fprintf(out, ", %" PRIu64 " inside an exec",
				s->stale_exec);
		fputc('\n', out);
	}
	/* Without -a the events reach only the targets and what they fork. */
	if (s->untracked && !rp->cfg->follow && !rp->cfg->system_wide &&
	    !rp->ptsum)
		fprintf(out,
			"sp-record: -f would have recorded the %" PRIu64
			" sample%s of child processes\n",
			s->untracked, s_(s->untracked));
	fprintf(out,
		"sp-record: %" PRIu64 " exec%s, %" PRIu64 " fork%s, %" PRIu64
		" exited, %u module%s, %" PRIu64 " maps refresh%s, %" PRIu64
		" truncated stack%s\n",
		s->execs, s_(s->execs), s->forks, s_(s->forks),
		rp->procs->procs_exited, nmods, s_(nmods), s->maps_refreshes,
		s->maps_refreshes == 1 ? "" : "es", rp->stk->stats.truncated,
		s_(rp->stk->stats.truncated));
	print_unwinding(rp, out);
	print_python(rp->py, rp->py_late, out);
	print_capture(rp->cap, out);
	if (rp->ptsum)
		fprintf(out,
			"sp-record: ptrace pauses: median %.0f us, p99 "
			"%.0f us, max %.0f us; %" PRIu64 " stack read%s "
			"failed\n",
			(double)rp->ptsum->pause_median_ns / 1e3,
			(double)rp->ptsum->pause_p99_ns / 1e3,
			(double)rp->ptsum->pause_max_ns / 1e3,
			rp->ptsum->stack_read_errors,
			s_(rp->ptsum->stack_read_errors));
	if (rec_spoolout_trimmed(rp->out, &kept)) {
		fprintf(out,
			"sp-record: kept %" PRIu64 " bytes of '%s', up to "
			"the last whole record before the write error\n",
			kept, rp->cfg->output_name);
		return;
	}
	if (rec_spoolout_reader_gone(rp->out, &at_stop) && at_stop) {
		fprintf(out,
			"sp-record: the output closed after the interrupt (its "
			"reader ended too): %" PRIu64 " bytes reached it, all "
			"but the last tenth of a second; -o FILE keeps "
			"everything\n",
			bytes);
		return;
	}
	if (rec_spoolout_reader_gone(rp->out, NULL)) {
		fprintf(
		    out,
		    "sp-record: the output's reader went away after %" PRIu64
		    " bytes; recording stopped\n",
		    bytes);
		return;
	}
	fprintf(out,
		"sp-record: wrote %" PRIu64 " bytes (%.1f per sample) "
		"to '%s'\n",
		bytes, s->samples ? (double)bytes / (double)s->samples : 0.0,
		rp->cfg->output_name);
}

void
rec_summary_status(const struct rec_summary *rp, FILE *out, double seconds)
{
	fprintf(out,
		"\r\033[Ksp-record: %.0f s, %" PRIu64 " samples, %" PRIu64
		" process%s, %" PRIu64 " thread%s, lost %" PRIu64,
		seconds, rp->st->samples, rp->procs->procs_seen,
		rp->procs->procs_seen == 1 ? "" : "es", rp->procs->threads_seen,
		s_(rp->procs->threads_seen), rp->st->lost);
	fflush(out);
}
