/*
 * check_record_proc.c: the process and thread tables, the once-per-page
 * maps refresh rule, the /proc readers on ourselves, and the Python
 * perf-support probes.
 */
#include "tests/unit/ck.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sp-record/sys/proc.h"

START_TEST(processes_and_threads)
{
	struct rec_proc_tab t;
	struct rec_proc *p;
	struct rec_proc_thread *th;

	ck_assert_int_eq(rec_proc_tab_init(&t), 0);
	p = rec_proc_tab_add(&t, 10);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->python_support, -1);
	ck_assert_ptr_eq(rec_proc_tab_get(&t, 10), p);
	ck_assert_ptr_null(rec_proc_tab_get(&t, 11));
	ck_assert_ptr_nonnull(rec_proc_tab_add_thread(&t, 10, 10, "main", 4));
	ck_assert_ptr_nonnull(rec_proc_tab_add_thread(&t, 10, 12,
						      "a-very-long-"
						      "thread-name",
						      23));
	ck_assert_ptr_nonnull(rec_proc_tab_add(&t, 20));
	ck_assert_ptr_nonnull(rec_proc_tab_add_thread(&t, 20, 21, NULL, 0));
	th = rec_proc_tab_thread(&t, 12);
	ck_assert_str_eq(th->comm, "a-very-long-thr"); /* 15 bytes kept */
	ck_assert_uint_eq(t.nprocs, 2);
	ck_assert_uint_eq(t.threads_seen, 3);
	ck_assert_ptr_nonnull(rec_proc_tab_thread(&t, 21));

	rec_proc_tab_remove_thread(&t, 21);
	ck_assert_ptr_null(rec_proc_tab_thread(&t, 21));
	ck_assert_ptr_nonnull(rec_proc_tab_add_thread(&t, 20, 21, "again", 5));
	rec_proc_tab_remove(&t, 10);
	ck_assert_ptr_null(rec_proc_tab_get(&t, 10));
	ck_assert_ptr_null(rec_proc_tab_thread(&t, 12));
	ck_assert_ptr_nonnull(rec_proc_tab_thread(&t, 21));
	ck_assert_uint_eq(t.nprocs, 1);
	/* The pid comes back as a new process. */
	p = rec_proc_tab_add(&t, 10);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(t.procs_seen, 3);
	rec_proc_tab_release(&t);
}
END_TEST

/*
 * Invariant of a process's thread list: well linked, each entry the one
 * the table has for its tid, of this pid.  Returns its length.
 */
static size_t
check_thread_list(struct rec_proc_tab *t, struct rec_proc *p)
{
	struct rec_proc_thread *th, *prev = NULL;
	size_t n = 0;

	for (th = p->threads; th; prev = th, th = th->next, n++) {
		ck_assert_ptr_eq(th->prev, prev);
		ck_assert_ptr_eq(th->proc, p);
		ck_assert_int_eq(th->pid, p->pid);
		ck_assert_ptr_eq(rec_proc_tab_thread(t, th->tid), th);
	}
	return n;
}

START_TEST(thread_lists_follow_their_process)
{
	struct rec_proc_tab t;
	struct rec_proc *a, *b;
	int32_t tid;

	ck_assert_int_eq(rec_proc_tab_init(&t), 0);
	a = rec_proc_tab_add(&t, 100);
	b = rec_proc_tab_add(&t, 200);
	for (tid = 100; tid < 110; tid++)
		ck_assert_ptr_nonnull(
		    rec_proc_tab_add_thread(&t, 100, tid, "a", 1));
	for (tid = 200; tid < 205; tid++)
		ck_assert_ptr_nonnull(
		    rec_proc_tab_add_thread(&t, 200, tid, NULL, 0));
	/* Renaming keeps the entry where it is. */
	ck_assert_ptr_nonnull(rec_proc_tab_add_thread(&t, 100, 105, "b", 1));
	ck_assert_uint_eq(check_thread_list(&t, a), 10);
	/* Exits at the head, in the middle and at the tail. */
	rec_proc_tab_remove_thread(&t, 109);
	rec_proc_tab_remove_thread(&t, 104);
	rec_proc_tab_remove_thread(&t, 100);
	ck_assert_uint_eq(check_thread_list(&t, a), 7);
	/* A tid reused by the other process moves to its list. */
	ck_assert_ptr_nonnull(rec_proc_tab_add_thread(&t, 200, 103, NULL, 0));
	ck_assert_uint_eq(check_thread_list(&t, a), 6);
	ck_assert_uint_eq(check_thread_list(&t, b), 6);
	/* A thread of an untracked pid is on no list, until re-added. */
	ck_assert_ptr_nonnull(rec_proc_tab_add_thread(&t, 300, 301, NULL, 0));
	ck_assert_ptr_null(rec_proc_tab_thread(&t, 301)->proc);
	rec_proc_tab_remove(&t, 100);
	ck_assert_ptr_null(rec_proc_tab_thread(&t, 101));
	ck_assert_ptr_null(rec_proc_tab_thread(&t, 108));
	ck_assert_ptr_nonnull(rec_proc_tab_thread(&t, 103));
	ck_assert_ptr_nonnull(rec_proc_tab_thread(&t, 301));
	ck_assert_uint_eq(check_thread_list(&t, b), 6);
	/* Its threads went with it: a new process of that pid has none. */
	a = rec_proc_tab_add(&t, 100);
	ck_assert_uint_eq(check_thread_list(&t, a), 0);
	ck_assert_ptr_nonnull(rec_proc_tab_add_thread(&t, 100, 301, NULL, 0));
	ck_assert_uint_eq(check_thread_list(&t, a), 1);
	rec_proc_tab_remove(&t, 200);
	ck_assert_ptr_null(rec_proc_tab_thread(&t, 103));
	ck_assert_ptr_nonnull(rec_proc_tab_thread(&t, 301));
	rec_proc_tab_release(&t);
}
END_TEST

START_TEST(uncovered_pc_refresh_is_once_per_page)
{
	struct rec_proc p;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);

	memset(&p, 0, sizeof(p));
	ck_assert(rec_proc_first_uncovered(&p, page + 1));
	ck_assert(!rec_proc_first_uncovered(&p, page + 2));
	ck_assert(rec_proc_first_uncovered(&p, page * 2));
	rec_proc_clear_uncovered(&p);
	ck_assert(rec_proc_first_uncovered(&p, page + 3));
	rec_proc_clear_uncovered(&p);
}
END_TEST

/* A second thread for proc_readers_on_ourselves: tells its tid, waits. */
struct side_thread {
	pthread_barrier_t told;
	int release[2];
	pid_t tid;
};

static void *
side_thread_main(void *arg)
{
	struct side_thread *st = arg;
	char c;

	st->tid = (pid_t)syscall(SYS_gettid);
	pthread_barrier_wait(&st->told);
	if (read(st->release[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

/* Whether `tid` is one of the `n` entries of `tids`. */
static bool
has_tid(const int32_t *tids, long n, pid_t tid)
{
	long i;

	for (i = 0; i < n; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

START_TEST(proc_readers_on_ourselves)
{
	char state, comm[REC_PROC_COMM_MAX];
	uint64_t start, again;
	int32_t tgid;
	int32_t *tids;
	struct side_thread st;
	pthread_t side;
	long n;

	ck_assert_int_eq(rec_proc_stat(getpid(), &state, &start), 0);
	ck_assert(state == 'R' || state == 'S');
	ck_assert_uint_gt(start, 0);
	ck_assert_int_eq(rec_proc_stat(getpid(), &state, &again), 0);
	ck_assert_uint_eq(start, again);
	ck_assert_int_lt(rec_proc_stat(-3, &state, &start), 0);
	ck_assert_int_eq(rec_proc_tgid(getpid(), &tgid), 0);
	ck_assert_int_eq(tgid, getpid());
	ck_assert_int_lt(rec_proc_tgid(-3, &tgid), 0);
	/* Our pid in our own namespace is what getpid() says. */
	ck_assert_int_eq(rec_proc_nspid(getpid(), &tgid), 0);
	ck_assert_int_eq(tgid, getpid());
	ck_assert_int_lt(rec_proc_nspid(-3, &tgid), 0);
	/* The task list names this thread and the one it started. */
	ck_assert_int_eq(pthread_barrier_init(&st.told, NULL, 2), 0);
	ck_assert_int_eq(pipe(st.release), 0);
	ck_assert_int_eq(pthread_create(&side, NULL, side_thread_main, &st), 0);
	pthread_barrier_wait(&st.told);
	n = rec_proc_tasks(getpid(), &tids);
	ck_assert_int_ge(n, 2);
	ck_assert(has_tid(tids, n, getpid()));
	ck_assert(has_tid(tids, n, st.tid));
	ck_assert_int_ne(st.tid, getpid());
	free(tids);
	ck_assert_int_eq(write(st.release[1], "x", 1), 1);
	ck_assert_int_eq(pthread_join(side, NULL), 0);
	close(st.release[0]);
	close(st.release[1]);
	pthread_barrier_destroy(&st.told);
	ck_assert_int_eq(rec_proc_comm(getpid(), getpid(), comm, sizeof(comm)),
			 0);
	ck_assert_uint_gt(strlen(comm), 0);
	ck_assert_ptr_null(strchr(comm, '\n'));
}
END_TEST

START_TEST(cmdline_detects_python_x_perf)
{
	ck_assert(rec_proc_cmdline_has_python_perf(
	    "python3\0-X\0perf\0app.py\0", 24));
	ck_assert(
	    rec_proc_cmdline_has_python_perf("python3\0-X\0perf,jit\0a\0", 22));
	ck_assert(
	    rec_proc_cmdline_has_python_perf("python3\0-Xperf\0app.py\0", 22));
	ck_assert(!rec_proc_cmdline_has_python_perf(
	    "python3\0-X\0dev\0app.py\0", 23));
	ck_assert(
	    !rec_proc_cmdline_has_python_perf("python3\0-X\0perfx\0", 17));
	ck_assert(!rec_proc_cmdline_has_python_perf("python3\0-X", 10));
	ck_assert(!rec_proc_cmdline_has_python_perf("", 0));
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("record_proc");
	TCase *tc = tcase_create("proc");

	tcase_add_test(tc, processes_and_threads);
	tcase_add_test(tc, thread_lists_follow_their_process);
	tcase_add_test(tc, uncovered_pc_refresh_is_once_per_page);
	tcase_add_test(tc, proc_readers_on_ourselves);
	tcase_add_test(tc, cmdline_detects_python_x_perf);
	suite_add_tcase(s, tc);
	return ck_run(s);
}
