/*
 * check_record_recorder.c: the recorder's handling of perf records,
 * driven with crafted records (no perf events) and checked on the spool
 * it writes: records queued out of order come out in time order so
 * modules precede their samples; exec starts a new module epoch; fork
 * clones the parent's modules under -f and not without; a reused pid
 * retires the old process first; a leader's exit does not end its
 * process; threads are named after their creator; losses are counted.
 */
#include "tests/unit/ck.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/ext.h"
#include "common/spool.h"
#include "sp-record/recorder.h"

/* Pids above pid_max: nothing in /proc answers for them. */
#define P 5000001
#define C 5000002
#define T 5000003

static struct rec_recorder *r;
static int fd;
static char trace[256][160];
static int ntrace;
static uint64_t w[256]; /* the record being built, u64 words */
static size_t nw;

static void
start(bool follow)
{
	struct rec_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	rec_evname_cpu_clock(&cfg.ev.events[0]);
	cfg.ev.nevents = 1;
	cfg.ev.freq = 999;
	cfg.ev.pages = 8;
	cfg.callgraph = REC_CG_FP;
	cfg.follow = follow;
	cfg.output_name = "memfd";
	fd = memfd_create("spool", 0);
	ck_assert_int_ge(fd, 0);
	r = rec_recorder_new(&cfg, fd);
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(rec_recorder_sample_type(r) & PERF_SAMPLE_TIME,
			  PERF_SAMPLE_TIME);
	ck_assert_int_eq(rec_recorder_track(r, P), 0);
}

static void
put(uint64_t v)
{
	ck_assert_uint_lt(nw, 256);
	w[nw++] = v;
}

static void
put2(uint32_t lo, uint32_t hi)
{
	put((uint64_t)hi << 32 | lo);
}

static void
put_str(const char *s)
{
	size_t len = strlen(s) + 1, words = (len + 7) / 8;

	memset(&w[nw], 0, words * 8);
	memcpy(&w[nw], s, len);
	nw += words;
}

/* Adds the sample_id trailer (TID, TIME, CPU) and queues the record. */
static void
inject(uint32_t type, uint16_t misc, uint32_t pid, uint32_t tid, uint64_t ts)
{
	struct perf_event_header h;

	if (type != PERF_RECORD_SAMPLE) {
		put2(pid, tid);
		put(ts);
		put2(0, 0);
	}
	h.type = type;
	h.misc = misc;
	h.size = (uint16_t)(nw * 8);
	memcpy(&w[0], &h, sizeof(h));
	ck_assert_int_eq(rec_recorder_inject(r, w, nw * 8), 0);
	nw = 1;
}

static void
mmap2(uint32_t pid, uint64_t ts, uint64_t addr, uint64_t len, const char *path)
{
	nw = 1;
	put2(pid, pid);
	put(addr);
	put(len);
	put(0); /* pgoff */
	put2(8, 1);
	put(1234); /* inode */
	put(0);
	put2(5, 2); /* PROT_READ | PROT_EXEC */
	put_str(path);
	inject(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, pid, pid, ts);
}

static void
comm(uint32_t pid, uint32_t tid, uint64_t ts, const char *name, bool exec)
{
	nw = 1;
	put2(pid, tid);
	put_str(name);
	inject(PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, pid,
	       tid, ts);
}

static void
task(uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
     uint64_t ts)
{
	nw = 1;
	put2(pid, ppid);
	put2(tid, ptid);
	put(ts);
	inject(type, 0, pid, tid, ts);
}

static void
sample(uint32_t pid, uint32_t tid, uint64_t ts, uint64_t ip)
{
	nw = 1;
	put(ip);
	put2(pid, tid);
	put(ts);
	put2(0, 0); /* cpu */
	put(1000);  /* period */
	put(3);
	put((uint64_t)PERF_CONTEXT_USER);
	put(ip);
	put(ip + 0x101); /* a return address */
	inject(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, pid, tid, ts);
}

/* A sample taken in the kernel whose callchain had nothing to give. */
static void
kernel_sample(uint32_t pid, uint32_t tid, uint64_t ts, uint64_t ip)
{
	nw = 1;
	put(ip);
	put2(pid, tid);
	put(ts);
	put2(0, 0); /* cpu */
	put(1000);  /* period */
	put(0);     /* an empty callchain */
	inject(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, pid, tid, ts);
}

static void
lost(uint64_t ts, uint64_t n)
{
	nw = 1;
	put(1);
	put(n);
	inject(PERF_RECORD_LOST, 0, 0, 0, ts);
}

static void
add(const char *fmt, ...)
{
	va_list ap;

	ck_assert_int_lt(ntrace, 256);
	va_start(ap, fmt);
	vsnprintf(trace[ntrace++], sizeof(trace[0]), fmt, ap);
	va_end(ap);
}

/* The path of the leaf frame's module, or "-". */
static const char *
leaf_module(struct sp_spool_reader *rd, uint32_t stack)
{
	const struct sp_module *m;
	const struct sp_frame *f;
	uint32_t prefix, frame;

	if (!sp_spool_reader_stack(rd, stack, &prefix, &frame))
		return "?";
	f = sp_spool_reader_frame(rd, frame);
	if (!f || f->module_id == SP_NONE)
		return "-";
	m = sp_spool_reader_module(rd, f->module_id);
	return m ? m->path : "?";
}

/* One trace line per counter: "stats KEY=VALUE". */
static void
stats(const struct sp_spool_record *rec)
{
	struct sp_ext_iter it = { rec->u.ext.data,
				  rec->u.ext.data + rec->u.ext.len };
	const char *key;
	size_t klen;
	uint64_t v;

	while (sp_ext_counter_next(&it, &key, &klen, &v) == 1)
		add("stats %.*s=%llu", (int)klen, key, (unsigned long long)v);
}

static void
ext(const struct sp_spool_record *rec)
{
	struct sp_ext_comm c;
	struct sp_ext_exit x;
	struct sp_ext_lost l;

	if (rec->tag == SP_EXT_COMM &&
	    sp_ext_comm_decode(rec->u.ext.data, rec->u.ext.len, &c) == 0)
		add("comm %d %llu %s %.*s", c.pid, (unsigned long long)c.tid,
		    c.is_exec ? "exec" : "name", (int)c.name_len, c.name);
	else if (rec->tag == SP_EXT_EXIT &&
		 sp_ext_exit_decode(rec->u.ext.data, rec->u.ext.len, &x) == 0)
		add("exit %d %llu", x.pid, (unsigned long long)x.tid);
	else if (rec->tag == SP_EXT_LOST &&
		 sp_ext_lost_decode(rec->u.ext.data, rec->u.ext.len, &l) == 0)
		add("lost %llu", (unsigned long long)l.count);
	else if (rec->tag == SP_EXT_STATS)
		stats(rec);
}

/* Stops the recorder and turns its spool into trace lines. */
static void
finish(void)
{
	struct sp_spool_reader *rd;
	struct sp_spool_record rec;
	uint64_t start_us, interval;
	int rc;

	ck_assert_int_eq(rec_recorder_handle_queued(r), 0);
	ck_assert_int_eq(rec_recorder_stop(r), 0);
	rec_recorder_free(r);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	rd = sp_spool_reader_new(fd);
	ck_assert_ptr_nonnull(rd);
	ck_assert_int_eq(sp_spool_reader_header(rd, &start_us, &interval), 0);
	ck_assert_uint_eq(interval, 1001);
	ntrace = 0;
	while ((rc = sp_spool_reader_next(rd, &rec)) == 1) {
		switch (rec.tag) {
		case SP_TAG_MODULE:
			add("module %d %s", rec.u.module.pid,
			    rec.u.module.path);
			break;
		case SP_TAG_SAMPLE:
			add("sample %d %llu %s", rec.u.sample.pid,
			    (unsigned long long)rec.u.sample.tid,
			    leaf_module(rd, rec.u.sample.stack_id));
			break;
		case SP_TAG_EXEC:
			add("exec %d %s", rec.u.exec.pid,
			    rec.u.exec.is_python ? "python" : "native");
			break;
		case SP_TAG_DEACTIVATE:
			add("deactivate %d", rec.u.deactivate.pid);
			break;
		default:
			if (rec.tag >= SP_TAG_EXT_FIRST)
				ext(&rec);
		}
	}
	ck_assert_msg(rc == 0, "%s", sp_spool_reader_errmsg(rd));
	sp_spool_reader_free(rd);
	close(fd);
}

/* The index of the first trace line at or after `from` starting with
 * `want`, or -1. */
static int
find(int from, const char *want)
{
	int i;

	for (i = from; i < ntrace; i++)
		if (!strncmp(trace[i], want, strlen(want)))
			return i;
	return -1;
}

/* Checks that the lines appear in this order (others may come between). */
static void
in_order(const char *const *want, size_t n)
{
	int at = 0, i;
	size_t k;

	for (k = 0; k < n; k++) {
		at = find(at, want[k]);
		if (at < 0) {
			for (i = 0; i < ntrace; i++)
				fprintf(stderr, "  %s\n", trace[i]);
			ck_abort_msg("missing, or out of order: '%s'", want[k]);
		}
		at++;
	}
}

#define IN_ORDER(...)                                                          \
	do {                                                                   \
		static const char *const w_[] = { __VA_ARGS__ };               \
		in_order(w_, sizeof(w_) / sizeof(w_[0]));                      \
	} while (0)

START_TEST(modules_precede_samples_and_exec_starts_an_epoch)
{
	start(false);
	/* Queued out of order, as two CPUs' rings give them. */
	sample(P, P, 30, 0x1010);
	mmap2(P, 10, 0x1000, 0x1000, "/bin/a");
	mmap2(P, 50, 0x1000, 0x2000, "/bin/b");
	comm(P, P, 40, "b", true);
	sample(P, P, 60, 0x1010);
	finish();
	IN_ORDER("module 5000001 /bin/a", "sample 5000001 5000001 /bin/a",
		 "exec 5000001 native", "deactivate 5000001",
		 "comm 5000001 5000001 exec b", "module 5000001 /bin/b",
		 "sample 5000001 5000001 /bin/b");
}
END_TEST

/*
 * A sample taken inside an exec, after the kernel announced the new
 * program but with the old one's registers: its pc is in no mapping of
 * the new image, and it is dropped and counted, not written with an
 * unresolved frame, without a read of the maps.  Long after the exec,
 * such a pc is written.
 */
START_TEST(samples_inside_an_exec_are_dropped)
{
	start(false);
	mmap2(P, 10, 0x1000, 0x1000, "/bin/a");
	sample(P, P, 20, 0x1010);
	comm(P, P, 40, "b", true);
	mmap2(P, 41, 0x5000, 0x1000, "/bin/b");
	sample(P, P, 42, 0x1010);         /* the old program's pc */
	sample(P, P, 43, 0x5010);         /* the new program */
	sample(P, P, 2000000040, 0x9010); /* no mapping, 2 s later */
	finish();
	IN_ORDER("module 5000001 /bin/a", "sample 5000001 5000001 /bin/a",
		 "comm 5000001 5000001 exec b", "module 5000001 /bin/b",
		 "sample 5000001 5000001 /bin/b", "sample 5000001 5000001 -",
		 "stats stale_exec_samples=1");
	/* Only the late one has no module. */
	ck_assert_int_eq(find(find(0, "sample 5000001 5000001 -") + 1,
			      "sample 5000001 5000001 -"),
			 -1);
	/* Only the late one read the maps: the old pc is not looked for. */
	ck_assert_int_ge(find(0, "stats maps_refreshes=1"), 0);
}
END_TEST

START_TEST(no_kernel_frame_without_kernel_stacks)
{
	start(false);
	mmap2(P, 10, 0x1000, 0x1000, "/bin/a");
	kernel_sample(P, P, 20, 0xffffffff81000000ULL);
	sample(P, P, 30, 0x1010);
	finish();
	/* Its ip alone would be a kernel frame: the sample has no stack. */
	IN_ORDER("sample 5000001 5000001 /bin/a", "stats samples=1",
		 "stats empty_stacks=1", "stats ip_only_stacks=0");
}
END_TEST

START_TEST(fork_clones_and_reused_pid_starts_over)
{
	start(true);
	comm(P, P, 5, "main", false);
	mmap2(P, 10, 0x1000, 0x1000, "/bin/a");
	task(PERF_RECORD_FORK, C, P, C, P, 20);
	sample(C, C, 25, 0x1010);
	task(PERF_RECORD_EXIT, C, C, C, C, 30);
	task(PERF_RECORD_FORK, C, P, C, P, 40);
	task(PERF_RECORD_FORK, P, P, T, P, 50);
	sample(999, 999, 55, 0x1010);
	lost(60, 3);
	finish();
	IN_ORDER("comm 5000001 5000001 name main", "module 5000001 /bin/a",
		 "module 5000002 /bin/a", "comm 5000002 5000002 name main",
		 "sample 5000002 5000002 /bin/a", "exit 5000002 5000002",
		 "deactivate 5000002", "module 5000002 /bin/a",
		 "comm 5000001 5000003 name main", "lost 3");
	ck_assert_int_eq(find(0, "sample 999"), -1);
	ck_assert_int_ne(find(0, "stats untracked_samples=1"), -1);
	ck_assert_int_ne(find(0, "stats lost=3"), -1);
	ck_assert_int_ne(find(0, "stats processes=3"), -1);
}
END_TEST

START_TEST(leader_exit_keeps_the_process)
{
	start(true);
	mmap2(P, 10, 0x1000, 0x1000, "/bin/a");
	task(PERF_RECORD_FORK, P, P, T, P, 20);
	task(PERF_RECORD_EXIT, P, P, P, P, 30);
	sample(P, T, 40, 0x1010);
	finish();
	IN_ORDER("module 5000001 /bin/a", "exit 5000001 5000001",
		 "sample 5000001 5000003 /bin/a");
	ck_assert_int_eq(find(0, "deactivate"), -1);
}
END_TEST

START_TEST(without_follow_children_are_dropped)
{
	start(false);
	mmap2(P, 10, 0x1000, 0x1000, "/bin/a");
	task(PERF_RECORD_FORK, C, P, C, P, 20);
	mmap2(C, 22, 0x5000, 0x1000, "/bin/c");
	sample(C, C, 25, 0x1010);
	sample(P, P, 26, 0x1010);
	finish();
	ck_assert_int_eq(find(0, "module 5000002"), -1);
	ck_assert_int_eq(find(0, "sample 5000002"), -1);
	IN_ORDER("sample 5000001 5000001 /bin/a");
}
END_TEST

START_TEST(lost_forks_are_recovered_from_proc)
{
	char want[64];
	pid_t kid;

	start(true);
	ck_assert_int_eq(rec_recorder_track(r, getpid()), 0);
	kid = fork();
	ck_assert_int_ge(kid, 0);
	if (kid == 0) {
		sleep(5);
		_exit(0);
	}
	lost(10, 1);
	ck_assert_int_eq(rec_recorder_handle_queued(r), 0);
	usleep(120000); /* the sweep runs with the 100 ms checks */
	ck_assert_int_eq(rec_recorder_step(r, 0), 0);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	finish();
	snprintf(want, sizeof(want), "module %d /", (int)kid);
	ck_assert_int_ne(find(0, want), -1);
	ck_assert_int_ne(find(0, "stats adopted_children=1"), -1);
}
END_TEST

static uint64_t
mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/*
 * Process P (no such pid in /proc) has a thread the ring announced: the
 * 100 ms liveness check leaves it alone when no record was lost, and its
 * later sample is written; after a lost record /proc is asked, finds it
 * gone, and it is retired before its later sample.
 */
static void
check_after_thread(bool lose)
{
	uint64_t later;

	start(false);
	mmap2(P, 10, 0x1000, 0x1000, "/bin/a");
	comm(P, P, 20, "a", false);
	if (lose)
		lost(30, 1);
	ck_assert_int_eq(rec_recorder_handle_queued(r), 0);
	usleep(120000); /* the check runs with the 100 ms housekeeping */
	ck_assert_int_eq(rec_recorder_step(r, 0), 0);
	later = mono_ns() + 1000000000ULL;
	sample(P, P, later, 0x1010);
	finish();
}

START_TEST(a_process_with_a_live_thread_is_not_looked_up)
{
	check_after_thread(false);
	ck_assert_int_ne(find(0, "sample 5000001 5000001 /bin/a"), -1);
	check_after_thread(true);
	ck_assert_int_eq(find(0, "sample 5000001 5000001 /bin/a"), -1);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_recorder");
	TCase *tc = tcase_create("records");

	tcase_add_test(tc, modules_precede_samples_and_exec_starts_an_epoch);
	tcase_add_test(tc, samples_inside_an_exec_are_dropped);
	tcase_add_test(tc, fork_clones_and_reused_pid_starts_over);
	tcase_add_test(tc, no_kernel_frame_without_kernel_stacks);
	tcase_add_test(tc, leader_exit_keeps_the_process);
	tcase_add_test(tc, without_follow_children_are_dropped);
	tcase_add_test(tc, lost_forks_are_recovered_from_proc);
	tcase_add_test(tc, a_process_with_a_live_thread_is_not_looked_up);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
