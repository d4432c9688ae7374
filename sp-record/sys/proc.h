/*
 * proc.h: the processes and threads being recorded, and the /proc files
 * the recorder reads about them.
 *
 * A process is "tracked" from the moment it becomes a target (launched,
 * named with -p, or forked by a tracked process under -f) until it is
 * retired (it exited, or its pid now belongs to another process: the
 * start time in /proc/PID/stat changed).  Samples of untracked processes
 * are dropped.
 */
#ifndef SP_RECORD_SYS_PROC_H
#define SP_RECORD_SYS_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define REC_PROC_COMM_MAX 16 /* TASK_COMM_LEN, NUL included */

struct sp_htab;

struct rec_proc {
	int32_t pid;
	uint64_t start_time;        /* /proc/PID/stat starttime; 0: unknown */
	bool target;                /* launched or named with -p */
	bool retiring;              /* a retire event is queued */
	int python_support;         /* -1 not probed yet, else 0 or 1 */
	bool python_runtime;        /* the Python runtime marker is written */
	struct sp_htab *refreshed;  /* pages that triggered a maps read */
	uint64_t missed_refresh_ns; /* last read for an unwinder miss */
	uint64_t exec_time;         /* its last exec's time; 0: none seen */
	uint64_t samples;
	struct rec_proc_thread *threads; /* its registered threads, a list */
};

/*
 * A thread registered while its process is tracked is on that process's
 * list (proc set), so forgetting a process costs its own threads only.
 */
struct rec_proc_thread {
	int32_t pid;
	int32_t tid;
	char comm[REC_PROC_COMM_MAX];
	struct rec_proc *proc; /* whose list it is on, or NULL */
	struct rec_proc_thread *prev, *next;
};

struct rec_proc_tab {
	struct sp_htab *procs;   /* pid -> struct rec_proc * */
	struct sp_htab *threads; /* tid -> struct rec_proc_thread * */
	size_t nprocs;           /* tracked now */
	uint64_t procs_seen;
	uint64_t threads_seen;
	uint64_t procs_exited;
};

int rec_proc_tab_init(struct rec_proc_tab *t);
void rec_proc_tab_release(struct rec_proc_tab *t);

/* The tracked process `pid`, or NULL. */
struct rec_proc *rec_proc_tab_get(struct rec_proc_tab *t, int32_t pid);
/*
 * Starts tracking `pid` (which must not be tracked).  Returns the new
 * entry or NULL on allocation failure.
 */
struct rec_proc *rec_proc_tab_add(struct rec_proc_tab *t, int32_t pid);
/*
 * Stops tracking `pid` and forgets its threads (those registered while
 * it was tracked; the work is proportional to their number).
 */
void rec_proc_tab_remove(struct rec_proc_tab *t, int32_t pid);
/*
 * Calls fn for each tracked process; fn must not add or remove.
 */
void rec_proc_tab_each(struct rec_proc_tab *t,
		       void (*fn)(struct rec_proc *p, void *arg), void *arg);

/* The thread `tid`, or NULL. */
struct rec_proc_thread *rec_proc_tab_thread(struct rec_proc_tab *t,
					    int32_t tid);
/*
 * Registers thread `tid` of `pid` named `comm` (may be NULL); an existing
 * entry for `tid` is replaced.  Returns it, or NULL on allocation failure.
 */
struct rec_proc_thread *rec_proc_tab_add_thread(struct rec_proc_tab *t,
						int32_t pid, int32_t tid,
						const char *comm,
						size_t comm_len);

/* Forgets thread `tid` (it exited). */
void rec_proc_tab_remove_thread(struct rec_proc_tab *t, int32_t tid);

/*
 * Records that `pc`'s page of process `p` triggered a maps refresh.
 * Returns true the first time for a page (refresh now), false after.
 */
bool rec_proc_first_uncovered(struct rec_proc *p, uint64_t pc);
/* Forgets the refreshed pages (after exec or a refresh). */
void rec_proc_clear_uncovered(struct rec_proc *p);

/* --- /proc readers; each returns 0 or a negative errno --- */

/*
 * Reads the state letter and start time (clock ticks since boot) of
 * /proc/PID/stat.  -ENOENT/-ESRCH when the process is gone.
 */
int rec_proc_stat(int32_t pid, char *state, uint64_t *start_time);
/*
 * Reads the thread group (process) id of task `pid` from /proc/PID/status:
 * a thread id gives its process's id.
 */
int rec_proc_tgid(int32_t pid, int32_t *tgid);
/* The pid of `pid` in its own (innermost) pid namespace: NSpid's last. */
int rec_proc_nspid(int32_t pid, int32_t *nspid);
/* The owner of /proc/PID (its effective user); 0 or -errno. */
int rec_proc_uid(int32_t pid, uid_t *uid);
/* Reads the parent process id of `pid` from /proc/PID/stat. */
int rec_proc_ppid(int32_t pid, int32_t *ppid);
/* Reads /proc/PID/task/TID/comm without its newline. */
int rec_proc_comm(int32_t pid, int32_t tid, char *buf, size_t size);
/* Reads a one-line file without its newline; "" when unreadable. */
void rec_proc_read_line(const char *path, char *buf, size_t size);
/*
 * Lists the thread ids in /proc/PID/task into a malloc'ed array.
 * Returns the count (>= 0) or a negative errno.
 */
long rec_proc_tasks(int32_t pid, int32_t **tids);
/* Whether /proc/PID/exe names a Python interpreter binary. */
bool rec_proc_exe_python(int32_t pid);
/* Whether an argv block (NUL-separated) turns on -X perf. */
bool rec_proc_cmdline_has_python_perf(const char *cmdline, size_t len);
/*
 * Whether process `pid` runs Python with perf support: PYTHONPERFSUPPORT=1
 * in its environment or -X perf on its command line.
 */
bool rec_proc_python_perf(int32_t pid);

#endif
