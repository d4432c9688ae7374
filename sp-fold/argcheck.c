/*
 * argcheck.c: the checks of sp-fold's options that go together, made once
 * all are read (argcheck.h): what needs a record stream, what --diff,
 * --interval, --live and --flamechart allow, the format -o's name asks
 * for, and numbers given where files should be.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp-fold/argcheck.h"
#include "sp-fold/outname.h"
#include "sp-fold/usage.h"
#include "common/banned.h"

/* Options that need a record stream are usage errors with text input. */
static void
check_text_options(const struct fold_opts *o, enum fold_input from)
{
	const char *bad = NULL;

	if (o->format == FOLD_SPEEDSCOPE || o->format == FOLD_PERF_SCRIPT ||
	    o->format == FOLD_THREADS)
		bad = fold_format_name(o->format);
	else if (o->pids.n || o->tids.n)
		bad = "--pid=LIST or --tid=LIST";
	else if (o->ncomms)
		bad = "--comm";
	else if (o->has_time)
		bad = "--time";
	else if (o->count.weight_time)
		bad = "--weight time (perf script samples count their period "
		      "unless --weight samples)";
	else if (o->process_name || o->name.no_comm || o->name.show_hidden)
		bad = "--process-name, --no-comm or --show-hidden";
	else if (o->name.interpreter_frames)
		bad = "--interpreter-frames";
	if (bad) {
		warnx("%s needs a record stream, not %s", bad,
		      from == FOLD_IN_FOLDED ? "folded stacks" : "perf script");
		fold_usage_error(NULL);
	}
	if (from == FOLD_IN_FOLDED &&
	    (o->name.pid || o->name.tid || o->name.kernel || o->name.jit ||
	     o->name.inl || o->name.addrs || o->count.event_filter ||
	     o->weight_samples || o->srcline || o->context))
		fold_usage_error(
		    "folded stacks are folded already: --pid, --tid, "
		    "--kernel, --jit, --inline, --context, --all, "
		    "--addrs, --event-filter and --weight do not "
		    "apply");
}

/*
 * --view off-cpu and wall count time: nanoseconds, whatever --weight;
 * they choose their events themselves.
 */
static void
check_view(struct fold_opts *o)
{
	if (o->count.view == FOLD_VIEW_CPU) {
		if (o->count.weight_period && o->from == FOLD_IN_FOLDED)
			fold_usage_error("folded stacks are folded already: "
					 "--weight does not apply");
		return;
	}
	if (o->from != FOLD_IN_RECORDS || o->diff)
		fold_usage_error(
		    "--view off-cpu and wall read a record stream");
	if (o->count.event_filter || o->count.weight_period ||
	    o->weight_samples)
		fold_usage_error(
		    "--view off-cpu and wall count nanoseconds of "
		    "their own events: no --event-filter or --weight");
	o->count.weight_time = true;
}

/*
 * -o's name picks the format unless --format says otherwise (then a
 * name that says another format is worth a warning); pprof, which is
 * binary, is not written to a terminal.
 */
static void
check_output(struct fold_opts *o)
{
	enum fold_format named;

	if (o->output && fold_format_of_name(o->output, &named)) {
		if (!o->format_given)
			o->format = named;
		else if (o->format != named && o->format != FOLD_TOP &&
			 o->format != FOLD_PERF_SCRIPT)
			warnx("warning: writing %s to '%s', whose name says %s",
			      fold_format_name(o->format), o->output,
			      fold_format_name(named));
	}
	if (!o->output && o->format == FOLD_PPROF && isatty(STDOUT_FILENO))
		fold_usage_error(
		    "pprof is binary: not to a terminal (-o x.pb.gz, "
		    "or a pipe)");
}

/* The checks of options that go together, once all are read. */
static void
check_combinations(struct fold_opts *o, int nfiles)
{
	if (o->diff && nfiles != 2)
		fold_usage_error("--diff takes two files: BEFORE AFTER");
	if (o->diff && o->format != FOLD_FOLDED && o->format != FOLD_SVG)
		fold_usage_error("--diff writes folded stacks or svg");
	if (!o->diff && (o->normalize || o->strip_hex || o->svg.negate))
		fold_usage_error(
		    "--normalize, --strip-hex and --negate go with "
		    "--diff");
	if (nfiles > 1 && o->from == FOLD_IN_RECORDS && !o->diff)
		fold_usage_error(
		    "one record stream at a time (several files are "
		    "for --from perf-script or folded)");
	if (o->interval_ns && (!o->output || !strstr(o->output, "%t") ||
			       o->from != FOLD_IN_RECORDS || o->diff ||
			       o->format == FOLD_PERF_SCRIPT))
		fold_usage_error(
		    "--interval reads a record stream and needs -o "
		    "PATTERN with %t (the interval's start), e.g. -o "
		    "prof-%t.pb.gz; not with --diff or perf-script");
	if (o->flamechart &&
	    (o->from != FOLD_IN_RECORDS || o->format != FOLD_SVG || o->diff))
		fold_usage_error(
		    "--flamechart draws a record stream's samples in "
		    "time order: --format svg only, no --from");
	if (o->live && (o->from != FOLD_IN_RECORDS || o->diff ||
			o->interval_ns || o->output || nfiles > 1))
		fold_usage_error(
		    "--live reads one record stream and draws on the "
		    "terminal: not with --from, --diff, --interval or "
		    "-o");
	if (!o->window_ns)
		o->window_ns = 10000000000;
	if (o->all && o->from == FOLD_IN_RECORDS)
		o->name.inl = true;
	if (o->from != FOLD_IN_RECORDS)
		check_text_options(o, o->from);
	else if ((o->srcline || o->context) && o->from_given)
		fold_usage_error("--srcline and --context need --from "
				 "perf-script");
	check_view(o);
}

/*
 * `--pid 17031 x.txt` means --pid (append pids) and two files; when an
 * operand is a number and no file, say how to write the list.
 */
static void
check_operands(const struct fold_opts *o, char **files, int n)
{
	char *msg;
	int i;

	for (i = 0; (o->name.pid || o->name.tid) && i < n; i++) {
		if (strspn(files[i], "0123456789,") != strlen(files[i]) ||
		    access(files[i], F_OK) == 0)
			continue;
		if (asprintf(&msg,
			     "'%s' is no file: to keep only these write "
			     "--%s=%s (--%s alone appends ids to names)",
			     files[i], o->name.tid ? "tid" : "pid", files[i],
			     o->name.tid ? "tid" : "pid") < 0)
			msg = NULL;
		fold_usage_error(msg ? msg : "a number where a file should be");
	}
}

void
fold_args_check_text(const struct fold_opts *o, enum fold_input from)
{
	const char *what =
	    from == FOLD_IN_FOLDED ? "folded stacks" : "perf script output";

	if (o->count.view != FOLD_VIEW_CPU || o->interval_ns || o->flamechart ||
	    o->live) {
		warnx("the input is %s: --view off-cpu or wall, --interval, "
		      "--flamechart and --live read a record stream",
		      what);
		fold_usage_error(NULL);
	}
	check_text_options(o, from);
}

void
fold_args_check(struct fold_opts *o, char **files, int nfiles)
{
	check_operands(o, files, nfiles);
	check_output(o);
	check_combinations(o, nfiles);
}
