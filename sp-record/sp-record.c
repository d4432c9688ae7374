/*
 * sp-record: samples the call stacks of running processes with
 * perf_event_open(2) (or, with --ptrace, by interrupting their threads)
 * and writes them as a SPULSE1 spool (sp-spool(5)).  docs/sp-record.1
 * describes the options, args.c reads their values; recorder.c does the
 * work.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "sp-record/args.h"
#include "sp-record/capture/capdir.h"
#include "sp-record/unwind/deepstack.h"
#include "sp-record/sys/proc.h"
#include "sp-record/ptrace/ptrace.h"
#include "sp-record/recorder.h"
#include "sp-record/sys/stopreq.h"
#include "sp-record/sys/sysctl.h"
#include "sp-record/unwind/unwind.h"
#include "common/heap.h"
#include "common/version.h"
#include "common/pyruntime.h"
#include "common/banned.h"

#define DEFAULT_FREQ 999
#define DEFAULT_STACK_SIZE 32768
/*
 * The longest wait for the rings: a mapping read this soon after it is
 * made still has its process alive to pin its file (filepin.h), for
 * processes that live a few tens of milliseconds; a wake costs some
 * microseconds.
 */
#define STEP_MS 10

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

/* What to record: exactly one of -p, -t, -a (with or without a command)
 * and a command; -C and -u only with -a. */
static void
check_scope(const struct rec_config *cfg, size_t npids, size_t ntids, int argc)
{
	int modes = (npids > 0) + (ntids > 0) + cfg->system_wide;

	if (modes > 1 || (argc && (npids || ntids))) {
		warnx("-p, -t, -a and a command: one of them (a command may "
		      "go with -a)");
		rec_args_usage();
	}
	if (!modes && !argc) {
		warnx("nothing to record: give -p PID, -t TID, -a or a "
		      "command");
		rec_args_usage();
	}
	if ((cfg->cpu_list || cfg->only_uid) && !cfg->system_wide) {
		warnx("-C and -u go with -a");
		rec_args_usage();
	}
	if (cfg->ptrace && (cfg->system_wide || ntids)) {
		warnx("--ptrace records one process: no -a, no -t");
		rec_args_usage();
	}
}

/* --capture-dir: refused in a system directory unless forced. */
static void
check_capture_dir(const struct rec_config *cfg, bool force)
{
	char why[PATH_MAX + 64];

	if (!cfg->capture_dir || force || cfg->capture == REC_CAPTURE_OFF ||
	    !rec_capdir_check(cfg->capture_dir, why, sizeof(why)))
		return;
	warnx("--capture-dir '%s' is %s: give a directory of your own, or "
	      "--capture-dir-force",
	      cfg->capture_dir, why);
	rec_args_usage();
}

/*
 * --off-cpu: CPU samples in time (cpu-clock unless -e gives a clock), and
 * last the off-cpu event with context-switch records.
 */
static void
off_cpu_options(struct rec_config *cfg)
{
	struct rec_events_opts *o = &cfg->ev;
	size_t i;

	if (cfg->ptrace) {
		warnx("--off-cpu needs perf events, not --ptrace");
		rec_args_usage();
	}
	if (!o->source_explicit)
		rec_evname_cpu_clock(&o->events[0]);
	for (i = 0; i < o->nevents; i++)
		if (!o->events[i].is_time || o->period) {
			warnx("--off-cpu goes with time: -e cpu-clock or "
			      "task-clock, no -c");
			rec_args_usage();
		}
	if (o->nevents == REC_EVENTS_MAX) {
		warnx("at most %d events with --off-cpu", REC_EVENTS_MAX - 1);
		rec_args_usage();
	}
	rec_evname_off_cpu(&o->events[o->nevents++]);
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
end_child(struct rec_recorder *r)
{
	pid_t pid = rec_recorder_child(r);
	int i;

	if (pid <= 0 || rec_recorder_reap(r, false, NULL))
		return false;
	kill(pid, SIGTERM);
	kill(pid, SIGCONT); /* a stopped command would hold the SIGTERM */
	for (i = 0; i < 100; i++) {
		if (rec_recorder_reap(r, false, NULL))
			return true;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	rec_recorder_reap(r, true, NULL);
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
 * Whether the targets run Python, as far as their names tell: their
 * samples are then read at once (wake_each), so that their Python
 * stacks are read close to the sample.  Never with -a: every CPU's ring
 * would wake for every sample.
 */
static bool
python_target(const struct rec_config *cfg, const char *cmd,
	      const int32_t *pids, size_t npids)
{
	size_t i;

	if (cfg->no_python || cfg->system_wide || cfg->ptrace)
		return false;
	if (cmd)
		return sp_pyruntime_path(cmd, strlen(cmd));
	for (i = 0; i < npids; i++)
		if (rec_proc_exe_python(pids[i]))
			return true;
	return false;
}

/*
 * Whether Python's perf trampolines (3.12+ -X perf or perf_jit, or the
 * environment's PYTHONPERFSUPPORT or PYTHON_PERF_JIT_SUPPORT; a perf map
 * for a process attached to) run in the targets: the unwinder reads their
 * code from the process, so their samples must be read before the
 * process ends, at once.
 */
static bool
perf_trampolines(char **argv, int argc, const int32_t *pids, size_t npids)
{
	char path[64];
	int i;

	if (getenv("PYTHONPERFSUPPORT") || getenv("PYTHON_PERF_JIT_SUPPORT"))
		return true;
	for (i = 1; i < argc; i++)
		if (strncmp(argv[i], "-Xperf", 6) == 0 ||
		    (strcmp(argv[i], "-X") == 0 && i + 1 < argc &&
		     strncmp(argv[i + 1], "perf", 4) == 0))
			return true;
	for (i = 0; (size_t)i < npids; i++) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pids[i]);
		if (access(path, F_OK) == 0)
			return true;
	}
	return false;
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
 * --ptrace samples one process and its threads, with DWARF unwinding of
 * the copied stacks; children and kernel frames are out of its reach.
 */
static void
ptrace_options(struct rec_config *cfg, size_t npids)
{
	if (npids > 1) {
		warnx("--ptrace records one process");
		rec_args_usage();
	}
	if ((cfg->ev.source_explicit &&
	     (cfg->ev.nevents > 1 || !cfg->ev.events[0].is_time)) ||
	    cfg->ev.period) {
		warnx("--ptrace samples time only: one -e cpu-clock or "
		      "task-clock at most, no -c");
		rec_args_usage();
	}
	if (cfg->ev.freq > REC_PTRACE_MAX_HZ) {
		warnx("invalid frequency '%llu' for --ptrace: at most %d "
		      "samples a second",
		      (unsigned long long)cfg->ev.freq, REC_PTRACE_MAX_HZ);
		rec_args_usage();
	}
	if (cfg->follow || cfg->ev.kernel)
		warnx("--ptrace records neither children (-f) nor kernel "
		      "frames (-k)");
	cfg->follow = false;
	cfg->ev.kernel = false;
	cfg->callgraph = REC_CG_DWARF;
}

/*
 * Whether a full-screen program (sp-fold --live down the pipe) has the
 * terminal: it turns line editing off, which a shell running a pipeline
 * never does, and a status line drawn there would land on its view.
 */
static bool
terminal_taken(int fd)
{
	struct termios t;

	return tcgetattr(fd, &t) == 0 && !(t.c_lflag & ICANON);
}

/*
 * Waits, while a full-screen view down the pipe has the terminal, until
 * it gives the terminal back (its q), so that the summary lands on the
 * shell's screen and not on the view's, which vanishes with it.  The
 * spool's end reaches the view first: standard output is let go.  A
 * signal ends the wait after a moment for the view to leave; ten minutes
 * end it in any case.
 */
static void
wait_for_terminal(const struct rec_config *cfg)
{
	int i, fd, after_signal = 0;

	if (!cfg->spool_on_stdout || !isatty(STDERR_FILENO) ||
	    !terminal_taken(STDERR_FILENO))
		return;
	/* /dev/null, not a closed descriptor a later open() would reuse. */
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		return;
	close(fd);
	for (i = 0; i < 6000 && terminal_taken(STDERR_FILENO); i++) {
		if (rec_stopreq_signal && ++after_signal > 5)
			break;
		usleep(100000);
	}
}

/*
 * Records until the duration ends, a signal comes, every target exited or
 * the output failed; returns sp-record's exit status.
 */
static int
record(struct rec_recorder *r, const struct rec_config *cfg, double duration)
{
	double start = now_s(), left, elapsed, shown = start;
	bool status_line = !cfg->quiet && isatty(STDERR_FILENO), drawn = false;
	int status, wst;
	bool killed;

	rec_stopreq_child(rec_recorder_child(r));
	if (duration > 0)
		rec_stopreq_deadline(duration);
	if (cfg->ptrace)
		rec_recorder_ptrace_run(r, duration, &rec_stopreq_signal);
	while (!cfg->ptrace && !rec_stopreq_signal &&
	       !rec_recorder_targets_gone(r) && !rec_recorder_failed(r)) {
		left = duration > 0 ? duration - (now_s() - start) : 1;
		if (left <= 0)
			break;
		rec_recorder_step(r, left * 1000 < STEP_MS
					 ? (int)(left * 1000) + 1
					 : STEP_MS);
		if (status_line && now_s() - shown >= 1) {
			shown = now_s();
			drawn = !terminal_taken(STDERR_FILENO);
			if (drawn)
				rec_recorder_status_line(r, stderr,
							 shown - start);
		}
	}
	if (drawn)
		rec_recorder_status_clear(stderr);
	elapsed = now_s() - start;
	rec_stopreq_disarm();
	status = rec_recorder_stop(r) ? 1 : 0;
	killed = end_child(r);
	wait_for_terminal(cfg);
	if (rec_stopreq_signal)
		warnx("stopped by signal %d", (int)rec_stopreq_signal);
	rec_recorder_summary(r, stderr, elapsed);
	if (status == 0 && rec_recorder_reap(r, false, &wst) && !killed)
		status = child_exit_status(wst);
	else if (status == 0 && killed && rec_stopreq_signal)
		status = 128 + rec_stopreq_signal;
	return status;
}

/* Long options without a letter. */
enum {
	OPT_CAPTURE = 256,
	OPT_CAPTURE_DIR,
	OPT_CAPTURE_DIR_FORCE,
	OPT_CAPTURE_MAX_FILE,
	OPT_CAPTURE_MAX_TOTAL,
	OPT_CAPTURE_MAX_TREE,
	OPT_NO_BPF,
	OPT_NO_CAPTURE,
	OPT_STACK_READ,
};

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "capture", required_argument, NULL, OPT_CAPTURE },
		{ "capture-dir", required_argument, NULL, OPT_CAPTURE_DIR },
		{ "capture-dir-force", no_argument, NULL,
		  OPT_CAPTURE_DIR_FORCE },
		{ "capture-max-file", required_argument, NULL,
		  OPT_CAPTURE_MAX_FILE },
		{ "capture-max-total", required_argument, NULL,
		  OPT_CAPTURE_MAX_TOTAL },
		{ "capture-max-tree", required_argument, NULL,
		  OPT_CAPTURE_MAX_TREE },
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
		{ "no-bpf", no_argument, NULL, OPT_NO_BPF },
		{ "no-capture", no_argument, NULL, OPT_NO_CAPTURE },
		{ "no-python", no_argument, NULL, 'N' },
		{ "off-cpu", no_argument, NULL, 'O' },
		{ "off-cpu-min", required_argument, NULL, 'M' },
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "ptrace", no_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "stack-read", required_argument, NULL, OPT_STACK_READ },
		{ "stack-size", required_argument, NULL, 'S' },
		{ "tid", required_argument, NULL, 't' },
		{ "uid", required_argument, NULL, 'u' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct rec_config cfg;
	struct rec_recorder *r;
	const char *output = NULL;
	int32_t *pids = NULL, *tids = NULL;
	size_t npids = 0, ntids = 0;
	double duration = 0;
	int ch, status, fd;
	bool freq_max = false, capture_dir_force = false;

	/*
	 * Its sorter's events, intern tables and per-process state come and
	 * go with the processes it follows: kept, not given back and
	 * faulted in again.
	 */
	sp_heap_tune(8 << 20);
	memset(&cfg, 0, sizeof(cfg));
	cfg.ev.freq = DEFAULT_FREQ;
	cfg.ev.stack_size = DEFAULT_STACK_SIZE;
	cfg.stack_read = REC_DEEPSTACK_BUDGET;
	cfg.ev.regs_mask = REC_UNWIND_REGS_MASK;
	cfg.callgraph = REC_CG_DWARF;
	argv[0] = (char *)"sp-record"; /* getopt's messages name the tool */
	while ((ch = getopt_long(argc, argv, "+aC:c:d:e:F:fg:hklm:o:p:qt:u:",
				 longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			duration = rec_args_duration(optarg);
			break;
		case OPT_CAPTURE:
			cfg.capture = rec_args_capture(optarg);
			break;
		case OPT_CAPTURE_DIR:
			cfg.capture_dir = optarg;
			break;
		case OPT_CAPTURE_DIR_FORCE:
			capture_dir_force = true;
			break;
		case OPT_CAPTURE_MAX_FILE:
			cfg.capture_max_file =
			    rec_args_size(optarg, "--capture-max-file");
			break;
		case OPT_CAPTURE_MAX_TOTAL:
			cfg.capture_max_total =
			    rec_args_size(optarg, "--capture-max-total");
			break;
		case OPT_CAPTURE_MAX_TREE:
			cfg.capture_max_tree =
			    rec_args_size(optarg, "--capture-max-tree");
			break;
		case OPT_NO_BPF:
			cfg.no_bpf = true;
			break;
		case OPT_NO_CAPTURE:
			cfg.capture = REC_CAPTURE_OFF;
			break;
		case 'a':
			cfg.system_wide = true;
			break;
		case 'C':
			cfg.cpu_list = rec_args_cpus(optarg);
			break;
		case 'c':
			cfg.ev.period =
			    rec_args_number(optarg, "period", UINT64_MAX);
			break;
		case 'e':
			rec_args_event(optarg, &cfg.ev);
			break;
		case 'F':
			freq_max = strcmp(optarg, "max") == 0;
			if (!freq_max)
				cfg.ev.freq = rec_args_number(
				    optarg, "frequency", 10000000);
			break;
		case 'f':
			cfg.follow = true;
			break;
		case 'g':
			cfg.callgraph = rec_args_callgraph(optarg);
			break;
		case 'k':
			cfg.ev.kernel = true;
			break;
		case 'l':
			return rec_evname_list(stdout) < 0;
		case 'm':
			cfg.ev.pages = rec_args_pages(optarg);
			break;
		case 'N':
			cfg.no_python = true;
			break;
		case 'O':
			cfg.off_cpu = true;
			break;
		case 'M':
			cfg.off_cpu_min_ns =
			    rec_args_number(optarg, "--off-cpu-min", 60000000) *
			    1000;
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
			rec_args_add_pids(optarg, &pids, &npids);
			break;
		case 'S':
			cfg.ev.stack_size = rec_args_stack_size(optarg);
			break;
		case OPT_STACK_READ:
			cfg.stack_read = rec_args_stack_read(optarg);
			break;
		case 't':
			rec_args_add_pids(optarg, &tids, &ntids);
			break;
		case 'u':
			cfg.only_uid = true;
			cfg.uid = rec_args_user(optarg);
			break;
		case 'h':
			rec_args_help();
		case 'V':
			printf("sp-record %s\n", sp_version());
			return 0;
		default:
			rec_args_usage();
		}
	}
	argc -= optind;
	argv += optind;
	rec_args_unique_ids(pids, &npids);
	rec_args_unique_ids(tids, &ntids);
	check_scope(&cfg, npids, ntids, argc);
	check_capture_dir(&cfg, capture_dir_force);
	if (cfg.ev.nevents == 0) {
		rec_evname_default(&cfg.ev.events[0]);
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
	cfg.ev.wake_each =
	    python_target(&cfg, argc ? argv[0] : NULL, pids, npids);
	cfg.py_trampolines =
	    cfg.ev.wake_each && perf_trampolines(argv, argc, pids, npids);
	if (cfg.ev.pages == 0)
		cfg.ev.pages = rec_events_default_pages(
		    &cfg.ev, sysconf(_SC_NPROCESSORS_ONLN),
		    sysconf(_SC_PAGESIZE));

	fd = open_output(output, &cfg);
	raise_fd_limit();
	rec_stopreq_install();
	r = rec_recorder_new(&cfg, fd);
	if (!r)
		return 1;
	if (cfg.ptrace)
		status = rec_recorder_ptrace_start(r, argc ? argv : NULL,
						   npids ? pids[0] : 0);
	else if (cfg.system_wide)
		status = rec_recorder_system_wide(r, argc ? argv : NULL);
	else if (ntids)
		status = rec_recorder_attach_threads(r, tids, ntids);
	else
		status = argc ? rec_recorder_launch(r, argv)
			      : rec_recorder_attach(r, pids, npids);
	free(pids);
	free(tids);
	if (status == 0)
		status = record(r, &cfg, duration);
	else if (output)
		drop_empty_output(fd, output);
	rec_recorder_free(r);
	if (fd != STDOUT_FILENO && close(fd) < 0) {
		warn("'%s'", output);
		status = 1;
	}
	return status;
}
