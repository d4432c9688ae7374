/*
 * sp-record: samples the call stacks of running processes with
 * perf_event_open(2) (or, with --ptrace, by interrupting their threads)
 * and writes them as a SPULSE1 spool (sp-spool(5)).  docs/sp-record.1
 * describes the options; recorder.c does the work.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/htab.h"
#include "sp-record/cpus.h"
#include "sp-record/ptrace.h"
#include "sp-record/recorder.h"
#include "sp-record/stopreq.h"
#include "sp-record/sysctl.h"
#include "sp-record/unwind.h"
#include "common/version.h"
#include "common/banned.h"

#define DEFAULT_FREQ 999
#define DEFAULT_STACK_SIZE 32768
#define MAX_STACK_SIZE 65528 /* the kernel's limit, a multiple of 8 */

static const char synopsis[] =
    "usage: sp-record [options] -p pid[,pid...] | -t tid[,tid...]\n"
    "       sp-record [options] -a [-C cpus] [-u user] [[--] command ...]\n"
    "       sp-record [options] [--] command [arg ...]\n"
    "       sp-record -l\n";

/* A usage error: the synopsis on stderr, exit 2. */
static void __attribute__((noreturn)) usage(void)
{
	fputs(synopsis, stderr);
	fputs("Try 'sp-record --help' for the options.\n", stderr);
	exit(2);
}

static void __attribute__((noreturn)) help(void)
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
	      "      --ptrace            sample by ptrace where perf events "
	      "are refused\n"
	      "      --off-cpu           also where threads wait, and how "
	      "long\n"
	      "      --off-cpu-min US    shorter waits are left out (0)\n"
	      "  -q, --quiet             no status line on a terminal\n"
	      "      --stack-size BYTES  user stack copied per sample "
	      "(32768)\n"
	      "  -h, --help              this help\n"
	      "      --version           the version\n"
	      "See sp-record(1).\n",
	      stdout);
	exit(fflush(stdout) || ferror(stdout) ? 1 : 0);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Parses a positive integer option; exits with usage on a bad one. */
static unsigned long long
number(const char *s, const char *what, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > max || *s == '-') {
		warnx("invalid %s '%s': not a whole number from 1 to %llu",
		      what, s, max);
		usage();
	}
	return v;
}

/* -e: events perf would name, comma-separated; a usage error otherwise. */
static void
event_arg(const char *list, struct rec_evopts *o)
{
	struct sp_buf why = SP_BUF_INIT;
	char *copy = strdup(list), *tok, *save = NULL;
	int rc;

	if (!copy)
		err(1, "strdup");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->nevents == REC_EVENTS_MAX) {
			warnx("at most %d events", REC_EVENTS_MAX);
			usage();
		}
		rc = rec_evspec_parse(tok, &o->events[o->nevents], &why);
		if (rc == -EACCES) /* the machine's, not the command line's */
			errx(1, "%s",
			     why.len ? (char *)why.data : strerror(-rc));
		if (rc < 0) {
			warnx("%s", why.len ? (char *)why.data : strerror(-rc));
			usage();
		}
		o->nevents++;
	}
	free(copy);
	sp_buf_release(&why);
	o->source_explicit = true;
}

/* --stack-size: what PERF_SAMPLE_STACK_USER accepts. */
static uint32_t
stack_size_arg(const char *s)
{
	unsigned long long v;
	const char *why = NULL;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE ||
	    (!errno && end != s && !*end && *s != '-' && v > MAX_STACK_SIZE))
		why = "above the kernel's limit of 65528 bytes";
	else if (errno || end == s || *end || *s == '-' || v == 0)
		why = "not a multiple of 8 from 8 to 65528";
	else if (v % 8)
		why = "not a multiple of 8";
	if (why) {
		warnx("invalid stack size '%s': %s", s, why);
		usage();
	}
	return (uint32_t)v;
}

static uint64_t
max_sample_rate(void)
{
	long v;

	if (rec_sysctl_long("kernel.perf_event_max_sample_rate", &v) < 0 ||
	    v <= 0)
		errx(1, "cannot read kernel.perf_event_max_sample_rate");
	return (uint64_t)v;
}

/*
 * Appends the pids of a -p list to *pids: "12,34", or "12 34" as
 * `-p "$(pidof app)"` writes it when two processes match.
 */
static void
add_pids(const char *list, int32_t **pids, size_t *n)
{
	static const char sep[] = ", \t\n";
	char *copy = strdup(list), *tok, *save = NULL;
	int32_t *v;

	if (!copy)
		err(1, "strdup");
	for (tok = strtok_r(copy, sep, &save); tok;
	     tok = strtok_r(NULL, sep, &save)) {
		v = reallocarray(*pids, *n + 1, sizeof(**pids));
		if (!v)
			err(1, "reallocarray");
		*pids = v;
		(*pids)[(*n)++] = (int32_t)number(tok, "pid", INT32_MAX);
	}
	free(copy);
	if (*n == 0) {
		warnx("invalid pid list '%s': no pid in it%s", list,
		      strspn(list, sep) == strlen(list)
			  ? " (did pidof or pgrep find nothing?)"
			  : "");
		usage();
	}
}

/*
 * Drops the ids named more than once, keeping the first: `-t T` given
 * 20,000 times opened 20,000 sets of events on one thread, `-p 1` given
 * 2,000 times named its threads 2,000 times.
 */
static void
unique_ids(int32_t *v, size_t *n)
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
static uid_t
user_arg(const char *s)
{
	struct passwd *pw = getpwnam(s);
	char *end;
	unsigned long v;

	if (pw)
		return pw->pw_uid;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v >= (uid_t)-1) {
		warnx("unknown user '%s'", s);
		usage();
	}
	return (uid_t)v;
}

/* What to record: exactly one of -p, -t, -a (with or without a command)
 * and a command; -C and -u only with -a. */
static void
check_scope(const struct rec_config *cfg, size_t npids, size_t ntids, int argc)
{
	int modes = (npids > 0) + (ntids > 0) + cfg->system_wide;

	if (modes > 1 || (argc && (npids || ntids))) {
		warnx("-p, -t, -a and a command: one of them (a command may "
		      "go with -a)");
		usage();
	}
	if (!modes && !argc) {
		warnx("nothing to record: give -p PID, -t TID, -a or a "
		      "command");
		usage();
	}
	if ((cfg->cpu_list || cfg->only_uid) && !cfg->system_wide) {
		warnx("-C and -u go with -a");
		usage();
	}
	if (cfg->ptrace && (cfg->system_wide || ntids)) {
		warnx("--ptrace records one process: no -a, no -t");
		usage();
	}
}

/*
 * --off-cpu: CPU samples in time (cpu-clock unless -e gives a clock), and
 * last the off-cpu event with context-switch records.
 */
static void
off_cpu_options(struct rec_config *cfg)
{
	struct rec_evopts *o = &cfg->ev;
	size_t i;

	if (cfg->ptrace) {
		warnx("--off-cpu needs perf events, not --ptrace");
		usage();
	}
	if (!o->source_explicit)
		rec_evspec_cpu_clock(&o->events[0]);
	for (i = 0; i < o->nevents; i++)
		if (!o->events[i].is_time || o->period) {
			warnx("--off-cpu goes with time: -e cpu-clock or "
			      "task-clock, no -c");
			usage();
		}
	if (o->nevents == REC_EVENTS_MAX) {
		warnx("at most %d events with --off-cpu", REC_EVENTS_MAX - 1);
		usage();
	}
	rec_evspec_off_cpu(&o->events[o->nevents++]);
	o->switches = true;
}

/* One event per thread and CPU can need many descriptors. */
static void
raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * Ends the launched command if it still runs once recording stopped:
 * SIGTERM, then SIGKILL after a second.  Returns true if we ended it.
 */
static bool
end_child(struct recorder *r)
{
	pid_t pid = rec_child(r);
	int i;

	if (pid <= 0 || rec_reap(r, false, NULL))
		return false;
	kill(pid, SIGTERM);
	for (i = 0; i < 100; i++) {
		if (rec_reap(r, false, NULL))
			return true;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	rec_reap(r, true, NULL);
	return true;
}

/* sp-record's status for the launched command's wait status. */
static int
child_exit_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 1;
}

static int
open_output(const char *path, struct rec_config *cfg)
{
	int fd;

	if (!path) {
		if (isatty(STDOUT_FILENO))
			errx(2, "refusing to write a binary spool to a "
				"terminal: use -o FILE or a pipe (| sp-dump)");
		cfg->spool_on_stdout = true;
		cfg->output_name = "stdout";
		return STDOUT_FILENO;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		err(1, "'%s'", path);
	cfg->output_name = path;
	return fd;
}

/*
 * Recording never began (attaching or launching failed): the output file
 * holds nothing, so it goes rather than be left behind empty.
 */
static void
drop_empty_output(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(path);
}

/*
 * -C: a CPU list whose every CPU this machine can have (offline ones are
 * refused later, when recording starts).
 */
static const char *
cpus_arg(const char *s)
{
	int *cpus, n, limit = rec_cpus_possible();
	const char *bad;

	n = rec_cpus_parse(s, limit, &cpus, &bad);
	if (n == -ERANGE) {
		warnx("-C: CPU %.*s is out of range: this machine's CPUs are "
		      "0-%d",
		      (int)strspn(bad, "0123456789"), bad, limit - 1);
		usage();
	}
	if (n == -ENOMEM)
		errx(1, "-C: %s", strerror(ENOMEM));
	if (n < 0) {
		warnx("invalid CPU list '%s' (as 0-3,6)", s);
		usage();
	}
	free(cpus);
	return s;
}

static double
duration_arg(const char *s)
{
	double d;
	char *end;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !(d > 0)) {
		warnx("invalid duration '%s'", s);
		usage();
	}
	return d;
}

static enum rec_callgraph
callgraph_arg(const char *s)
{
	if (!strcmp(s, "fp"))
		return REC_CG_FP;
	if (!strcmp(s, "dwarf"))
		return REC_CG_DWARF;
	warnx("invalid call graph '%s' (fp, dwarf)", s);
	usage();
}

static size_t
pages_arg(const char *s)
{
	size_t n = number(s, "page count", 1 << 20);

	if (n & (n - 1)) {
		warnx("page count must be a power of two");
		usage();
	}
	return n;
}

/*
 * --ptrace samples one process and its threads, with DWARF unwinding of
 * the copied stacks; children and kernel frames are out of its reach.
 */
static void
ptrace_options(struct rec_config *cfg, size_t npids)
{
	if (npids > 1) {
		warnx("--ptrace records one process");
		usage();
	}
	if ((cfg->ev.source_explicit &&
	     (cfg->ev.nevents > 1 || !cfg->ev.events[0].is_time)) ||
	    cfg->ev.period) {
		warnx("--ptrace samples time only: one -e cpu-clock or "
		      "task-clock at most, no -c");
		usage();
	}
	if (cfg->ev.freq > REC_PTRACE_MAX_HZ) {
		warnx("invalid frequency '%llu' for --ptrace: at most %d "
		      "samples a second",
		      (unsigned long long)cfg->ev.freq, REC_PTRACE_MAX_HZ);
		usage();
	}
	if (cfg->follow || cfg->ev.kernel)
		warnx("--ptrace records neither children (-f) nor kernel "
		      "frames (-k)");
	cfg->follow = false;
	cfg->ev.kernel = false;
	cfg->callgraph = REC_CG_DWARF;
}

/*
 * Records until the duration ends, a signal comes, every target exited or
 * the output failed; returns sp-record's exit status.
 */
static int
record(struct recorder *r, const struct rec_config *cfg, double duration)
{
	double start = now_s(), left, elapsed, shown = start;
	bool status_line = !cfg->quiet && isatty(STDERR_FILENO);
	int status, wst;
	bool killed;

	rec_stopreq_child(rec_child(r));
	if (duration > 0)
		rec_stopreq_deadline(duration);
	if (cfg->ptrace)
		rec_ptrace_run(r, duration, &rec_stop_signal);
	while (!cfg->ptrace && !rec_stop_signal && !rec_targets_gone(r) &&
	       !rec_failed(r)) {
		left = duration > 0 ? duration - (now_s() - start) : 1;
		if (left <= 0)
			break;
		rec_step(r, left < 0.05 ? (int)(left * 1000) + 1 : 50);
		if (status_line && now_s() - shown >= 1) {
			shown = now_s();
			rec_status_line(r, stderr, shown - start);
		}
	}
	if (status_line && shown > start)
		rec_status_clear(stderr);
	elapsed = now_s() - start;
	rec_stopreq_disarm();
	status = rec_stop(r) ? 1 : 0;
	killed = end_child(r);
	if (rec_stop_signal)
		warnx("stopped by signal %d", (int)rec_stop_signal);
	rec_summary(r, stderr, elapsed);
	if (status == 0 && rec_reap(r, false, &wst) && !killed)
		status = child_exit_status(wst);
	else if (status == 0 && killed && rec_stop_signal)
		status = 128 + rec_stop_signal;
	return status;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "children", no_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'c' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "event", required_argument, NULL, 'e' },
		{ "freq", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ "list-events", no_argument, NULL, 'l' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "off-cpu", no_argument, NULL, 'O' },
		{ "off-cpu-min", required_argument, NULL, 'M' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "ptrace", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stack-size", required_argument, NULL, 'S' },
		{ "tid", required_argument, NULL, 't' },
		{ "uid", required_argument, NULL, 'u' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct rec_config cfg;
	struct recorder *r;
	const char *output = NULL;
	int32_t *pids = NULL, *tids = NULL;
	size_t npids = 0, ntids = 0;
	double duration = 0;
	int ch, status, fd;
	bool freq_max = false;

	memset(&cfg, 0, sizeof(cfg));
	cfg.ev.freq = DEFAULT_FREQ;
	cfg.ev.stack_size = DEFAULT_STACK_SIZE;
	cfg.ev.regs_mask = REC_UNWIND_REGS_MASK;
	cfg.callgraph = REC_CG_DWARF;
	argv[0] = (char *)"sp-record"; /* getopt's messages name the tool */
	while ((ch = getopt_long(argc, argv, "+aC:c:d:e:F:fg:hklm:o:p:qt:u:",
				 longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			duration = duration_arg(optarg);
			break;
		case 'a':
			cfg.system_wide = true;
			break;
		case 'C':
			cfg.cpu_list = cpus_arg(optarg);
			break;
		case 'c':
			cfg.ev.period = number(optarg, "period", UINT64_MAX);
			break;
		case 'e':
			event_arg(optarg, &cfg.ev);
			break;
		case 'F':
			freq_max = strcmp(optarg, "max") == 0;
			if (!freq_max)
				cfg.ev.freq =
				    number(optarg, "frequency", 10000000);
			break;
		case 'f':
			cfg.follow = true;
			break;
		case 'g':
			cfg.callgraph = callgraph_arg(optarg);
			break;
		case 'k':
			cfg.ev.kernel = true;
			break;
		case 'l':
			return rec_evspec_list(stdout) < 0;
		case 'm':
			cfg.ev.pages = pages_arg(optarg);
			break;
		case 'O':
			cfg.off_cpu = true;
			break;
		case 'M':
			cfg.off_cpu_min_ns =
			    number(optarg, "--off-cpu-min", 60000000) * 1000;
			break;
		case 'o':
			output = optarg;
			break;
		case 'P':
			cfg.ptrace = true;
			break;
		case 'q':
			cfg.quiet = true;
			break;
		case 'p':
			add_pids(optarg, &pids, &npids);
			break;
		case 'S':
			cfg.ev.stack_size = stack_size_arg(optarg);
			break;
		case 't':
			add_pids(optarg, &tids, &ntids);
			break;
		case 'u':
			cfg.only_uid = true;
			cfg.uid = user_arg(optarg);
			break;
		case 'h':
			help();
		case 'V':
			printf("sp-record %s\n", sp_version());
			return 0;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	unique_ids(pids, &npids);
	unique_ids(tids, &ntids);
	check_scope(&cfg, npids, ntids, argc);
	if (cfg.ev.nevents == 0) {
		rec_evspec_default(&cfg.ev.events[0]);
		cfg.ev.nevents = 1;
	}
	if (cfg.off_cpu)
		off_cpu_options(&cfg);
	/* System-wide, a process forked later is recorded as any other. */
	if (cfg.system_wide)
		cfg.follow = true;
	/* -F max: the kernel's limit for perf events, ptrace mode's own. */
	if (freq_max)
		cfg.ev.freq =
		    cfg.ptrace ? REC_PTRACE_MAX_HZ : max_sample_rate();
	if (cfg.ptrace)
		ptrace_options(&cfg, npids);
	cfg.ev.dwarf = cfg.callgraph == REC_CG_DWARF;
	if (cfg.ev.pages == 0)
		cfg.ev.pages = rec_events_default_pages(
		    &cfg.ev, sysconf(_SC_NPROCESSORS_ONLN),
		    sysconf(_SC_PAGESIZE));

	fd = open_output(output, &cfg);
	raise_fd_limit();
	rec_stopreq_install();
	r = rec_new(&cfg, fd);
	if (!r)
		return 1;
	if (cfg.ptrace)
		status = rec_ptrace_start(r, argc ? argv : NULL,
					  npids ? pids[0] : 0);
	else if (cfg.system_wide)
		status = rec_system_wide(r, argc ? argv : NULL);
	else if (ntids)
		status = rec_attach_threads(r, tids, ntids);
	else
		status =
		    argc ? rec_launch(r, argv) : rec_attach(r, pids, npids);
	free(pids);
	free(tids);
	if (status == 0)
		status = record(r, &cfg, duration);
	else if (output)
		drop_empty_output(fd, output);
	rec_free(r);
	if (fd != STDOUT_FILENO && close(fd) < 0) {
		warn("'%s'", output);
		status = 1;
	}
	return status;
}
