/*
 * ptrace.h: sampling a process by interrupting its threads (--ptrace), for
 * hosts where perf_event_open is refused but ptrace is allowed.
 *
 * Every thread of the target is attached with PTRACE_SEIZE (never
 * SIGSTOP, so job control and the target's own signals are undisturbed).
 * At each tick, each thread that is running (state R) is stopped with
 * PTRACE_INTERRUPT, its registers and the top of its stack are copied
 * (PTRACE_GETREGS, process_vm_readv) and it is resumed at once; the copy is
 * then handed to the caller, in the same form as a perf sample, for the
 * DWARF unwinder.  Threads the target creates are followed (not forked
 * processes).  Signals the target receives are passed on unchanged; a
 * thread in a job-control stop stays stopped and is not sampled.
 *
 * How sp-record drives it:
 *
 *   t = rec_ptrace_new(freq_hz, stack_size);
 *   r = pid ? rec_ptrace_attach(t, pid) : rec_ptrace_spawn(t, argv);
 *       then read /proc/PID/maps into the module table (rec_ptrace_pid(t))
 *   r = rec_ptrace_sample(t, seconds, &stop_flag, on_event, arg);
 *       on_event gets, in order of occurrence:
 *       REC_PTRACER_SAMPLE   unwind with rec_unwind_unwind(u, mods, ev->pid,
 *                          ev->regs, ev->regs_mask, ev->stack,
 *                          ev->stack_len, ...) and write the sample; when
 *                          ev->regs' pc is outside every module, or
 *                          rec_unwind_missed_module() says a caller was,
 *                          re-read /proc/PID/maps (there are no MMAP2
 *                          records: a snapshot taken at exec misses the
 *                          libraries loaded after it); re-read it now
 *                          and then too, for mappings replaced in place
 *       REC_PTRACER_EXEC     deactivate the modules, forget the unwinder's
 *                          process, re-read /proc/PID/maps
 *       REC_PTRACER_THREAD_EXIT, REC_PTRACER_EXIT (the whole process; status
 *                          as from waitpid)
 *       on_event returns 0, or nonzero to stop the run (e.g. the output
 *       failed: EPIPE).
 *   rec_ptrace_summary(t, &s);    samples, pause median/p99 for the summary
 *   rec_ptrace_free(t);           detaches every thread that is left
 *
 * rec_ptrace_sample returns when the target exited, `seconds` passed (0:
 * unlimited), *stop became nonzero (set it from SIGINT/SIGTERM/SIGHUP
 * handlers; install them without SA_RESTART) or on_event asked to stop.
 * A spawned command is our child, but while it is traced its exit comes
 * as REC_PTRACER_EXIT: do not waitpid() it before rec_ptrace_detach.  Every
 * signal the target receives stops it until the sampler passes it on, so
 * a target taking thousands of signals a second runs slower than usual.
 * The target is never left stopped or traced: rec_ptrace_free (or
 * rec_ptrace_detach) detaches, and if sp-record dies without calling it the
 * kernel detaches.  SIGPIPE should be ignored so a closed output pipe
 * becomes an EPIPE that on_event reports.
 */
#ifndef SP_RECORD_PTRACE_PTRACE_H
#define SP_RECORD_PTRACE_PTRACE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rec_ptrace;

/*
 * The registers a sample carries, in perf's order (sample_regs_user on
 * x86_64): all but DS, ES, FS and GS, as the recorder asks of perf, so
 * the unwinder reads both alike.
 */
#define REC_PTRACE_REGS_MASK 0xff0fffULL

enum rec_ptrace_kind {
	REC_PTRACER_SAMPLE,
	REC_PTRACER_EXEC,
	REC_PTRACER_THREAD_EXIT,
	REC_PTRACER_EXIT,
};

struct rec_ptrace_event {
	enum rec_ptrace_kind kind;
	int32_t pid;
	int32_t tid;
	uint64_t timestamp_ns; /* CLOCK_MONOTONIC */
	/* REC_PTRACER_SAMPLE only; valid during the callback. */
	const uint64_t *regs; /* one u64 per bit of regs_mask, low first */
	uint64_t regs_mask;   /* REC_PTRACE_REGS_MASK */
	const uint8_t *stack; /* stack_len bytes from the thread's SP */
	size_t stack_len;
	const uint64_t *chain; /* rec_ptrace_set_fpwalk's walk, or NULL */
	size_t nchain;
	uint64_t pause_ns; /* from PTRACE_INTERRUPT to resuming it */
	/* REC_PTRACER_EXIT only: the wait status of the main thread. */
	int status;
};

struct rec_ptrace_summary {
	uint64_t samples;
	uint64_t pause_median_ns, pause_p99_ns, pause_max_ns;
	uint64_t stack_read_errors; /* stack copies that failed */
};

typedef int (*rec_ptrace_fn)(const struct rec_ptrace_event *ev, void *arg);

/* The highest rate the sampler takes: ticks a second. */
#define REC_PTRACE_MAX_HZ 10000

/*
 * Creates a sampler: `freq_hz` ticks per second (1 to
 * REC_PTRACE_MAX_HZ), copying `stack_size` bytes of stack per sample (a
 * multiple of 8, at most 65528).  Returns NULL with errno set.
 */
struct rec_ptrace *rec_ptrace_new(unsigned freq_hz, size_t stack_size);

/*
 * Attaches to every thread of running process `pid`.  Returns 0, or a
 * negative errno (-EPERM when ptrace is refused, -ESRCH when it is gone);
 * on failure nothing stays attached.
 */
int rec_ptrace_attach(struct rec_ptrace *t, pid_t pid);

/*
 * Starts argv[0] (searched in PATH) traced from its first instruction,
 * through the recorder's launcher (launch.h: signals reset, stdout moved
 * to stderr when `stdout_to_stderr`).  Returns 0, or a negative errno
 * (the exec's own errno when it failed).
 */
int rec_ptrace_spawn(struct rec_ptrace *t, char *const argv[],
		     bool stdout_to_stderr);

/* The target's process id, 0 before attach/spawn. */
pid_t rec_ptrace_pid(const struct rec_ptrace *t);

/*
 * Samples until the target exits, `seconds` pass (0: no limit), *stop
 * becomes nonzero, or fn returns nonzero.  Returns 0, or a negative errno
 * when ptrace itself failed.  The threads stay attached afterwards.
 */
int rec_ptrace_sample(struct rec_ptrace *t, double seconds,
		      volatile sig_atomic_t *stop, rec_ptrace_fn fn, void *arg);

/*
 * Detaches every thread still attached; the target continues as if never
 * traced.  Safe to call more than once.
 */
void rec_ptrace_detach(struct rec_ptrace *t);

/* Fills *s with the counts and the pause distribution so far. */
void rec_ptrace_summary(const struct rec_ptrace *t,
			struct rec_ptrace_summary *s);

/*
 * Has `fn` called for each sampled thread while it is still stopped,
 * after its registers and stack are copied and before it resumes (its
 * time counts as pause): for readers of the thread's memory that need
 * it to stand still.  NULL turns it off.
 */
void rec_ptrace_on_stopped(struct rec_ptrace *t,
			   void (*fn)(pid_t pid, pid_t tid, void *arg),
			   void *arg);

/*
 * Turns on or off the frame-pointer walk of each sample (fpwalk.h),
 * taken while the thread is stopped and passed in the event's chain: on
 * for a Go program (goexe.h), whose stacks need it.
 */
void rec_ptrace_set_fpwalk(struct rec_ptrace *t, bool on);

/* Detaches, then frees everything.  NULL is allowed. */
void rec_ptrace_free(struct rec_ptrace *t);

#endif
