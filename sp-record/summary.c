/*
 * summary.c: the summary sp-record prints on stderr at the end (recorder.h).
 */
#include <inttypes.h>
#include <string.h>

#include "sp-record/recorder_impl.h"
#include "common/banned.h"

/*
 * The unwinder's counters, sorted into summary lines: "unwind.samples"
 * and "unwind.frames" are figures of their own; errors and fallbacks
 * become lists of "kind count", wrapped under 80 columns.
 */
struct unwind_lines {
	uint64_t samples, frames, changed;
	struct sp_buf errors, fallbacks;
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
	else if (!strncmp(key, "unwind_fallback.", 16))
		list_add(&u->fallbacks,
			 "sp-record: frame-pointer steps "
			 "(no CFI): ",
			 key + 16, value);
}

static void
print_unwinding(const struct recorder *r, FILE *out)
{
	struct unwind_lines u = { 0, 0, 0, SP_BUF_INIT, SP_BUF_INIT };

	rec_stacker_counters(&r->stk, sort_counter, &u);
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
	sp_buf_release(&u.errors);
	sp_buf_release(&u.fallbacks);
}

/* "s" unless n is 1, for English plurals. */
static const char *
s_(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* "cpu-clock at 999 Hz, sched:sched_switch every 1 event" */
static void
print_events(const struct recorder *r, FILE *out)
{
	uint64_t period;
	size_t i;

	for (i = 0; i < r->ev.opts.nevents; i++) {
		period = rec_events_period(&r->ev, i);
		fprintf(out, "%s%s", i ? ", " : "", rec_events_name(&r->ev, i));
		if (period)
			fprintf(out, " every %" PRIu64 " event%s", period,
				s_(period));
		else
			fprintf(out, " at %" PRIu64 " Hz", r->ev.opts.freq);
	}
	/* Said here, once, not as a warning on every run of such a VM. */
	if (r->ev.fell_back)
		fputs(" (no hardware cycles here)", out);
}

void
rec_summary(const struct recorder *r, FILE *out, double seconds)
{
	const struct rec_stats *s = &r->st;
	/* After a write error, what reached the output, not what was made. */
	uint64_t bytes = r->werr ? sp_spool_writer_delivered(r->w)
				 : sp_spool_writer_bytes(r->w);
	uint64_t procs = r->procs.procs_seen, threads = r->procs.threads_seen;
	uint64_t dropped =
	    s->untracked + s->idle + s->empty_stacks + s->stale_exec;
	uint32_t nmods = sp_modtab_count(r->mods);

	fprintf(out,
		"sp-record: %" PRIu64 " sample%s in %.2f s from %" PRIu64
		" process%s, %" PRIu64 " thread%s\n",
		s->samples, s_(s->samples), seconds, procs,
		procs == 1 ? "" : "es", threads, s_(threads));
	fputs("sp-record: ", out);
	if (r->pt)
		fprintf(out, "ptrace at %" PRIu64 " Hz", r->cfg.ev.freq);
	else
		print_events(r, out);
	fprintf(out, ", %s stacks%s\n",
		r->cfg.callgraph == REC_CG_DWARF ? "dwarf" : "frame-pointer",
		r->ev.kernel_stacks ? " with kernel frames" : "");
	if (r->offcpu_short)
		fprintf(out,
			"sp-record: %" PRIu64 " wait%s under --off-cpu-min "
			"left out\n",
			r->offcpu_short, s_(r->offcpu_short));
	fprintf(out, "sp-record: lost %" PRIu64 " event%s", s->lost,
		s_(s->lost));
	if (s->bad_records)
		fprintf(out, ", %" PRIu64 " undecodable record%s",
			s->bad_records, s_(s->bad_records));
	fputc('\n', out);
	if (s->lost && !r->pt)
		fprintf(
		    out,
		    "sp-record: the kernel dropped them when a %zu KiB "
		    "ring filled before sp-record read it: use larger rings "
		    "(-m), a lower rate (-F) or a smaller --stack-size\n",
		    r->ev.opts.pages * (size_t)sysconf(_SC_PAGESIZE) / 1024);
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
	fprintf(out,
		"sp-record: %" PRIu64 " exec%s, %" PRIu64 " fork%s, %" PRIu64
		" exited, %u module%s, %" PRIu64 " maps refresh%s, %" PRIu64
		" truncated stack%s\n",
		s->execs, s_(s->execs), s->forks, s_(s->forks),
		r->procs.procs_exited, nmods, s_(nmods), s->maps_refreshes,
		s->maps_refreshes == 1 ? "" : "es", r->stk.stats.truncated,
		s_(r->stk.stats.truncated));
	print_unwinding(r, out);
	if (r->pt)
		fprintf(out,
			"sp-record: ptrace pauses: median %.0f us, p99 "
			"%.0f us, max %.0f us; %" PRIu64 " stack read%s "
			"failed\n",
			(double)r->ptsum.pause_median_ns / 1e3,
			(double)r->ptsum.pause_p99_ns / 1e3,
			(double)r->ptsum.pause_max_ns / 1e3,
			r->ptsum.stack_read_errors,
			s_(r->ptsum.stack_read_errors));
	if (r->trimmed) {
		fprintf(out,
			"sp-record: kept %" PRIu64 " bytes of '%s', up to "
			"the last whole record before the write error\n",
			r->kept_bytes, r->cfg.output_name);
		return;
	}
	if (r->closed_after_stop) {
		fprintf(out,
			"sp-record: the output closed after the interrupt (its "
			"reader ended too): %" PRIu64 " bytes reached it, all "
			"but the last tenth of a second; `| tee -i FILE` keeps "
			"everything\n",
			bytes);
		return;
	}
	fprintf(out,
		"sp-record: wrote %" PRIu64 " bytes (%.1f per sample) "
		"to '%s'\n",
		bytes, s->samples ? (double)bytes / (double)s->samples : 0.0,
		r->cfg.output_name);
}

void
rec_status_line(const struct recorder *r, FILE *out, double seconds)
{
	fprintf(out,
		"\r\033[Ksp-record: %.0f s, %" PRIu64 " samples, %" PRIu64
		" process%s, %" PRIu64 " thread%s, lost %" PRIu64,
		seconds, r->st.samples, r->procs.procs_seen,
		r->procs.procs_seen == 1 ? "" : "es", r->procs.threads_seen,
		s_(r->procs.threads_seen), r->st.lost);
	fflush(out);
}

void
rec_status_clear(FILE *out)
{
	fputs("\r\033[K", out);
	fflush(out);
}
