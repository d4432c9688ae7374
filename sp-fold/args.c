/*
 * args.c: sp-fold's command line (args.h): the options, their values and
 * which go together.
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/grow.h"
#include "common/version.h"
#include "sp-fold/argcheck.h"
#include "sp-fold/args.h"
#include "sp-fold/usage.h"
#include "sp-fold/write/write_svg_color.h"
#include "common/banned.h"

enum {
	OPT_ADDRS = 256,
	OPT_COUNTNAME,
	OPT_DIFF,
	OPT_FLAMECHART,
	OPT_FONTSIZE,
	OPT_FONTTYPE,
	OPT_HASH,
	OPT_HEIGHT,
	OPT_INTERVAL,
	OPT_LIVE,
	OPT_WINDOW,
	OPT_MINWIDTH,
	OPT_NAMETYPE,
	OPT_SRCLINE,
	OPT_SUBTITLE,
	OPT_VERSION,
	OPT_NEGATE,
	OPT_NORMALIZE,
	OPT_STRIPHEX,
	OPT_ALL,
	OPT_COLORS,
	OPT_COMM,
	OPT_CONTEXT,
	OPT_EVENT,
	OPT_EXCLUDE,
	OPT_FROM,
	OPT_INCLUDE,
	OPT_INLINE,
	OPT_INTERP,
	OPT_INVERTED,
	OPT_JIT,
	OPT_KERNEL,
	OPT_MAXDEPTH,
	OPT_NOCOMM,
	OPT_PID,
	OPT_PNAME,
	OPT_REVERSE,
	OPT_SORT,
	OPT_HIDDEN,
	OPT_TID,
	OPT_TIME,
	OPT_TITLE,
	OPT_VIEW,
	OPT_WAITSTATE,
	OPT_WEIGHT,
	OPT_WIDTH,
};

static const struct option longopts[] = {
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "context", no_argument, NULL, OPT_CONTEXT },
	{ "countname", required_argument, NULL, OPT_COUNTNAME },
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "event-filter", required_argument, NULL, OPT_EVENT },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "fontsize", required_argument, NULL, OPT_FONTSIZE },
	{ "fonttype", required_argument, NULL, OPT_FONTTYPE },
	{ "format", required_argument, NULL, 'f' },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "hash", no_argument, NULL, OPT_HASH },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "interpreter-frames", no_argument, NULL, OPT_INTERP },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "output", required_argument, NULL, 'o' },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "live", no_argument, NULL, OPT_LIVE },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "max-depth", required_argument, NULL, OPT_MAXDEPTH },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "nametype", required_argument, NULL, OPT_NAMETYPE },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "no-comm", no_argument, NULL, OPT_NOCOMM },
	{ "normalize", no_argument, NULL, OPT_NORMALIZE },
	{ "pid", optional_argument, NULL, OPT_PID },
	{ "process-name", no_argument, NULL, OPT_PNAME },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "show-hidden", no_argument, NULL, OPT_HIDDEN },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "srcline", no_argument, NULL, OPT_SRCLINE },
	{ "strip-hex", no_argument, NULL, OPT_STRIPHEX },
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
	{ "tid", optional_argument, NULL, OPT_TID },
	{ "time", required_argument, NULL, OPT_TIME },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "view", required_argument, NULL, OPT_VIEW },
	{ "no-wait-state", no_argument, NULL, OPT_WAITSTATE },
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ NULL, 0, NULL, 0 },
};

static void
bad_value(const char *opt, const char *val)
{
	warnx("invalid %s value '%s'", opt, val);
	fold_usage_error(NULL);
}

/* A value not among an option's words: the message lists them. */
static void
bad_choice(const char *opt, const char *val, const char *choices)
{
	warnx("invalid %s value '%s' (one of: %s)", opt, val, choices);
	fold_usage_error(NULL);
}

static enum fold_input
parse_input(const char *s)
{
	if (!strcmp(s, "records"))
		return FOLD_IN_RECORDS;
	if (!strcmp(s, "perf-script"))
		return FOLD_IN_PERF_SCRIPT;
	if (!strcmp(s, "folded"))
		return FOLD_IN_FOLDED;
	bad_choice("--from", s, "records, perf-script, folded");
	return FOLD_IN_RECORDS;
}

static enum fold_format
parse_format(const char *s)
{
	enum fold_format f;

	if (fold_format_of_word(s, &f))
		return f;
	bad_choice("--format", s,
		   "folded, top, svg, pprof, speedscope, perf-script");
	return FOLD_FOLDED;
}

/* SECONDS for --interval and --window: at least a millisecond. */
static uint64_t
parse_seconds(const char *opt, const char *s)
{
	double v;

	if (sp_cli_real(s, 0.001, 1e6, &v))
		bad_value(opt, s);
	return (uint64_t)(v * 1e9);
}

/* --minwidth PIXELS or PERCENT%, as flamegraph.pl takes it. */
static void
parse_minwidth(const char *s, struct fold_opts *o)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0 || (*end && strcmp(end, "%")))
		bad_value("--minwidth", s);
	if (*end)
		o->svg.minwidth_pct = v;
	else
		o->svg.minwidth = v;
}

static unsigned long
parse_num(const char *opt, const char *s, unsigned long max)
{
	uint64_t v;

	if (sp_cli_uint(s, 0, max, &v))
		bad_value(opt, s);
	return (unsigned long)v;
}

struct id_list {
	const char *opt, *all;
	struct fold_ids *ids;
};

static int
add_id(const char *tok, void *ctx)
{
	struct id_list *l = ctx;
	struct fold_ids *ids = l->ids;

	if (SP_GROW(ids->v, ids->alloc, ids->n + 1))
		bad_value(l->opt, l->all);
	ids->v[ids->n++] = (int64_t)parse_num(l->opt, tok, INT64_MAX);
	return 0;
}

/* PIDS: comma-separated numbers. */
static void
parse_ids(const char *opt, const char *s, struct fold_ids *ids)
{
	struct id_list l = { opt, s, ids };

	if (sp_cli_each(s, ",", add_id, &l) || !ids->n)
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
		fold_usage_error(NULL);
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
set_option(int c, struct fold_opts *o)
{
	switch (c) {
	case 'f':
		o->format = parse_format(optarg);
		o->format_given = true;
		break;
	case 'o':
		o->output = optarg;
		break;
	case 'h':
		fold_help();
		break;
	case OPT_VERSION:
		printf("sp-fold %s\n", sp_version());
		exit(0);
	case OPT_ADDRS:
		o->name.addrs = true;
		break;
	case OPT_ALL:
		o->name.kernel = o->name.jit = o->all = true;
		break;
	case OPT_COLORS:
		if (!fold_svg_palette_ok(optarg))
			bad_choice(
			    "--colors", optarg,
			    "hot, mem, io, wakeup, chain, java, js, perl, "
			    "red, green, blue, aqua, yellow, purple, "
			    "orange");
		o->svg.colors = optarg;
		break;
	case OPT_COMM:
		add_comm(o, optarg);
		break;
	case OPT_DIFF:
		o->diff = true;
		break;
	case OPT_COUNTNAME:
		o->svg.countname = optarg;
		break;
	case OPT_FLAMECHART:
		o->flamechart = true;
		break;
	case OPT_FONTSIZE:
		o->svg.fontsize = (int)parse_num("--fontsize", optarg, 200);
		break;
	case OPT_FONTTYPE:
		o->svg.fonttype = optarg;
		break;
	case OPT_HASH:
		break; /* colors always come from a hash of the name */
	case OPT_INTERVAL:
		o->interval_ns = parse_seconds("--interval", optarg);
		break;
	case OPT_LIVE:
		o->live = true;
		break;
	case OPT_WINDOW:
		o->window_ns = parse_seconds("--window", optarg);
		break;
	case OPT_HEIGHT:
		o->svg.frame_height = (int)parse_num("--height", optarg, 500);
		break;
	case OPT_MINWIDTH:
		parse_minwidth(optarg, o);
		break;
	case OPT_NAMETYPE:
		o->svg.nametype = optarg;
		break;
	case OPT_SRCLINE:
		o->srcline = true;
		break;
	case OPT_SUBTITLE:
		o->svg.subtitle = optarg;
		break;
	case OPT_NEGATE:
		o->svg.negate = true;
		break;
	case OPT_NORMALIZE:
		o->normalize = true;
		break;
	case OPT_STRIPHEX:
		o->strip_hex = true;
		break;
	case OPT_EVENT:
		o->count.event_filter = optarg;
		break;
	case OPT_EXCLUDE:
		parse_regex("--exclude", optarg, &o->name.filter.exclude,
			    &o->name.filter.has_exclude);
		break;
	case OPT_FROM:
		o->from = parse_input(optarg);
		o->from_given = true;
		break;
	case OPT_INCLUDE:
		parse_regex("--include", optarg, &o->name.filter.include,
			    &o->name.filter.has_include);
		break;
	case OPT_INLINE:
		o->name.inl = true;
		break;
	case OPT_CONTEXT:
		o->context = true;
		break;
	case OPT_INVERTED:
		o->svg.inverted = true;
		break;
	case OPT_JIT:
		o->name.jit = true;
		break;
	case OPT_KERNEL:
		o->name.kernel = true;
		break;
	case OPT_MAXDEPTH:
		o->name.filter.max_depth =
		    (unsigned)parse_num("--max-depth", optarg, 1u << 20);
		break;
	case OPT_NOCOMM:
		o->name.no_comm = true;
		break;
	case OPT_PID:
		if (optarg)
			parse_ids("--pid", optarg, &o->pids);
		else
			o->name.pid = true;
		break;
	case OPT_PNAME:
		o->process_name = true;
		break;
	case OPT_REVERSE:
		o->svg.reverse = true;
		break;
	case OPT_SORT:
		if (strcmp(optarg, "self") && strcmp(optarg, "total"))
			bad_choice("--sort", optarg, "self, total");
		o->top.by_total = !strcmp(optarg, "total");
		break;
	case OPT_HIDDEN:
		o->name.show_hidden = true;
		break;
	case OPT_INTERP:
		o->name.interpreter_frames = true;
		break;
	case OPT_TID:
		if (optarg)
			parse_ids("--tid", optarg, &o->tids);
		else
			o->name.tid = true;
		break;
	case OPT_TIME:
		parse_time(optarg, o);
		break;
	case OPT_TITLE:
		o->svg.title = optarg;
		break;
	case OPT_VIEW:
		if (!strcmp(optarg, "off-cpu"))
			o->count.view = FOLD_VIEW_OFFCPU;
		else if (!strcmp(optarg, "wall"))
			o->count.view = FOLD_VIEW_WALL;
		else if (strcmp(optarg, "cpu"))
			bad_choice("--view", optarg, "cpu, off-cpu, wall");
		break;
	case OPT_WAITSTATE:
		o->no_wait_state = true;
		break;
	case OPT_WEIGHT:
		if (strcmp(optarg, "time") && strcmp(optarg, "samples") &&
		    strcmp(optarg, "period"))
			bad_choice("--weight", optarg, "samples, time, period");
		o->count.weight_time = !strcmp(optarg, "time");
		o->count.weight_period = !strcmp(optarg, "period");
		o->weight_samples = !strcmp(optarg, "samples");
		break;
	case OPT_WIDTH:
		o->svg.width = (int)parse_num("--width", optarg, 100000);
		break;
	default:
		fold_usage_error(NULL);
	}
}

void
fold_args_release(struct fold_opts *o)
{
	free(o->comms);
	free(o->pids.v);
	free(o->tids.v);
	if (o->name.filter.has_include)
		regfree(&o->name.filter.include);
	if (o->name.filter.has_exclude)
		regfree(&o->name.filter.exclude);
}

/*
 * What the writers are given that several options decide, settled once
 * fold_args_check has checked them all (--view sets --weight time).
 */
static void
settle(struct fold_opts *o)
{
	if (!o->svg.countname)
		o->svg.countname = o->count.weight_period ? "events"
				   : o->count.weight_time ? "nanoseconds"
							  : "samples";
	o->svg.chart = o->flamechart;
	o->top.no_comm = o->name.no_comm;
	if (o->count.view == FOLD_VIEW_OFFCPU)
		o->top.unit = "nanoseconds off-CPU";
	else if (o->count.view == FOLD_VIEW_WALL)
		o->top.unit = "nanoseconds of wall-clock time";
	else if (o->count.weight_time)
		o->top.unit = "nanoseconds";
	else
		o->top.unit = o->count.weight_period ? "events" : "samples";
}

int
fold_args_parse(int argc, char **argv, struct fold_opts *o)
{
	int c;

	/* getopt names the program by argv[0]: the tool's name, not a path */
	argv[0] = (char *)"sp-fold";
	memset(o, 0, sizeof(*o));
	o->format = FOLD_FOLDED;
	o->from = FOLD_IN_RECORDS;
	o->svg.minwidth = 0.1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1)
		set_option(c, o);
	fold_args_check(o, argv + optind, argc - optind);
	settle(o);
	return optind;
}
