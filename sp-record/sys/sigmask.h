/*
 * sigmask.h: sp-record's own sigprocmask(), which skips the call while
 * this thread is inside libunwind.
 *
 * Why it exists: Debian builds libunwind to block every signal around
 * each of its cache and memory-pool locks, two rt_sigprocmask system
 * calls per lock, which made about 96% of its unwinding time
 * (docs/bench-unwind.md).  The recorder never unwinds from a signal
 * handler, so nothing needs those signals blocked; a definition in the
 * executable takes the place of libc's for libunwind too.  Outside
 * libunwind every caller gets the ordinary behaviour.
 */
#ifndef SP_RECORD_SYS_SIGMASK_H
#define SP_RECORD_SYS_SIGMASK_H

/*
 * Nonzero while this thread is inside libunwind: the unwinder sets it
 * around each of its calls into libunwind and clears it after.
 */
extern __thread int rec_sigmask_in_libunwind;

#endif
