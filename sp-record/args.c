/*
 * args.c: the values of sp-record's options, each parsed and checked
 * (args.h); a bad one is a usage error, as it is in main.
 */
#include <err.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/htab.h"
#include "sp-record/args.h"
#include "sp-record/sys/cpus.h"
#include "common/banned.h"

#define MAX_STACK_SIZE 65528 /* the kernel's limit, a multiple of 8 */

static const char synopsis[] =
    "usage: sp-record [options] -p pid[,pid...] | -t tid[,tid...]\n"
    "       sp-record [options] -a [-C cpus] [-u user] [[--] command ...]\n"
    "       sp-record [options] [--] command [arg ...]\n"
    "       sp-record -l\n";

/* A usage error: the synopsis on stderr, exit 2. */
void
rec_args_usage(void)
{
	fputs(synopsis, stderr);
	fputs("Try 'sp-record --help' for the options.\n", stderr);
	exit(2);
}

void
rec_args_help(void)
{
	fputs(synopsis, stdout);
	fputs("Samples the stacks of processes (and, with -f, their "
	      "children) and writes a\nspool: to -o FILE or a pipe, never "
	      "a terminal.\n\n"
	      "  -p, --pid PID[,PID...]  attach to running processes\n"
	      "  -t, --tid TID[,TID...]  attach to those threads only\n"
	      "  -a, --all-cpus          every process on every CPU "
	      "(system-wide)\n"
	      "  -C, --cpu CPUS          with -a: only these CPUs (0-3,6)\n"
	      "  -u, --uid USER          with -a: only this user's "
	      "processes\n"
	      "  -f, --children          follow the children a command "
	      "creates\n"
	      "  -d, --duration SECONDS  stop after this long\n"
	      "  -F, --freq HZ|max       samples per second (999)\n"
	      "  -e, --event EVENT       what to sample: cycles (default), "
	      "cpu-clock,\n"
	      "                          page-faults, sched:sched_switch... "
	      "(see -l)\n"
	      "  -c, --count N           one sample every N events (instead "
	      "of -F)\n"
	      "  -l, --list-events       list the events this machine "
	      "offers\n"
	      "  -g, --call-graph fp|dwarf  how user stacks are unwound "
	      "(dwarf)\n"
	      "  -k, --kernel            kernel stacks too\n"
	      "  -m, --mmap-pages N      ring size per CPU, in pages\n"
	      "  -o, --output FILE       the spool (standard output: a pipe)\n"
	      "      --capture all|lost  keep every sampled module file by "
	      "build id, or\n"
	      "                          those the host cannot reach (lost)\n"
	      "      --capture-dir DIR   where (the symbol cache: "
	      "~/.cache/stackpulse)\n"
	      "      --capture-dir-force  even a system directory or a "
	      "filesystem root\n"
	      "      --capture-max-file SIZE   larger files are not kept "
	      "(256M)\n"
	      "      --capture-max-total SIZE  bytes kept per recording (1G)\n"
	      "      --capture-max-tree SIZE   the tree's bound, least "
	      "recently used\n"
	      "                          files removed past it (4G)\n"
	      "      --no-capture        keep no module files or JIT maps\n"
	      "      --no-python         no Python frames read from CPython "
	      "targets\n"
	      "      --no-bpf            read Python and deep stacks later, "
	      "not by BPF\n"
	      "      --ptrace            sample by ptrace where perf events "
	      "are refused\n"
	      "      --off-cpu           also where threads wait, and how "
	      "long\n"
	      "      --off-cpu-min US    shorter waits are left out (0)\n"
	      "  -q, --quiet             no status line on a terminal\n"
	      "      --stack-read SIZE   read past the copy for deep stacks "
	      "(2M; 0: no)\n"
	      "      --stack-size BYTES  user stack copied per sample "
	      "(32768)\n"
	      "  -h, --help              this help\n"
	      "      --version           the version\n"
	      "See sp-record(1).\n",
	      stdout);
	exit(sp_cli_close_stdout() ? 1 : 0);
}

/* Parses a positive integer option; exits with usage on a bad one. */
unsigned long long
rec_args_number(const char *s, const char *what, unsigned long long max)
{
	uint64_t v;

	if (sp_cli_uint(s, 1, max, &v)) {
		warnx("invalid %s '%s': not a whole number from 1 to %llu",
		      what, s, max);
		rec_args_usage();
	}
	return v;
}

/* One -e event: a usage error when it is not one perf would name. */
static int
add_event(const char *tok, void *ctx)
{
	struct rec_events_opts *o = ctx;
	struct sp_buf why = SP_BUF_INIT;
	int rc;

	if (o->nevents == REC_EVENTS_MAX) {
		warnx("at most %d events", REC_EVENTS_MAX);
		rec_args_usage();
	}
	rc = rec_evname_parse(tok, &o->events[o->nevents], &why);
	if (rc == -EACCES) /* the machine's, not the command line's */
		errx(1, "%s", why.len ? (char *)why.data : strerror(-rc));
	if (rc < 0) {
		warnx("%s", why.len ? (char *)why.data : strerror(-rc));
		rec_args_usage();
	}
	o->nevents++;
	sp_buf_release(&why);
	return 0;
}

/* -e: events perf would name, comma-separated; a usage error otherwise. */
void
rec_args_event(const char *list, struct rec_events_opts *o)
{
	if (sp_cli_each(list, ",", add_event, o) == -ENOMEM)
		err(1, "strdup");
	o->source_explicit = true;
}

/* --stack-size: what PERF_SAMPLE_STACK_USER accepts. */
uint32_t
rec_args_stack_size(const char *s)
{
	const char *why = NULL;
	uint64_t v;
	int rc = sp_cli_uint(s, 1, MAX_STACK_SIZE, &v);

	if (rc == -ERANGE && *s != '0')
		why = "above the kernel's limit of 65528 bytes";
	else if (rc)
		why = "not a multiple of 8 from 8 to 65528";
	else if (v % 8)
		why = "not a multiple of 8";
	if (why) {
		warnx("invalid stack size '%s': %s", s, why);
		rec_args_usage();
	}
	return (uint32_t)v;
}

/*
 * Appends the pids of a -p list to *pids: "12,34", or "12 34" as
 * `-p "$(pidof app)"` writes it when two processes match.
 */
struct pid_list {
	int32_t **pids;
	size_t *n;
};

static int
add_pid(const char *tok, void *ctx)
{
	struct pid_list *l = ctx;
	int32_t *v = reallocarray(*l->pids, *l->n + 1, sizeof(**l->pids));

	if (!v)
		return -ENOMEM;
	*l->pids = v;
	v[(*l->n)++] = (int32_t)rec_args_number(tok, "pid", INT32_MAX);
	return 0;
}

void
rec_args_add_pids(const char *list, int32_t **pids, size_t *n)
{
	static const char sep[] = ", \t\n";
	struct pid_list l = { pids, n };
	int rc = sp_cli_each(list, sep, add_pid, &l);

	if (rc == -ENOMEM)
		errx(1, "-p: %s", strerror(ENOMEM));
	if (rc == -ENODATA) {
		warnx("invalid pid list '%s': no pid in it%s", list,
		      strspn(list, sep) == strlen(list)
			  ? " (did pidof or pgrep find nothing?)"
			  : "");
		rec_args_usage();
	}
}

/*
 * Drops the ids named more than once, keeping the first: `-t T` given
 * 20,000 times opened 20,000 sets of events on one thread, `-p 1` given
 * 2,000 times named its threads 2,000 times.
 */
void
rec_args_unique_ids(int32_t *v, size_t *n)
{
	struct sp_htab *seen = sp_htab_new();
	size_t i, k;
	bool fresh;

	if (!seen)
		err(1, "sp_htab_new");
	for (i = k = 0; i < *n; i++) {
		if (!sp_htab_slot(seen, &v[i], sizeof(v[i]), 1, &fresh))
			errx(1, "sp_htab_slot: %s", strerror(ENOMEM));
		if (fresh)
			v[k++] = v[i];
	}
	*n = k;
	sp_htab_free(seen);
}

/* -u: a user name or number. */
uid_t
rec_args_user(const char *s)
{
	struct passwd *pw = getpwnam(s);
	uint64_t v;

	if (pw)
		return pw->pw_uid;
	if (sp_cli_uint(s, 0, (uid_t)-2, &v)) {
		warnx("unknown user '%s'", s);
		rec_args_usage();
	}
	return (uid_t)v;
}

/*
 * -C: a CPU list whose every CPU this machine can have (offline ones are
 * refused later, when recording starts).
 */
const char *
rec_args_cpus(const char *s)
{
	int *cpus, n, limit = rec_cpus_possible();
	const char *bad;

	n = rec_cpus_parse(s, limit, &cpus, &bad);
	if (n == -ERANGE) {
		warnx("-C: CPU %.*s is out of range: this machine's CPUs are "
		      "0-%d",
		      (int)strspn(bad, "0123456789"), bad, limit - 1);
		rec_args_usage();
	}
	if (n == -ENOMEM)
		errx(1, "-C: %s", strerror(ENOMEM));
	if (n < 0) {
		warnx("invalid CPU list '%s' (as 0-3,6)", s);
		rec_args_usage();
	}
	free(cpus);
	return s;
}

double
rec_args_duration(const char *s)
{
	double d;

	if (sp_cli_real(s, 0, 1e9, &d) || !(d > 0)) {
		warnx("invalid duration '%s'", s);
		rec_args_usage();
	}
	return d;
}

enum rec_stack_callgraph
rec_args_callgraph(const char *s)
{
	if (!strcmp(s, "fp"))
		return REC_CG_FP;
	if (!strcmp(s, "dwarf"))
		return REC_CG_DWARF;
	warnx("invalid call graph '%s' (fp, dwarf)", s);
	rec_args_usage();
}

enum rec_capture_mode
rec_args_capture(const char *s)
{
	if (!strcmp(s, "all"))
		return REC_CAPTURE_ALL;
	if (!strcmp(s, "lost"))
		return REC_CAPTURE_LOST;
	warnx("invalid --capture '%s' (all, lost)", s);
	rec_args_usage();
}

uint64_t
rec_args_size(const char *s, const char *what)
{
	uint64_t v;

	if (sp_cli_size(s, &v) || v == 0) {
		warnx("invalid %s '%s': a size above 0, with K, M or G", what,
		      s);
		rec_args_usage();
	}
	return v;
}

size_t
rec_args_stack_read(const char *s)
{
	uint64_t v;

	if (sp_cli_size(s, &v) || v > (64u << 20)) {
		warnx(
		    "invalid --stack-read '%s': a size from 0 to 64M, with K, "
		    "M or G",
		    s);
		rec_args_usage();
	}
	return (size_t)v;
}

size_t
rec_args_pages(const char *s)
{
	size_t n = rec_args_number(s, "page count", 1 << 20);

	if (n & (n - 1)) {
		warnx("page count must be a power of two");
		rec_args_usage();
	}
	return n;
}
