/*
 * sp-symbolize: adds symbol records (function names, source lines,
 * inlined frames) after the frame records of a stackpulse record stream.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cachedir.h"
#include "common/cli.h"
#include "common/heap.h"
#include "common/records.h"
#include "common/version.h"
#include "sp-symbolize/dpkgown.h"
#include "sp-symbolize/cache/fileid.h"
#include "sp-symbolize/filter.h"
#include "sp-symbolize/resolve.h"
#include "sp-symbolize/cache/symcache.h"
#include "common/banned.h"

enum {
	OPT_CACHE_SIZE = 256,
	OPT_NO_CACHE,
	OPT_NO_DEMANGLE,
	OPT_NO_INLINE,
	OPT_NO_KALLSYMS,
	OPT_NO_LINES,
	OPT_NO_PERF_MAPS,
	OPT_NO_PARAMS,
	OPT_PERF_MAP_DIR,
	OPT_PERF_MAP_PID,
	OPT_RAW_NAMES,
	OPT_VERSION,
	/* Long only: -d and -k mean duration and kernel in sp-record. */
	OPT_DEBUG_DIR,
	OPT_KALLSYMS,
	OPT_MAX_DWARF,
	OPT_MAX_OPEN,
};

static const struct option longopts[] = {
	{ "cache-size", required_argument, NULL, OPT_CACHE_SIZE },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "help", no_argument, NULL, 'h' },
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
	{ "max-dwarf", required_argument, NULL, OPT_MAX_DWARF },
	{ "max-open", required_argument, NULL, OPT_MAX_OPEN },
	{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "no-kallsyms", no_argument, NULL, OPT_NO_KALLSYMS },
	{ "no-lines", no_argument, NULL, OPT_NO_LINES },
	{ "no-perf-maps", no_argument, NULL, OPT_NO_PERF_MAPS },
	{ "no-params", no_argument, NULL, OPT_NO_PARAMS },
	{ "perf-map-dir", required_argument, NULL, OPT_PERF_MAP_DIR },
	{ "perf-map-pid", required_argument, NULL, OPT_PERF_MAP_PID },
	{ "output", required_argument, NULL, 'o' },
	{ "raw-names", no_argument, NULL, OPT_RAW_NAMES },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

static const char synopsis[] = "usage: sp-symbolize [options] [FILE]\n";

/* A usage error: the synopsis on stderr, exit 2. */
static void
usage(void)
{
	fputs(synopsis, stderr);
	fputs("Try 'sp-symbolize --help' for the options.\n", stderr);
	exit(2);
}

static void
help(void)
{
	fputs(synopsis, stdout);
	fputs("Adds symbol records (names, source lines, inlined frames) "
	      "after the frame\nrecords of a record stream (sp-dump's "
	      "output), from FILE or standard input.\n\n"
	      "  --cache-size SIZE    bound the symbol cache (64M; K, M, G)\n"
	      "  --debug-dir DIR      look for debug files there too "
	      "(repeatable)\n"
	      "  --kallsyms FILE      kernel symbols from FILE, not "
	      "/proc/kallsyms\n"
	      "  --no-kallsyms        kernel frames keep address names\n"
	      "  --max-open N         keep at most N module files open "
	      "(32)\n"
	      "  --max-dwarf SIZE     bound their DWARF in memory (64M)\n"
	      "  --no-cache           neither read nor write the symbol "
	      "cache\n"
	      "  --no-lines           names only: no source lines, no "
	      "inlined frames\n"
	      "  --no-inline          no inlined frames\n"
	      "  --no-demangle        names as the symbol tables spell them\n"
	      "  --no-params          C++ names without parameter lists\n"
	      "  --raw-names          symbol versions and clone suffixes "
	      "kept\n"
	      "  --no-perf-maps       no JIT names from perf maps or "
	      "jitdumps\n"
	      "  --perf-map-dir DIR   where perf maps and jitdumps are (/tmp)\n"
	      "  --perf-map-pid PID   use this process's map for every "
	      "process\n"
	      "  -o, --output FILE    write to FILE instead of standard "
	      "output\n"
	      "  -h, --help           this help\n"
	      "      --version        the version\n"
	      "The symbol cache is in ${XDG_CACHE_HOME:-$HOME/.cache}/"
	      "stackpulse;\nrm -r that directory to clear it.  "
	      "See sp-symbolize(1).\n",
	      stdout);
	exit(sp_cli_close_stdout() ? 1 : 0);
}

static void
print_warning(void *ctx, const char *msg)
{
	(void)ctx;
	/* Paths and names come from the input: no raw control byte. */
	fputs("sp-symbolize: ", stderr);
	sp_escape_file(stderr, msg, strlen(msg));
	fputc('\n', stderr);
}

/* Appends to a growable array of pointers or pids; exits on ENOMEM. */
static void *
push(void *v, size_t *n, size_t size, const void *item)
{
	char *nv = reallocarray(v, *n + 1, size);

	if (!nv)
		errx(1, "out of memory");
	memcpy(nv + *n * size, item, size);
	(*n)++;
	return nv;
}

/* Output goes to a live consumer: flush it record by record. */
static bool
live_output(void)
{
	struct stat st;

	if (fstat(STDOUT_FILENO, &st))
		return false;
	return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
	       isatty(STDOUT_FILENO);
}

static int
symbolize(struct sym_resolver *r, const char *path, struct sym_filter_stats *st)
{
	struct sp_buf err = SP_BUF_INIT;
	FILE *in = stdin;
	int rc;

	if (path && strcmp(path, "-") != 0) {
		in = fopen(path, "re");
		if (!in) {
			warn("'%s'", path);
			return 1;
		}
	}
	rc = sym_filter_run(r, in, stdout, live_output(), &err, st);
	if (rc && in != stdin)
		warnx("'%s': %s", path, (char *)err.data);
	else if (rc)
		warnx("%s", (char *)err.data);
	if (in != stdin)
		fclose(in);
	sp_buf_release(&err);
	return rc ? 1 : 0;
}

/* A number of at least `min`, or a usage error naming `what` it is. */
static int32_t
parse_i32(const char *s, int32_t min, const char *what)
{
	int32_t v;

	if (sp_parse_i32(s, &v) || v < min) {
		warnx("bad %s '%s'", what, s);
		usage();
	}
	return v;
}

/*
 * The build-id trees lost modules are looked up in: every --debug-dir,
 * then the one sp-record keeps module files in, under the cache
 * directory (read with --no-cache too: it holds files, not results),
 * when that directory is this user's alone, as the cache requires.
 * Malloc'ed, with *n set; exits on ENOMEM.
 */
static char **
id_roots(char **dirs, size_t ndirs, size_t *n, char **keep)
{
	char **v = calloc(ndirs + 1, sizeof(*v));
	char *dir = sp_cache_dir();
	struct stat st;
	int fd = -1;

	if (!v)
		errx(1, "out of memory");
	if (ndirs)
		memcpy(v, dirs, ndirs * sizeof(*v));
	*n = ndirs;
	if (dir)
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
	    !(st.st_mode & (S_IWGRP | S_IWOTH))) {
		v[(*n)++] = dir;
	} else {
		free(dir);
		dir = NULL;
	}
	if (fd >= 0)
		close(fd);
	*keep = dir;
	return v;
}

/*
 * The cache, unless disabled or without a directory; exits on ENOMEM.
 * `max` is --cache-size's, or 0 for SP_SYMBOLIZE_CACHE_SIZE's or else
 * the default (a bad variable is warned about and ignored).
 */
static struct sym_cache *
open_cache(bool disabled, uint64_t max)
{
	const char *env = getenv("SP_SYMBOLIZE_CACHE_SIZE");
	struct sym_cache *c;
	char *dir;

	if (!max && env && sp_cli_size(env, &max))
		warnx("bad SP_SYMBOLIZE_CACHE_SIZE '%s' ignored", env);
	if (!max)
		max = SYM_CACHE_DEFAULT_MAX;
	if (disabled || !(dir = sp_cache_dir()))
		return NULL;
	c = sym_cache_new(dir, max, print_warning, NULL);
	free(dir);
	if (!c)
		errx(1, "out of memory");
	return c;
}

/*
 * What makes this run's results, for the cache: the version and this
 * executable's build id (or size and time), so that a rebuilt
 * sp-symbolize, even of the same commit, starts its own cache files.
 * Malloc'ed; exits on ENOMEM.
 */
static char *
cache_tool(const struct sym_symopts *o)
{
	struct sym_fileid self;
	struct stat st;
	char *s;
	int n;

	if (sym_fileid_read("/proc/self/exe", o, "", &self) == 0)
		n = asprintf(&s, "%s %s", sp_version(), self.buildid);
	else if (stat("/proc/self/exe", &st) == 0)
		n = asprintf(&s, "%s %jd %jd.%ld", sp_version(),
			     (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
			     st.st_mtim.tv_nsec);
	else
		n = asprintf(&s, "%s", sp_version());
	if (n < 0)
		errx(1, "out of memory");
	return s;
}

/* The most files the summary of unnamed frames gives a line each. */
#define MAX_UNNAMED 10

/* The files whose frames went unnamed, the first MAX_UNNAMED of them. */
struct unnamed {
	const char *paths[MAX_UNNAMED]; /* the resolver's */
	size_t frames[MAX_UNNAMED];
	size_t n, more;
};

static void
add_unnamed(void *ctx, const char *path, size_t frames)
{
	struct unnamed *u = ctx;

	if (u->n == MAX_UNNAMED) {
		u->more++;
		return;
	}
	u->paths[u->n] = path;
	u->frames[u->n++] = frames;
}

/* One summary line: what would name the frames `path` left unnamed. */
static void
explain_file(const char *path, size_t frames, const char *pkg)
{
	char *msg;
	int n;

	if (pkg)
		n = asprintf(&msg,
			     "'%s': %zu frame%s without names: stripped, and "
			     "no debug file found; install %s-dbgsym (the "
			     "debian-debug archive must be in the apt "
			     "sources) or give --debug-dir DIR",
			     path, frames, frames == 1 ? "" : "s", pkg);
	else
		n = asprintf(&msg,
			     "'%s': %zu frame%s without names: stripped, and "
			     "no debug file found; give --debug-dir DIR with "
			     "its debug file",
			     path, frames, frames == 1 ? "" : "s");
	if (n < 0)
		errx(1, "out of memory");
	print_warning(NULL, msg);
	free(msg);
}

/*
 * Says, once per file, which stripped files left frames unnamed and
 * what would name them: the package of their debug symbols when dpkg
 * owns the file, else a debug directory.
 */
static void
explain_unnamed(const struct sym_resolver *r)
{
	struct unnamed u = { .n = 0 };
	char *owners[MAX_UNNAMED];
	size_t i;

	sym_resolver_unnamed(r, add_unnamed, &u);
	if (!u.n)
		return;
	if (sym_dpkg_owners(NULL, u.paths, u.n, owners) == -ENOMEM)
		errx(1, "out of memory");
	for (i = 0; i < u.n; i++) {
		explain_file(u.paths[i], u.frames[i], owners[i]);
		free(owners[i]);
	}
	if (u.more)
		fprintf(stderr,
			"sp-symbolize: and %zu more stripped file%s without "
			"debug files\n",
			u.more, u.more == 1 ? "" : "s");
}

/*
 * What the run kept of processes that came and went, on a second stats
 * line: what forget records freed, and what stayed.
 */
static void
print_kept(const struct sym_resolver_stats *st,
	   const struct sym_filter_stats *fst)
{
	fprintf(stderr,
		"sp-symbolize: kept: %zu processes forgotten; modules %zu "
		"at the end, at most %zu; frames %zu at the end, at most %zu; "
		"perf maps of %zu processes\n",
		fst->forgotten, st->modules_live, st->modules_peak,
		fst->frames_live, fst->frames_peak, st->jit_processes);
}

/* Saves the cache; with SP_SYMBOLIZE_CACHE_STATS set, says what it did. */
static void
close_cache(struct sym_cache *c, const struct sym_resolver *r,
	    const struct sym_filter_stats *fst)
{
	struct sym_resolver_stats st;
	int saved = c ? sym_cache_save(c) : 0;

	if (r && getenv("SP_SYMBOLIZE_CACHE_STATS")) {
		sym_resolver_stats(r, &st);
		fprintf(stderr,
			"sp-symbolize: cache: %zu hits, %zu misses, %zu "
			"files opened, %d cache files written; %zu files "
			"closed, at most %zu open, DWARF dropped %zu times; "
			"kernel symbols read from /proc/kallsyms %zu, from "
			"the cache %zu\n",
			st.cache_hits, st.cache_misses, st.images,
			saved > 0 ? saved : 0, st.images_closed, st.images_peak,
			st.dwarf_dropped, st.kallsyms_reads,
			st.kallsyms_copies);
		print_kept(&st, fst);
	}
	sym_cache_free(c);
}

int
main(int argc, char *argv[])
{
	struct sym_resolver_opts o = {
		.sym = { .demangle = true, .inlines = true, .params = true },
		.warn = print_warning,
	};
	char **dirs = NULL, **roots, *kept_root;
	const char *output = NULL;
	uint64_t cache_size = 0, max_dwarf;
	bool no_cache = false;
	char *tool;
	int32_t *pids = NULL, pid;
	size_t ndirs = 0, npids = 0, nroots;
	struct sp_buf emsg = SP_BUF_INIT;
	struct sym_resolver *r;
	struct sym_filter_stats fst = { 0 };
	int ch, status, rc;

	/*
	 * libdw's tables and the sections libelf reads and inflates take
	 * tens of MiB on a real profile: one step holds a typical run.
	 */
	sp_heap_tune(128 << 20);
	argv[0] = (char *)"sp-symbolize"; /* getopt's messages name the tool */
	while ((ch = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_CACHE_SIZE:
			if (sp_cli_size(optarg, &cache_size) || !cache_size) {
				warnx("bad cache size '%s'", optarg);
				usage();
			}
			break;
		case OPT_DEBUG_DIR:
			dirs = push(dirs, &ndirs, sizeof(*dirs), &optarg);
			break;
		case OPT_KALLSYMS:
			o.kallsyms = optarg;
			break;
		case OPT_MAX_DWARF:
			if (sp_cli_size(optarg, &max_dwarf) || !max_dwarf ||
			    max_dwarf > SIZE_MAX) {
				warnx("bad size '%s'", optarg);
				usage();
			}
			o.max_dwarf = (size_t)max_dwarf;
			break;
		case OPT_MAX_OPEN:
			o.max_open = (size_t)parse_i32(optarg, 1, "count");
			break;
		case 'h':
			help();
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_VERSION:
			printf("sp-symbolize %s\n", sp_version());
			return 0;
		case OPT_NO_CACHE:
			no_cache = true;
			break;
		case OPT_NO_DEMANGLE:
			o.sym.demangle = false;
			break;
		case OPT_NO_INLINE:
			o.sym.inlines = false;
			break;
		case OPT_NO_KALLSYMS:
			o.no_kallsyms = true;
			break;
		case OPT_NO_LINES:
			o.sym.names_only = true;
			break;
		case OPT_NO_PERF_MAPS:
			o.no_perf_maps = true;
			break;
		case OPT_NO_PARAMS:
			o.sym.params = false;
			break;
		case OPT_PERF_MAP_DIR:
			o.perf_map_dir = optarg;
			break;
		case OPT_PERF_MAP_PID:
			pid = parse_i32(optarg, 0, "process id");
			pids = push(pids, &npids, sizeof(*pids), &pid);
			break;
		case OPT_RAW_NAMES:
			o.sym.raw_names = true;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1) {
		warnx("one record stream at a time");
		usage();
	}
	if (argc && strcmp(argv[0], "-") && access(argv[0], R_OK)) {
		warn("'%s'", argv[0]); /* before -o makes an empty file */
		return 1;
	}
	if (output && !freopen(output, "w", stdout))
		err(1, "'%s'", output);

	o.sym.debug_dirs = dirs;
	o.sym.ndebug_dirs = ndirs;
	roots = id_roots(dirs, ndirs, &nroots, &kept_root);
	o.id_roots = roots;
	o.nid_roots = nroots;
	o.cache = open_cache(no_cache, cache_size);
	tool = o.cache ? cache_tool(&o.sym) : NULL;
	o.cache_tool = tool;
	o.perf_map_pids = pids;
	o.nperf_map_pids = npids;
	r = sym_resolver_new(&o, &emsg);
	if (!r && emsg.len)
		warnx("'%s': %s", o.kallsyms, (char *)emsg.data);
	else if (!r)
		warn("cannot start");
	sp_buf_release(&emsg);
	status = r ? symbolize(r, argc ? argv[0] : NULL, &fst) : 1;
	if (r)
		explain_unnamed(r);
	close_cache(o.cache, r, &fst);
	sym_resolver_free(r);
	free(tool);
	free(dirs);
	free(roots);
	free(kept_root);
	free(pids);
	rc = sp_cli_close_stdout();
	if (rc) {
		warnx("write error on standard output: %s", strerror(-rc));
		status = 1;
	}
	return status;
}
