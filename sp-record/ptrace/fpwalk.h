/*
 * fpwalk.h: the frame-pointer walk of a stopped thread's user stack, in
 * the form of the kernel's callchain (issue 28).
 *
 * Under --ptrace there is no perf event to ask for the kernel's walk,
 * which a Go program's stacks need past runtime.systemstack (goexe.h,
 * goframes.h); the thread is stopped while it is sampled, so the same
 * walk done then from user space sees what the kernel would have.
 */
#ifndef SP_RECORD_PTRACE_FPWALK_H
#define SP_RECORD_PTRACE_FPWALK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Return addresses taken at most, as the kernel's default. */
#define REC_FPWALK_MAX 127

/*
 * Walks the frame records of stopped thread `tid` from frame pointer
 * `bp`: each is the caller's frame pointer and a return address.  Words
 * inside stack[0..len) (a copy taken at `sp`) are read from there, the
 * others from the thread's memory.  Writes PERF_CONTEXT_USER, `ip`, then
 * the return addresses into chain[0..max) and returns the count.  The
 * walk ends at a frame pointer of 0, one not 8-byte aligned, a record
 * that cannot be read or a return address of 0; nothing is checked
 * beyond (goframes.h checks each frame it takes).
 */
size_t rec_fpwalk(pid_t tid, uint64_t ip, uint64_t bp, uint64_t sp,
		  const uint8_t *stack, size_t len, uint64_t *chain,
		  size_t max);

#endif
