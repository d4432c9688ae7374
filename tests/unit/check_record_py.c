/*
 * check_record_py.c: the CPython frame reader (sp-record/pystack.c) on
 * live processes of every CPython 3.8-3.13 under ~/.pyenv/versions (or
 * $PYENV_ROOT) and /usr/bin/python3, running tests/programs/py_frames.py.
 *
 * Each interpreter's threads are read 50 times while they run: every
 * frame read must be one of the script's functions, a fifth of the reads
 * must reach the module in an order the script can be in, and at most a
 * tenth be in another order (read across a change).  Then 5 times
 * while the process is stopped, when every read must be complete and
 * every caller's line the one marked "# at:NAME" in the script.  The
 * line table decoders must give every instruction of py_lines.py's code
 * objects the line CPython gives it.  Versions missing here are skipped,
 * and said so; a process that is not CPython or is too old, and a 3.13
 * self-description that is not 3.13's, must be refused with a reason;
 * reads outside the writable mappings or past the budget fail; threads
 * torn down while read (py_churn.py) never give a function not there.
 */
#include "tests/unit/ck.h"
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "sp-record/sys/maps.h"
#include "sp-record/python/pydecode.h"
#include "sp-record/python/pyfind.h"
#include "sp-record/python/pylayout.h"
#include "sp-record/python/pymem.h"
#include "sp-record/python/pystack.h"
#include "tests/unit/skip.h"

extern char **environ;

#define LIVE_READS 50
#define STOPPED_READS 5
#define MAX_TIDS 16

static Suite *py_suite(void);

/* The interpreters tried: pyenv's 3.N, then Debian's python3. */
static const char *const versions[] = { "3.8",  "3.9",  "3.10",  "3.11",
					"3.12", "3.13", "system" };
#define NVERSIONS (sizeof(versions) / sizeof(versions[0]))

/* tests/programs/py_frames.py under $SP_TOP or the working directory. */
static void
script_path(char out[PATH_MAX])
{
	const char *top = getenv("SP_TOP");
	char cwd[PATH_MAX - 64], path[PATH_MAX];

	if (!top)
		top = getcwd(cwd, sizeof(cwd));
	ck_assert_ptr_nonnull(top);
	snprintf(path, sizeof(path), "%s/tests/programs/py_frames.py", top);
	ck_assert_ptr_nonnull(realpath(path, out));
}

/* Finds the interpreter for versions[i] into `out`; false if missing. */
static bool
find_python(const char *v, char *out, size_t len)
{
	const char *root = getenv("PYENV_ROOT"), *home = getenv("HOME");
	char pat[PATH_MAX];
	glob_t g;
	bool ok;

	if (strcmp(v, "system") == 0) {
		snprintf(out, len, "/usr/bin/python3");
		return access(out, X_OK) == 0;
	}
	if (root)
		snprintf(pat, sizeof(pat), "%s/versions/%s.*/bin/python%s",
			 root, v, v);
	else
		snprintf(pat, sizeof(pat),
			 "%s/.pyenv/versions/%s.*/bin/python%s",
			 home ? home : "/root", v, v);
	if (glob(pat, 0, NULL, &g) != 0)
		return false;
	ok = g.gl_pathc > 0 && access(g.gl_pathv[g.gl_pathc - 1], X_OK) == 0;
	if (ok)
		snprintf(out, len, "%s", g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	return ok;
}

/* Whether [start, end) lies in one executable mapping of `pid`. */
static bool
in_code(pid_t pid, uint64_t start, uint64_t end)
{
	struct sp_buf text = SP_BUF_INIT;
	struct rec_maps_entry m;
	size_t pos = 0;
	bool in = false;

	ck_assert_int_eq(rec_maps_read(pid, &text), 0);
	while (rec_maps_next((const char *)text.data, text.len, &pos, &m,
			     NULL) == 1)
		if (m.perms[2] == 'x' && m.start <= start && end <= m.end)
			in = true;
	sp_buf_release(&text);
	return start < end && in;
}

/* A running workload: its pid, and its stdout to wait for "ready". */
struct workload {
	pid_t pid;
	FILE *out;
};

static bool
start(const char *python, const char *script, struct workload *w)
{
	char *argv[] = { (char *)python, (char *)script, NULL };
	posix_spawn_file_actions_t fa;
	char line[64];
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	ck_assert_int_eq(posix_spawn(&w->pid, python, &fa, NULL, argv, environ),
			 0);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	w->out = fdopen(p[0], "r");
	ck_assert_ptr_nonnull(w->out);
	return fgets(line, sizeof(line), w->out) &&
	       strcmp(line, "ready\n") == 0;
}

static void
stop_workload(struct workload *w)
{
	kill(w->pid, SIGKILL);
	waitpid(w->pid, NULL, 0);
	fclose(w->out);
}

/* The thread ids of `pid`, main first; returns how many. */
static size_t
tids_of(pid_t pid, int32_t *tids)
{
	char path[64];
	struct dirent *d;
	size_t n = 1;
	DIR *dir;

	tids[0] = pid;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	ck_assert_ptr_nonnull(dir);
	while ((d = readdir(dir)) != NULL && n < MAX_TIDS)
		if (d->d_name[0] != '.' && atoi(d->d_name) != pid)
			tids[n++] = atoi(d->d_name);
	closedir(dir);
	return n;
}

/* The line marked "# at:NAME" in the script; 0 if none (or two). */
static int
marked_line(const char *script, const char *name, int nth)
{
	char line[256], mark[80];
	FILE *f = fopen(script, "r");
	int n = 0, seen = 0;

	ck_assert_ptr_nonnull(f);
	snprintf(mark, sizeof(mark), "# at:%s\n", name);
	while (fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, mark) && seen++ == nth) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return 0;
}

/* One function of the script: its name before 3.11 and after. */
struct fn {
	const char *name, *qualname;
};

static const struct fn main_chain[] = {
	{ "<module>", "<module>" },
	{ "level1", "level1" },
	{ "level2", "level2" },
	{ "level3", "level3" },
	{ "spin", "Spinner.spin" },
	{ "recurse", "recurse" },
	{ "recurse", "recurse" },
	{ "recurse", "recurse" },
	{ "recurse", "recurse" },
	{ "gen_values", "gen_values" },
	{ "<lambda>", "gen_values.<locals>.<lambda>" },
};
static const struct fn worker_chain[] = {
	{ "worker", "worker" },
	{ "busy_thread", "busy_thread" },
	{ "caf\u00e9", "caf\u00e9" },
	{ "na\u00efve_\u51fd\u6570", "na\u00efve_\u51fd\u6570" },
};

/* Whether `name` is one of chain's functions. */
static bool
known(const char *name, const struct fn *chain, size_t nchain, bool qual)
{
	size_t i;

	for (i = 0; i < nchain; i++)
		if (strcmp(name, qual ? chain[i].qualname : chain[i].name) == 0)
			return true;
	return false;
}

/* Whether every frame is one of chain's functions, in the script. */
static bool
all_known(const struct rec_pystack_frame *f, size_t n, const struct fn *chain,
	  size_t nchain, bool qual, const char *script, char *bad, size_t blen)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!known(f[i].code->name, chain, nchain, qual) ||
		    strcmp(f[i].code->filename, script) != 0) {
			snprintf(bad, blen, "frame %s in %s", f[i].code->name,
				 f[i].code->filename);
			return false;
		}
	}
	return true;
}

/*
 * Whether frames f[n-1] (outermost) .. f[0] are a prefix of `chain`:
 * the only stacks the script has (any prefix is one: the script is
 * sometimes between calls).
 */
static bool
follows(const struct rec_pystack_frame *f, size_t n, const struct fn *chain,
	size_t nchain, bool qual, char *bad, size_t blen)
{
	size_t i;

	if (n > nchain) {
		snprintf(bad, blen, "%zu frames", n);
		return false;
	}
	for (i = 0; i < n; i++) {
		const char *want = qual ? chain[i].qualname : chain[i].name;

		if (strcmp(f[n - 1 - i].code->name, want) != 0) {
			snprintf(bad, blen, "frame %zu is %s, not %s", i,
				 f[n - 1 - i].code->name, want);
			return false;
		}
	}
	return true;
}

/* The callers' lines (every frame but the innermost) are the marked. */
static void
check_lines(const struct rec_pystack_frame *f, size_t n, const char *script,
	    unsigned minor)
{
	size_t i;

	for (i = 1; i < n; i++) {
		const char *name = f[i].code->name;
		/* the marks name methods as 3.11+ do */
		const char *qual =
		    strcmp(name, "spin") == 0 ? "Spinner.spin" : name;
		int a, b;

		a = marked_line(script, qual, 0);
		b = marked_line(script, qual, 1);
		ck_assert_msg(a > 0 && (f[i].line == a || f[i].line == b),
			      "python3.%u: %s at line %d, marked %d or %d",
			      minor, name, f[i].line, a, b);
	}
	/*
	 * The leaf spins near its start, or (stopped between a call's line
	 * and its frame, as a loaded machine shows) is at a marked call.
	 */
	if (n > 0) {
		const char *name = f[0].code->name;
		const char *qual =
		    strcmp(name, "spin") == 0 ? "Spinner.spin" : name;
		int line = f[0].line;

		ck_assert_msg(
		    (line >= f[0].code->firstlineno &&
		     line <= f[0].code->firstlineno + 10) ||
			(line > 0 && (line == marked_line(script, qual, 0) ||
				      line == marked_line(script, qual, 1))),
		    "python3.%u: leaf %s at line %d (starts %d)", minor, name,
		    line, f[0].code->firstlineno);
	}
}

/* What the reads of a workload found. */
struct tally {
	int complete; /* reached the outermost frame, in the script's order */
	int mixed;    /* reached it, out of order: read across a change */
};

/*
 * Reads every thread once.  Any frame not in the script fails; a stack
 * out of order is counted, and fails when `exact` (the process stopped),
 * as does a cut one.
 */
static void
read_all(struct rec_pystack *py, pid_t pid, const char *script, bool exact,
	 struct tally *tl)
{
	struct rec_pystack_frame f[REC_PYSTACK_MAX_DEPTH];
	unsigned minor = rec_pystack_minor(py);
	int32_t tids[MAX_TIDS];
	size_t ntids = tids_of(pid, tids), t;
	bool truncated, q = minor >= 11;
	char bad[256];
	int n;

	ck_assert_uint_ge(ntids, 2);
	for (t = 0; t < ntids; t++) {
		const struct fn *chain = t == 0 ? main_chain : worker_chain;
		size_t nchain = t == 0 ? sizeof(main_chain) / sizeof(*chain)
				       : sizeof(worker_chain) / sizeof(*chain);

		n = rec_pystack_read(py, tids[t], f, REC_PYSTACK_MAX_DEPTH,
				     &truncated);
		ck_assert_msg(n >= 0 || !exact, "python3.%u: tid %d: %s", minor,
			      tids[t], rec_pystack_why(py));
		if (n < 0)
			continue;
		ck_assert_msg(all_known(f, (size_t)n, chain, nchain, q, script,
					bad, sizeof(bad)),
			      "python3.%u: thread %zu: %s", minor, t, bad);
		if (truncated || n == 0) {
			ck_assert_msg(!exact,
				      "python3.%u: thread %zu: %d "
				      "frames%s",
				      minor, t, n, truncated ? ", cut" : "");
			continue;
		}
		if (follows(f, (size_t)n, chain, nchain, q, bad, sizeof(bad))) {
			tl->complete++;
		} else {
			ck_assert_msg(!exact, "python3.%u: thread %zu: %s",
				      minor, t, bad);
			tl->mixed++;
		}
		if (exact)
			check_lines(f, (size_t)n, script, minor);
	}
}

/* Stops `pid` and waits until every thread shows it. */
static void
stop_all(pid_t pid)
{
	int32_t tids[MAX_TIDS];
	size_t n, i, stopped = 0;
	char path[64], buf[512], *p;
	int tries;
	FILE *f;

	kill(pid, SIGSTOP);
	for (tries = 0; tries < 5000 && stopped == 0; tries++) {
		n = tids_of(pid, tids);
		for (i = 0, stopped = 1; i < n; i++) {
			snprintf(path, sizeof(path), "/proc/%d/task/%d/stat",
				 (int)pid, (int)tids[i]);
			f = fopen(path, "r");
			buf[0] = '\0';
			if (f && !fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			if (f)
				fclose(f);
			p = strrchr(buf, ')');
			if (!p || p[2] != 'T')
				stopped = 0;
		}
		if (!stopped)
			usleep(1000);
	}
	ck_assert_msg(stopped, "pid %d did not stop", (int)pid);
}

START_TEST(live_stacks)
{
	const char *v = versions[_i];
	char python[PATH_MAX], real[PATH_MAX];
	struct sp_buf why = SP_BUF_INIT;
	struct workload w;
	struct rec_pystack *py;
	struct tally live = { 0, 0 }, stopped = { 0, 0 };
	int i;

	if (!find_python(v, python, sizeof(python))) {
		unit_skip("python %s: not installed", v);
		return;
	}
	script_path(real);
	ck_assert_msg(start(python, real, &w), "%s did not start", python);
	py = rec_pystack_attach(NULL, w.pid, &why);
	ck_assert_msg(py, "%s: %s", python, why.data);
	ck_assert(in_code(w.pid, rec_pystack_target(py)->eval_start,
			  rec_pystack_target(py)->eval_end));
	for (i = 0; i < LIVE_READS; i++)
		read_all(py, w.pid, real, false, &live);
	printf("%s: python3.%u: of %d live reads, %d complete, %d mixed, "
	       "%" PRIu64 " given up; %" PRIu64 " bytes read\n",
	       python, rec_pystack_minor(py), 2 * LIVE_READS, live.complete,
	       live.mixed, rec_pystack_unstable(py),
	       rec_pystack_bytes_read(py));
	/*
	 * Two threads a read.  A running chain cuts reads that cross a
	 * call or return (a slow reader on a loaded machine crosses more),
	 * so only a fifth must be whole; a read across calls that left the
	 * innermost frame as it was (frame memory reused) can mix two
	 * moments' frames, which the reader cannot see: rare, not never,
	 * and more often the more the reader is preempted (12 of 100 seen
	 * with both CPUs busy).  sp-record reads this way only where the
	 * BPF program (pybpf.h) gave no stack.
	 */
	ck_assert_int_ge(live.complete, 2 * LIVE_READS / 5);
	ck_assert_int_le(live.mixed, 2 * LIVE_READS / 4);
	stop_all(w.pid);
	for (i = 0; i < STOPPED_READS; i++)
		read_all(py, w.pid, real, true, &stopped);
	ck_assert_int_eq(stopped.complete, 2 * STOPPED_READS);
	rec_pystack_free(py);
	stop_workload(&w);
	sp_buf_release(&why);
}
END_TEST

/* Parses a line of py_lines.py and checks every code unit's line. */
static int
check_code_lines(const char *python, unsigned minor, char *line)
{
	enum rec_pydecode_lines fmt = minor >= 11   ? REC_PY_LOCATIONS
				      : minor == 10 ? REC_PY_LINES310
						    : REC_PY_LNOTAB;
	char *save, *first = strtok_r(line, " \n", &save);
	char *hex = strtok_r(NULL, " \n", &save), *tok;
	uint8_t tab[65536];
	size_t n = 0, i;
	int32_t got;
	uint32_t at;

	ck_assert_ptr_nonnull(hex);
	for (i = 0; hex[0] != '-' && hex[i] && hex[i + 1]; i += 2) {
		ck_assert_uint_lt(n, sizeof(tab));
		ck_assert_int_eq(sscanf(hex + i, "%2hhx", &tab[n]), 1);
		n++;
	}
	for (at = 0; (tok = strtok_r(NULL, " \n", &save)) != NULL; at += 2) {
		got = rec_pydecode_line(fmt, tab, n, atoi(first), at);
		ck_assert_msg(got == atoi(tok),
			      "%s: code at line %s, offset %u: line %d, "
			      "CPython says %s",
			      python, first, at, got, tok);
	}
	return (int)at / 2;
}

/* The line tables decode as CPython does, every instruction of them. */
START_TEST(line_tables)
{
	char python[PATH_MAX], real[PATH_MAX], dir[PATH_MAX], cmd[4 * PATH_MAX];
	unsigned minor = 0;
	int codes = 0, units = 0;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;

	if (!find_python(versions[_i], python, sizeof(python))) {
		unit_skip("python %s: not installed", versions[_i]);
		return;
	}
	script_path(real);
	snprintf(dir, sizeof(dir), "%s", real);
	*strrchr(dir, '/') = '\0';
	snprintf(cmd, sizeof(cmd), "'%s' '%s/py_lines.py' '%s'", python, dir,
		 real);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_gt(getline(&line, &cap, f), 0);
	ck_assert_int_eq(sscanf(line, "minor %u", &minor), 1);
	while (getline(&line, &cap, f) > 0) {
		units += check_code_lines(python, minor, line);
		codes++;
	}
	free(line);
	ck_assert_int_eq(pclose(f), 0);
	ck_assert_int_gt(codes, 20);
	printf("%s: %d code objects, %d code units: lines as CPython's\n",
	       python, codes, units);
}
END_TEST

/*
 * Threads that end while their states and frames are read: reads may
 * fail or be cut, but never name a function the script does not have.
 */
START_TEST(churning_threads)
{
	static const struct fn churn[] = {
		{ "<module>", "<module>" },
		{ "spawn_loop", "spawn_loop" },
		{ "short_lived", "short_lived" },
		{ "inner", "inner" },
	};
	char python[PATH_MAX], script[PATH_MAX], *slash;
	struct rec_pystack_frame f[REC_PYSTACK_MAX_DEPTH];
	struct sp_buf why = SP_BUF_INIT;
	int32_t tids[MAX_TIDS];
	int i, n, read = 0;
	struct workload w;
	struct rec_pystack *py;
	bool truncated;
	char bad[256];
	size_t t, nt;

	if (!find_python(versions[_i], python, sizeof(python))) {
		unit_skip("python %s: not installed", versions[_i]);
		return;
	}
	script_path(script);
	slash = strrchr(script, '/');
	snprintf(slash + 1, sizeof(script) - (size_t)(slash + 1 - script),
		 "py_churn.py");
	ck_assert_msg(start(python, script, &w), "%s did not start", python);
	py = rec_pystack_attach(NULL, w.pid, &why);
	ck_assert_msg(py, "%s: %s", python, why.data);
	/* Until 50 reads stood: most fall on a thread being torn down. */
	for (i = 0; i < 20000 && read < 50; i++) {
		nt = tids_of(w.pid, tids);
		for (t = 0; t < nt; t++) {
			n = rec_pystack_read(py, tids[t], f,
					     REC_PYSTACK_MAX_DEPTH, &truncated);
			if (n <= 0)
				continue;
			read++;
			ck_assert_msg(all_known(f, (size_t)n, churn, 4,
						rec_pystack_minor(py) >= 11,
						script, bad, sizeof(bad)),
				      "%s: %s", python, bad);
		}
	}
	ck_assert_int_gt(read, 0);
	rec_pystack_free(py);
	stop_workload(&w);
	sp_buf_release(&why);
}
END_TEST

/* A process that is no CPython, and one too old, are refused. */
START_TEST(refusals)
{
	struct sp_buf why = SP_BUF_INIT;
	char python[PATH_MAX], script[PATH_MAX];
	struct workload w;

	errno = 0;
	ck_assert_ptr_null(rec_pystack_attach(NULL, getpid(), &why));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_str_eq((char *)why.data, "not CPython");
	if (!find_python("3.7", python, sizeof(python))) {
		unit_skip("python 3.7: not installed (refusal untested)");
		sp_buf_release(&why);
		return;
	}
	script_path(script);
	ck_assert(start(python, script, &w));
	sp_buf_reset(&why);
	ck_assert_ptr_null(rec_pystack_attach(NULL, w.pid, &why));
	ck_assert_int_eq(errno, ENOTSUP);
	ck_assert_str_eq((char *)why.data, "python3.7: not supported");
	stop_workload(&w);
	sp_buf_release(&why);
}
END_TEST

/* 3.13's self-description: refused unless it is 3.13's, with reasons. */
START_TEST(debug_offsets)
{
	uint8_t raw[REC_PYLAYOUT_DEBUG_SIZE];
	struct sp_buf why = SP_BUF_INIT;
	struct rec_pylayout l;
	uint64_t v;

	memset(raw, 0, sizeof(raw));
	ck_assert_int_eq(rec_pylayout_debug(raw, sizeof(raw), &l, &why),
			 -EBADMSG);
	memcpy(raw, "xdebugpy", 8);
	v = 0x030e00a1; /* 3.14.0a1 */
	memcpy(raw + 8, &v, 8);
	sp_buf_reset(&why);
	ck_assert_int_eq(rec_pylayout_debug(raw, sizeof(raw), &l, &why),
			 -ENOTSUP);
	ck_assert_str_eq((char *)why.data, "python3.14: layout unknown");
	v = 0x030d00f0; /* 3.13.0, free-threaded */
	memcpy(raw + 8, &v, 8);
	v = 1;
	memcpy(raw + 16, &v, 8);
	sp_buf_reset(&why);
	ck_assert_int_eq(rec_pylayout_debug(raw, sizeof(raw), &l, &why),
			 -ENOTSUP);
	v = 0;
	memcpy(raw + 16, &v, 8);
	v = 1 << 20; /* a wild offset */
	memcpy(raw + 8 * 5, &v, 8);
	sp_buf_reset(&why);
	ck_assert_int_eq(rec_pylayout_debug(raw, sizeof(raw), &l, &why),
			 -EBADMSG);
	ck_assert_int_eq(rec_pylayout_table(7, &l), -ENOTSUP);
	ck_assert_int_eq(rec_pylayout_table(13, &l), -ENOTSUP);
	sp_buf_release(&why);
}
END_TEST

START_TEST(module_names)
{
	static const struct {
		const char *path;
		int minor;
	} t[] = {
		{ "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0", 11 },
		{ "/root/.pyenv/versions/3.8.18/bin/python3.8", 8 },
		{ "/opt/libpython3.7m.so", 7 },
		{ "python3.13t", 13 },
		{ "/usr/bin/python3", -1 },
		{ "/usr/bin/python2.7", -1 },
		{ "/x/python3.11/bin/sleep", -1 },
		{ "python3.", -1 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_msg(rec_pyfind_name_minor(
				  t[i].path, strlen(t[i].path)) == t[i].minor,
			      "%s", t[i].path);
}
END_TEST

/*
 * Reads outside the writable mappings and past the budget are refused;
 * a page read once serves the sample's later reads in it.
 */
START_TEST(bounded_reads)
{
	static uint64_t data[64] = { 42, 43, 44 };
	struct rec_pymem_block b[3];
	uint64_t v[64];
	struct rec_pymem m;
	size_t i;

	ck_assert_int_eq(rec_pymem_init(&m, getpid()), 0);
	rec_pymem_begin(&m, REC_PYMEM_PAGE + 24);
	ck_assert_int_eq(rec_pymem_read(&m, (uintptr_t)data, v, 8), 0);
	ck_assert_uint_eq(v[0], 42);
	data[0] = 41; /* the page kept still says 42 */
	ck_assert_int_eq(rec_pymem_read(&m, (uintptr_t)data, v, 8), 0);
	ck_assert_uint_eq(v[0], 42);
	ck_assert_int_eq(rec_pymem_read_now(&m, (uintptr_t)data, v, 16), 0);
	ck_assert_uint_eq(v[0], 41);
	ck_assert_int_eq(rec_pymem_read_now(&m, (uintptr_t)data, v, 16),
			 -E2BIG);
	rec_pymem_begin(&m, 2 * REC_PYMEM_PAGE);
	ck_assert_int_eq(rec_pymem_read(&m, (uintptr_t)&py_suite, v, 8),
			 -EFAULT); /* code is not writable */
	ck_assert_int_eq(rec_pymem_read(&m, 8, v, 8), -EFAULT);
	rec_pymem_begin(&m, 24);
	for (i = 0; i < 3; i++)
		b[i] = (struct rec_pymem_block){ 0, &v[i], 8, false };
	b[0].addr = (uintptr_t)&data[2];
	b[1].addr = 8;
	b[2].addr = (uintptr_t)&data[1];
	ck_assert_int_eq(rec_pymem_readv(&m, b, 3), 0);
	ck_assert(b[0].ok && !b[1].ok && b[2].ok);
	ck_assert_uint_eq(v[0], 44);
	ck_assert_uint_eq(v[2], 43);
	ck_assert_int_eq(rec_pymem_readv(&m, b, 3), -E2BIG);
	ck_assert(!b[0].ok && !b[2].ok);
	rec_pymem_release(&m);
}
END_TEST

/*
 * In a process of many mappings (4,000 here), an address that misses
 * them has them read again only once enough samples went by (one a
 * REC_PYMEM_MAPS_TICK bytes of them) or they changed; and once a
 * sample at most.  Each miss is counted as a fault.
 */
START_TEST(maps_rereads)
{
	size_t n = 4000, page = REC_PYMEM_PAGE, i, allow;
	uint8_t *cut, *late;
	struct rec_pymem m;
	uint64_t v = 0;

	cut = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	late = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(cut != MAP_FAILED && late != MAP_FAILED);
	for (i = 0; i < n; i += 2)
		ck_assert_int_eq(mprotect(cut + i * page, page, PROT_READ), 0);
	ck_assert_int_eq(rec_pymem_init(&m, getpid()), 0);
	allow = m.maps_len / REC_PYMEM_MAPS_TICK;
	ck_assert_uint_ge(allow, 4);
	/* writable from now on: a heap grown without an event */
	ck_assert_int_eq(mprotect(late, page, PROT_READ | PROT_WRITE), 0);
	late[0] = 7;
	for (i = 0; i < allow; i++, rec_pymem_tick(&m)) {
		rec_pymem_begin(&m, page);
		ck_assert_int_eq(rec_pymem_read(&m, (uintptr_t)late, &v, 1),
				 -EFAULT);
	}
	ck_assert_uint_eq(m.maps_reads, 1);
	rec_pymem_begin(&m, page);
	ck_assert_int_eq(rec_pymem_read(&m, (uintptr_t)late, &v, 1), 0);
	ck_assert_uint_eq(v, 7);
	ck_assert_uint_eq(m.maps_reads, 2);
	/* a pointer to nowhere, sample after sample: no reread */
	for (i = 0; i < allow; i++, rec_pymem_tick(&m)) {
		rec_pymem_begin(&m, page);
		ck_assert_int_eq(rec_pymem_read(&m, 16, &v, 8), -EFAULT);
	}
	ck_assert_uint_eq(m.maps_reads, 2);
	ck_assert_uint_eq(m.faults, 2 * allow);
	rec_pymem_changed(&m);
	rec_pymem_begin(&m, page);
	ck_assert_int_eq(rec_pymem_read(&m, 16, &v, 8), -EFAULT);
	ck_assert_int_eq(rec_pymem_read(&m, 24, &v, 8), -EFAULT);
	ck_assert_uint_eq(m.maps_reads, 3);
	rec_pymem_release(&m);
	munmap(late, page);
	munmap(cut, n * page);
}
END_TEST

static Suite *
py_suite(void)
{
	Suite *s = suite_create("record_py");
	TCase *tc = tcase_create("live");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, live_stacks, 0, NVERSIONS);
	tcase_add_test(tc, refusals);
	tcase_add_loop_test(tc, churning_threads, 0, NVERSIONS);
	suite_add_tcase(s, tc);
	tc = tcase_create("parts");
	tcase_add_test(tc, debug_offsets);
	tcase_add_test(tc, module_names);
	tcase_add_test(tc, bounded_reads);
	tcase_add_test(tc, maps_rereads);
	suite_add_tcase(s, tc);
	tc = tcase_create("lines");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, line_tables, 0, NVERSIONS);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(srunner_create(py_suite()));
}
