/*
 * sp-fold: aggregates the record stream of sp-dump/sp-symbolize, or the
 * text of `perf script`, into folded stacks, and writes them as folded
 * lines, a top table, an SVG flame graph, a pprof profile, a speedscope
 * file or perf script text.
 */
#include <err.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/cli.h"
#include "common/heap.h"
#include "sp-fold/argcheck.h"
#include "sp-fold/args.h"
#include "sp-fold/live/live.h"
#include "sp-fold/model/diff.h"
#include "sp-fold/model/foldset.h"
#include "sp-fold/model/profile.h"
#include "sp-fold/opts.h"
#include "sp-fold/read/read_folded.h"
#include "sp-fold/read/read_perfscript.h"
#include "sp-fold/read/read_records.h"
#include "sp-fold/read/sniff.h"
#include "sp-fold/usage.h"
#include "sp-fold/write/write_chart.h"
#include "sp-fold/write/write_folded.h"
#include "sp-fold/write/write_perfscript.h"
#include "sp-fold/write/write_pprof.h"
#include "sp-fold/write/write_pprof_records.h"
#include "sp-fold/write/write_speedscope.h"
#include "sp-fold/write/write_svg.h"
#include "sp-fold/write/write_svg_records.h"
#include "sp-fold/write/write_threads.h"
#include "sp-fold/write/write_top.h"
#include "common/banned.h"

/*
 * Writes `p` with the writer --format (and --diff, --flamechart) picks
 * for the profile of a record stream (`records`) or of folded stacks,
 * each given its own options.  Nothing for perf script text, which is
 * written while the stream is read.  Returns what the writer returns.
 */
static int
write_as(FILE *out, const struct fold_profile *p, const struct fold_opts *o,
	 bool records)
{
	if (o->diff)
		return o->format == FOLD_SVG
			   ? fold_write_diff_svg(out, p, &o->svg)
			   : fold_write_diff_folded(out, p);
	if (records && o->flamechart)
		return fold_write_chart(out, p, &o->name, &o->svg);
	switch (o->format) {
	case FOLD_TOP:
		return fold_write_top(out, p, &o->top);
	case FOLD_SVG:
		return records
			   ? fold_write_svg_records(out, p, &o->name, &o->svg)
			   : fold_write_svg(out, p, &o->svg);
	case FOLD_PPROF:
		return records ? fold_write_pprof_records(out, p, &o->name,
							  &o->count)
			       : fold_write_pprof(out, p, o->name.no_comm);
	case FOLD_SPEEDSCOPE:
		return fold_write_speedscope(out, p, &o->name, &o->count);
	case FOLD_PERF_SCRIPT:
		return 0;
	case FOLD_THREADS:
		return fold_write_threads(out, p, &o->count);
	default:
		return fold_write_folded(out, p);
	}
}

/* Says what went wrong when a writer returned `rc` < 0. */
static void
report(int rc)
{
	if (rc == -EIO)
		warnx("write error");
	else if (rc == -ENOMEM)
		warnx("out of memory");
	else
		warnx("%s", strerror(-rc));
}

/* Writes `p` as `o` says; returns 0, or 1 after the one message. */
static int
write_profile(FILE *out, const struct fold_profile *p,
	      const struct fold_opts *o, bool records)
{
	int rc = write_as(out, p, o, records);

	if (rc < 0)
		report(rc);
	return rc < 0;
}

/*
 * Writes what a record stream's reader read.  The top table and folded
 * lines are of the folded set, made here from the entries.
 */
static int
write_records(FILE *out, const struct fold_profile *read,
	      const struct fold_opts *o)
{
	struct fold_profile p = *read;
	int rc;

	if (o->flamechart ||
	    (o->format != FOLD_FOLDED && o->format != FOLD_TOP))
		return write_profile(out, &p, o, true);
	p.set = fold_set_new();
	rc = p.set ? fold_profile_fold(&p, &o->name, p.set) : -ENOMEM;
	if (rc)
		report(rc);
	else
		rc = write_profile(out, &p, o, true);
	fold_set_free(p.set);
	return rc != 0;
}

/* Unix seconds, with milliseconds when intervals are not whole seconds. */
static int
add_time(struct sp_buf *b, uint64_t ns, uint64_t interval_ns)
{
	unsigned long long s = ns / 1000000000;

	if (interval_ns % 1000000000 == 0)
		return sp_buf_addf(b, "%llu", s);
	return sp_buf_addf(b, "%llu.%03llu", s,
			   (unsigned long long)(ns % 1000000000 / 1000000));
}

/*
 * --interval: writes what the reader aggregated in one interval to the
 * file the -o pattern names for the interval's start ("%t": its Unix
 * time in seconds, "%%": a percent sign).
 */
static int
write_interval(void *ctx, const struct fold_profile *prof)
{
	const struct fold_opts *o = ctx;
	struct sp_buf path = SP_BUF_INIT;
	const char *p;
	FILE *out;
	int rc = 0;

	for (p = o->output; !rc && *p; p++) {
		if (p[0] == '%' && p[1] == 't' && ++p)
			rc = add_time(&path, prof->meta.start_ns,
				      o->interval_ns);
		else if (p[0] == '%' && p[1] == '%' && ++p)
			rc = sp_buf_addc(&path, '%');
		else
			rc = sp_buf_addc(&path, (uint8_t)*p);
	}
	out = rc ? NULL : fopen((char *)path.data, "w");
	if (!out) {
		warn("'%s'", rc ? o->output : (char *)path.data);
		sp_buf_release(&path);
		return 1;
	}
	rc = write_records(out, prof, o);
	if (fclose(out) && !rc) {
		warn("'%s'", (char *)path.data);
		rc = 1;
	}
	sp_buf_release(&path);
	return rc;
}

/*
 * An input without samples still gives a well-formed (empty) output, but
 * says so, as flamegraph.pl's "No stack counts found" does: an empty
 * flame graph otherwise looks like a broken one.
 */
static void
no_samples(const char *name)
{
	warnx("%sno samples: the output is empty", name);
}

/* Reads a record stream and writes it with the writer --format picks. */
static int
fold_records(FILE *in, const char *name, const struct fold_opts *o)
{
	struct fold_perfscript_out ps = { stdout, &o->name, &o->count };
	struct fold_profile p;
	struct fold_reader r;
	int rc;

	if (fold_reader_init(&r, name, o)) {
		warnx("out of memory");
		return 1;
	}
	if (o->format == FOLD_PERF_SCRIPT) {
		r.on_sample = fold_write_perfscript_sample;
		r.ctx = &ps;
	}
	r.keep_ticks = o->format == FOLD_SPEEDSCOPE || o->flamechart;
	if (o->interval_ns) {
		r.on_interval = write_interval;
		r.ctx = (void *)o;
	}
	rc = fold_reader_read(&r, in);
	if (!rc && !r.samples)
		no_samples(name);
	fold_reader_profile(&r, &p);
	if (!rc && o->interval_ns)
		rc = p.nents || p.nticks ? write_interval((void *)o, &p) : 0;
	else if (!rc)
		rc = write_records(stdout, &p, o);
	fold_reader_release(&r);
	return rc;
}

/* Opens an input; `name` gets "'PATH': " (or "" for standard input). */
static FILE *
open_input(const char *path, char **name)
{
	FILE *in = stdin;

	if (path && strcmp(path, "-") && !(in = fopen(path, "r"))) {
		warn("'%s'", path);
		return NULL;
	}
	if ((in != stdin && asprintf(name, "'%s': ", path) < 0) ||
	    (in == stdin && !(*name = strdup("")))) {
		warnx("out of memory");
		exit(1);
	}
	return in;
}

static int
read_text(FILE *in, const char *name, enum fold_input from,
	  const struct fold_opts *o, struct fold_set *set)
{
	return from == FOLD_IN_FOLDED
		   ? fold_read_folded(in, name, &o->name, set)
		   : fold_read_perfscript(in, name, o, set);
}

/*
 * After text input was read into `set` (with `rc`): says when it held no
 * samples (`name` names the one input, or is ""), writes it, frees it.
 */
static int
write_text_set(struct fold_set *set, int rc, const char *name,
	       const struct fold_opts *o)
{
	struct fold_profile p = { .set = set };

	if (!rc && !fold_set_total(set))
		no_samples(name);
	if (!rc)
		rc = write_profile(stdout, &p, o, false);
	fold_set_free(set);
	return rc;
}

/*
 * Reads perf script text or folded stacks from each file (standard input
 * when none) into one set, and writes it.
 */
static int
fold_text(char **paths, int n, enum fold_input from, const struct fold_opts *o)
{
	struct fold_set *set = fold_set_new();
	char *name = NULL;
	FILE *in;
	int i, rc = 0;

	if (!set) {
		warnx("out of memory");
		return 1;
	}
	for (i = 0; !rc && i < (n ? n : 1); i++) {
		free(name);
		name = NULL;
		in = open_input(n ? paths[i] : NULL, &name);
		rc = in ? read_text(in, name, from, o, set) : 1;
		if (in && in != stdin)
			fclose(in);
	}
	/* The last input's name is the input's when there is one. */
	rc = write_text_set(set, rc, n <= 1 && name ? name : "", o);
	free(name);
	return rc;
}

/*
 * The stream to read `in` through and, in *from, what it holds: --from's
 * word, or else told from its first line (folded stacks and perf script
 * text are read as such, as `sp-fold a.folded` means).  NULL after a
 * message; a stream other than `in` is closed first.
 */
static FILE *
told(FILE *in, const char *name, const struct fold_opts *o,
     enum fold_input *from)
{
	struct sp_buf head = SP_BUF_INIT; /* on the stack: an exit below
					     leaves nothing unreachable */
	enum sp_input_kind k;
	FILE *f;

	*from = o->from;
	if (o->from_given || o->live)
		return in;
	k = fold_sniff(in, &head);
	if (k == SP_IN_FOLDED)
		*from = FOLD_IN_FOLDED;
	else if (k == SP_IN_PERF_SCRIPT)
		*from = FOLD_IN_PERF_SCRIPT;
	if (*from != FOLD_IN_RECORDS)
		fold_args_check_text(o, *from);
	else if (o->srcline || o->context)
		fold_usage_error("--srcline and --context read perf script "
				 "text");
	if (!(f = fold_replay(in, &head)))
		warnx("%sout of memory", name);
	return f;
}

/* Folded stacks or perf script text told from one input's first line. */
static int
fold_text_stream(FILE *in, const char *name, enum fold_input from,
		 const struct fold_opts *o)
{
	struct fold_set *set = fold_set_new();

	if (!set) {
		warnx("out of memory");
		return 1;
	}
	return write_text_set(set, read_text(in, name, from, o, set), name, o);
}

/* A record stream is one file: its ids are its own. */
static int
fold_stream(const char *path, const struct fold_opts *o)
{
	char *name = NULL;
	FILE *in = open_input(path, &name), *f;
	enum fold_input from;
	int rc = 1;

	if (!in)
		return 1;
	f = told(in, name, o, &from);
	if (f && from != FOLD_IN_RECORDS)
		rc = fold_text_stream(f, name, from, o);
	else if (f)
		rc = o->live ? fold_live(f, name, o) : fold_records(f, name, o);
	if (f && f != in)
		fclose(f);
	free(name);
	if (in != stdin)
		fclose(in);
	return rc;
}

/* Reads one file of any input kind into `set`. */
static int
read_set(const char *path, enum fold_input from, const struct fold_opts *o,
	 struct fold_set *set)
{
	struct fold_profile p;
	struct fold_reader r;
	char *name = NULL;
	FILE *in = open_input(path, &name), *f;
	int rc = 1;

	if (!in)
		return 1;
	f = from == FOLD_IN_RECORDS ? told(in, name, o, &from) : in;
	if (f && from != FOLD_IN_RECORDS) {
		rc = read_text(f, name, from, o, set);
	} else if (f && fold_reader_init(&r, name, o)) {
		warnx("out of memory");
	} else if (f) {
		rc = fold_reader_read(&r, f);
		fold_reader_profile(&r, &p);
		if (!rc && fold_profile_fold(&p, &o->name, set)) {
			warnx("%sout of memory", name);
			rc = 1;
		}
		fold_reader_release(&r);
	}
	if (f && f != in)
		fclose(f);
	free(name);
	if (in != stdin)
		fclose(in);
	return rc;
}

/* Reads a file for --diff, its hex numbers stripped with --strip-hex. */
static struct fold_set *
diff_side(const char *path, enum fold_input from, const struct fold_opts *o)
{
	struct fold_set *set = fold_set_new(), *stripped;

	if (!set || read_set(path, from, o, set)) {
		if (!set)
			warnx("out of memory");
		fold_set_free(set);
		return NULL;
	}
	if (!o->strip_hex)
		return set;
	stripped = fold_set_strip_hex(set);
	fold_set_free(set);
	if (!stripped)
		warnx("out of memory");
	return stripped;
}

/* --diff BEFORE AFTER: both counts per stack, as folded text or svg. */
static int
fold_diff_files(char **paths, enum fold_input from, const struct fold_opts *o)
{
	struct fold_set *a = diff_side(paths[0], from, o);
	struct fold_set *b = a ? diff_side(paths[1], from, o) : NULL;
	struct fold_diff_line *lines = NULL;
	struct fold_profile p = { 0 };
	int rc = 1;

	if (b && fold_diff(a, b, o->normalize, &lines, &p.ndiff))
		warnx("out of memory");
	else if (b) {
		p.diff = lines;
		rc = write_profile(stdout, &p, o, false);
	}
	free(lines);
	fold_set_free(a);
	fold_set_free(b);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct fold_opts o;
	int first, rc, wrc;

	/* Its model of the stream and the folded lines: a few MiB. */
	sp_heap_tune(8 << 20);
	first = fold_args_parse(argc, argv, &o);
	argc -= first;
	argv += first;
	if (o.output && !o.interval_ns && !freopen(o.output, "w", stdout))
		err(1, "'%s'", o.output);
	if (o.diff)
		rc = fold_diff_files(argv, o.from, &o);
	else if (o.from == FOLD_IN_RECORDS)
		rc = fold_stream(argc ? argv[0] : NULL, &o);
	else
		rc = fold_text(argv, argc, o.from, &o);
	wrc = sp_cli_close_stdout();
	if (wrc) {
		warnx("write error on standard output: %s", strerror(-wrc));
		rc = 1;
	}
	fold_args_release(&o);
	return rc;
}
