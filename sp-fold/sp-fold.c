/*
 * sp-fold: aggregates the record stream of sp-dump/sp-symbolize, or the
 * text of `perf script`, into folded stacks, and writes them as folded
 * lines, a top table, an SVG flame graph, a pprof profile, a speedscope
 * file or perf script text.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sp-fold/diff.h"
#include "sp-fold/foldedin.h"
#include "sp-fold/foldset.h"
#include "sp-fold/opts.h"
#include "sp-fold/perfscript.h"
#include "sp-fold/pprof_fold.h"
#include "sp-fold/pprof_rec.h"
#include "sp-fold/pscript.h"
#include "sp-fold/speedscope.h"
#include "sp-fold/stream.h"
#include "sp-fold/svg.h"
#include "sp-fold/top.h"
#include "common/banned.h"

enum {
	OPT_ADDRS = 256,
	OPT_DIFF,
	OPT_NEGATE,
	OPT_NORMALIZE,
	OPT_STRIPHEX,
	OPT_ALL,
	OPT_COLORS,
	OPT_COMM,
	OPT_EVENT,
	OPT_EXCLUDE,
	OPT_FROM,
	OPT_INCLUDE,
	OPT_INLINE,
	OPT_INVERTED,
	OPT_JIT,
	OPT_KERNEL,
	OPT_MAXDEPTH,
	OPT_NOCOMM,
	OPT_PID,
	OPT_PNAME,
	OPT_REVERSE,
	OPT_HIDDEN,
	OPT_TID,
	OPT_TIME,
	OPT_TITLE,
	OPT_WEIGHT,
	OPT_WIDTH,
};

static const struct option longopts[] = {
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "event-filter", required_argument, NULL, OPT_EVENT },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "format", required_argument, NULL, 'f' },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "help", no_argument, NULL, 'h' },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "output", required_argument, NULL, 'o' },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "max-depth", required_argument, NULL, OPT_MAXDEPTH },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "no-comm", no_argument, NULL, OPT_NOCOMM },
	{ "normalize", no_argument, NULL, OPT_NORMALIZE },
	{ "pid", optional_argument, NULL, OPT_PID },
	{ "process-name", no_argument, NULL, OPT_PNAME },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "show-hidden", no_argument, NULL, OPT_HIDDEN },
	{ "strip-hex", no_argument, NULL, OPT_STRIPHEX },
	{ "tid", optional_argument, NULL, OPT_TID },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ NULL, 0, NULL, 0 },
};

static const char *const format_names[] = {
	[FOLD_FOLDED] = "folded",
	[FOLD_TOP] = "top",
	[FOLD_SVG] = "svg",
	[FOLD_PPROF] = "pprof",
	[FOLD_SPEEDSCOPE] = "speedscope",
	[FOLD_PERF_SCRIPT] = "perf-script",
};

static void
usage(void)
{
	fputs("usage: sp-fold [-h] [-f folded|top|svg|pprof|speedscope|"
	      "perf-script]\n"
	      "\t[-o FILE] [--from records|perf-script|folded]"
	      " [--pid[=PIDS]] [--tid[=TIDS]]\n"
	      "\t[--process-name] [--no-comm] [--kernel] [--jit] [--inline]"
	      " [--all]\n"
	      "\t[--addrs] [--event-filter EVENT] [--show-hidden]"
	      " [--weight samples|time]\n"
	      "\t[--comm NAME] [--time FROM,TO] [--include REGEX]"
	      " [--exclude REGEX]\n"
	      "\t[--max-depth N] [--title TEXT] [--colors PALETTE]"
	      " [--reverse]\n"
	      "\t[--inverted] [--width PIXELS] [FILE...]\n"
	      "       sp-fold --diff [--normalize] [--strip-hex] [--negate]"
	      " [-f folded|svg]\n"
	      "\t[--from records|perf-script|folded] [options] BEFORE AFTER\n",
	      stderr);
	exit(2);
}

static void
bad_value(const char *opt, const char *val)
{
	warnx("invalid %s value '%s'", opt, val);
	usage();
}

/* What sp-fold reads. */
enum input {
	IN_RECORDS,
	IN_PERF_SCRIPT,
	IN_FOLDED,
};

static enum input
parse_input(const char *s)
{
	if (!strcmp(s, "records"))
		return IN_RECORDS;
	if (!strcmp(s, "perf-script"))
		return IN_PERF_SCRIPT;
	if (!strcmp(s, "folded"))
		return IN_FOLDED;
	bad_value("--from", s);
	return IN_RECORDS;
}

static enum fold_format
parse_format(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(s, format_names[i]))
			return (enum fold_format)i;
	bad_value("--format", s);
	return FOLD_FOLDED;
}

static unsigned long
parse_num(const char *opt, const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > max)
		bad_value(opt, s);
	return v;
}

/* PIDS: comma-separated numbers. */
static void
parse_ids(const char *opt, const char *s, struct fold_ids *ids)
{
	char *copy = strdup(s), *tok, *save = NULL;

	if (!copy)
		bad_value(opt, s);
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (SP_GROW(ids->v, ids->alloc, ids->n + 1))
			bad_value(opt, s);
		ids->v[ids->n++] = (int64_t)parse_num(opt, tok, INT64_MAX);
	}
	free(copy);
	if (!ids->n)
		bad_value(opt, s);
}

static void
parse_time(const char *s, struct fold_opts *o)
{
	char *end;

	o->time_from = strtod(s, &end);
	if (end == s || *end != ',')
		bad_value("--time", s);
	s = end + 1;
	o->time_to = *s ? strtod(s, &end) : 1e300;
	if (*s && (end == s || *end))
		bad_value("--time", s);
	o->has_time = true;
}

static void
parse_regex(const char *opt, const char *s, regex_t *re, bool *has)
{
	char msg[256];
	int rc;

	if (*has)
		regfree(re);
	rc = regcomp(re, s, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		regerror(rc, re, msg, sizeof(msg));
		warnx("%s '%s': %s", opt, s, msg);
		usage();
	}
	*has = true;
}

static void
add_comm(struct fold_opts *o, const char *name)
{
	if (SP_GROW(o->comms, o->acomms, o->ncomms + 1)) {
		warnx("out of memory");
		exit(1);
	}
	o->comms[o->ncomms++] = name;
}

static void
set_option(int c, struct fold_opts *o, enum input *from)
{
	switch (c) {
	case 'f':
		o->format = parse_format(optarg);
		break;
	case 'o':
		o->output = optarg;
		break;
	case OPT_ADDRS:
		o->addrs = true;
		break;
	case OPT_ALL:
		o->kernel = o->jit = o->all = true;
		break;
	case OPT_COLORS:
		if (!fold_svg_palette_ok(optarg))
			bad_value("--colors", optarg);
		o->colors = optarg;
		break;
	case OPT_COMM:
		add_comm(o, optarg);
		break;
	case OPT_DIFF:
		o->diff = true;
		break;
	case OPT_NEGATE:
		o->negate = true;
		break;
	case OPT_NORMALIZE:
		o->normalize = true;
		break;
	case OPT_STRIPHEX:
		o->strip_hex = true;
		break;
	case OPT_EVENT:
		o->event_filter = optarg;
		break;
	case OPT_EXCLUDE:
		parse_regex("--exclude", optarg, &o->exclude, &o->has_exclude);
		break;
	case OPT_FROM:
		*from = parse_input(optarg);
		break;
	case OPT_INCLUDE:
		parse_regex("--include", optarg, &o->include, &o->has_include);
		break;
	case OPT_INLINE:
		o->inl = true;
		break;
	case OPT_INVERTED:
		o->inverted = true;
		break;
	case OPT_JIT:
		o->jit = true;
		break;
	case OPT_KERNEL:
		o->kernel = true;
		break;
	case OPT_MAXDEPTH:
		o->max_depth =
		    (unsigned)parse_num("--max-depth", optarg, 1u << 20);
		break;
	case OPT_NOCOMM:
		o->no_comm = true;
		break;
	case OPT_PID:
		if (optarg)
			parse_ids("--pid", optarg, &o->pids);
		else
			o->pid = true;
		break;
	case OPT_PNAME:
		o->process_name = true;
		break;
	case OPT_REVERSE:
		o->reverse = true;
		break;
	case OPT_HIDDEN:
		o->show_hidden = true;
		break;
	case OPT_TID:
		if (optarg)
			parse_ids("--tid", optarg, &o->tids);
		else
			o->tid = true;
		break;
	case OPT_TIME:
		parse_time(optarg, o);
		break;
	case OPT_TITLE:
		o->title = optarg;
		break;
	case OPT_WEIGHT:
		if (strcmp(optarg, "time") && strcmp(optarg, "samples"))
			bad_value("--weight", optarg);
		o->weight_time = !strcmp(optarg, "time");
		o->weight_samples = !o->weight_time;
		break;
	case OPT_WIDTH:
		o->width = (int)parse_num("--width", optarg, 100000);
		break;
	default:
		usage();
	}
}

static void
usage_error(const char *why)
{
	warnx("%s", why);
	usage();
}

static void
bad_combination(const char *why)
{
	usage_error(why);
}

/* Options that need a record stream are usage errors with text input. */
static void
check_text_options(const struct fold_opts *o, enum input from)
{
	const char *bad = NULL;

	if (o->format == FOLD_SPEEDSCOPE || o->format == FOLD_PERF_SCRIPT)
		bad = format_names[o->format];
	else if (o->pids.n || o->tids.n)
		bad = "--pid=LIST or --tid=LIST";
	else if (o->ncomms)
		bad = "--comm";
	else if (o->has_time)
		bad = "--time";
	else if (o->weight_time)
		bad = "--weight time (perf script samples count their period "
		      "unless --weight samples)";
	else if (o->process_name || o->no_comm || o->show_hidden)
		bad = "--process-name, --no-comm or --show-hidden";
	if (bad) {
		warnx("%s needs a record stream, not %s", bad,
		      from == IN_FOLDED ? "folded stacks" : "perf script");
		usage();
	}
	if (from == IN_FOLDED &&
	    (o->pid || o->tid || o->kernel || o->jit || o->inl || o->addrs ||
	     o->event_filter || o->weight_samples))
		usage_error("folded stacks are folded already: --pid, --tid, "
			    "--kernel, --jit, --inline, --all, --addrs, "
			    "--event-filter and --weight do not apply");
}

/* Writes the aggregated set in the chosen format. */
static int
write_set(struct fold_set *set, const struct fold_opts *o,
	  const struct fold_meta *meta)
{
	switch (o->format) {
	case FOLD_TOP:
		return fold_write_top(stdout, set, o);
	case FOLD_SVG:
		return fold_write_svg(stdout, set, o);
	case FOLD_PPROF:
		return fold_write_pprof(stdout, set, o, meta);
	default:
		return fold_write_folded(stdout, set);
	}
}

/* Writes what the reader aggregated, as --format says. */
static int
write_records(const struct fold_reader *r, const struct fold_opts *o)
{
	struct fold_set *set;
	int rc;

	switch (o->format) {
	case FOLD_PERF_SCRIPT:
		return 0; /* written while reading */
	case FOLD_SPEEDSCOPE:
		return fold_speedscope_write(stdout, r) < 0;
	case FOLD_PPROF:
		return fold_pprof_records(stdout, r) < 0;
	default:
		break;
	}
	set = fold_set_new();
	if (!set) {
		warnx("out of memory");
		return 1;
	}
	rc = fold_reader_fold(r, set) || write_set(set, o, &r->meta);
	fold_set_free(set);
	return rc;
}

/* Reads a record stream and writes it with the writer --format picks. */
static int
fold_records(FILE *in, const char *name, const struct fold_opts *o)
{
	struct fold_reader r;
	int rc;

	if (fold_reader_init(&r, name, o)) {
		warnx("out of memory");
		return 1;
	}
	if (o->format == FOLD_PERF_SCRIPT) {
		r.on_sample = fold_pscript_sample;
		r.ctx = stdout;
	}
	r.keep_ticks = o->format == FOLD_SPEEDSCOPE;
	rc = fold_reader_read(&r, in);
	if (!rc)
		rc = write_records(&r, o);
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
read_text(FILE *in, const char *name, enum input from,
	  const struct fold_opts *o, struct fold_set *set)
{
	return from == IN_FOLDED ? fold_read_folded(in, name, o, set)
				 : fold_perf_script(in, name, o, set);
}

/*
 * Reads perf script text or folded stacks from each file (standard input
 * when none) into one set, and writes it.
 */
static int
fold_text(char **paths, int n, enum input from, const struct fold_opts *o)
{
	struct fold_meta meta = { 0 };
	struct fold_set *set = fold_set_new();
	char *name = NULL;
	FILE *in;
	int i, rc = 0;

	if (!set) {
		warnx("out of memory");
		return 1;
	}
	for (i = 0; !rc && i < (n ? n : 1); i++) {
		in = open_input(n ? paths[i] : NULL, &name);
		rc = in ? read_text(in, name, from, o, set) : 1;
		if (in && in != stdin)
			fclose(in);
		free(name);
		name = NULL;
	}
	if (!rc)
		rc = write_set(set, o, &meta);
	fold_set_free(set);
	return rc;
}

/* A record stream is one file: its ids are its own. */
static int
fold_stream(const char *path, const struct fold_opts *o)
{
	char *name = NULL;
	FILE *in = open_input(path, &name);
	int rc;

	if (!in)
		return 1;
	rc = fold_records(in, name, o);
	free(name);
	if (in != stdin)
		fclose(in);
	return rc;
}

/* Reads one file of any input kind into `set`. */
static int
read_set(const char *path, enum input from, const struct fold_opts *o,
	 struct fold_set *set)
{
	struct fold_reader r;
	char *name = NULL;
	FILE *in = open_input(path, &name);
	int rc;

	if (!in)
		return 1;
	if (from != IN_RECORDS) {
		rc = read_text(in, name, from, o, set);
	} else if (fold_reader_init(&r, name, o)) {
		warnx("out of memory");
		rc = 1;
	} else {
		rc = fold_reader_read(&r, in) || fold_reader_fold(&r, set);
		fold_reader_release(&r);
	}
	free(name);
	if (in != stdin)
		fclose(in);
	return rc;
}

/* Reads a file for --diff, its hex numbers stripped with --strip-hex. */
static struct fold_set *
diff_side(const char *path, enum input from, const struct fold_opts *o)
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
fold_diff_files(char **paths, enum input from, const struct fold_opts *o)
{
	struct fold_set *a = diff_side(paths[0], from, o);
	struct fold_set *b = a ? diff_side(paths[1], from, o) : NULL;
	struct fold_diff_line *lines = NULL;
	size_t n;
	int rc = 1;

	if (b && fold_diff(a, b, o->normalize, &lines, &n))
		warnx("out of memory");
	else if (b && o->format == FOLD_SVG)
		rc = fold_write_svg_diff(stdout, lines, n, o);
	else if (b) {
		fold_write_diff_folded(stdout, lines, n);
		rc = 0;
	}
	free(lines);
	fold_set_free(a);
	fold_set_free(b);
	return rc;
}

static void
opts_release(struct fold_opts *o)
{
	free(o->comms);
	free(o->pids.v);
	free(o->tids.v);
	if (o->has_include)
		regfree(&o->include);
	if (o->has_exclude)
		regfree(&o->exclude);
}

int
main(int argc, char *argv[])
{
	struct fold_opts o = { .format = FOLD_FOLDED };
	enum input from = IN_RECORDS;
	int c, rc;

	while ((c = getopt_long(argc, argv, "f:ho:", longopts, NULL)) != -1)
		set_option(c, &o, &from);
	argc -= optind;
	argv += optind;
	if (o.diff && argc != 2)
		usage_error("--diff takes two files: BEFORE AFTER");
	if (o.diff && o.format != FOLD_FOLDED && o.format != FOLD_SVG)
		usage_error("--diff writes folded stacks or svg");
	if (!o.diff && (o.normalize || o.strip_hex || o.negate))
		usage_error("--normalize, --strip-hex and --negate go with "
			    "--diff");
	if (argc > 1 && from == IN_RECORDS && !o.diff)
		usage_error("one record stream at a time (several files are "
			    "for --from perf-script or folded)");
	if (o.all && from == IN_RECORDS)
		o.inl = true;
	if (from != IN_RECORDS)
		check_text_options(&o, from);
	else if (o.event_filter)
		bad_combination("--event-filter needs --from perf-script");
	if (o.output && !freopen(o.output, "w", stdout))
		err(1, "'%s'", o.output);
	if (o.diff)
		rc = fold_diff_files(argv, from, &o);
	else if (from == IN_RECORDS)
		rc = fold_stream(argc ? argv[0] : NULL, &o);
	else
		rc = fold_text(argv, argc, from, &o);
	if (fflush(stdout) || ferror(stdout)) {
		warn("write error on standard output");
		rc = 1;
	}
	opts_release(&o);
	return rc;
}
