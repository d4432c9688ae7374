/*
 * unwind_calls.h: whether a caller may have called its callee, the
 * check of each frame found by reading the live stack above a sample's
 * copy.  Private to the unwinder's files.
 */
#ifndef SP_RECORD_UNWIND_CALLS_H
#define SP_RECORD_UNWIND_CALLS_H

#include <stdbool.h>
#include <stdint.h>

struct rec_uctx;

/*
 * Whether the caller at return address `ra` may be the one the frame at
 * `callee_pc` returns to: false only when its call instruction is a
 * direct call to another function than the callee's, which reaches the
 * callee through no PLT entry and no tail call of the first few
 * (callsite.h).  Answers about tail calls are kept per process.
 */
bool rec_unw_call_matches(struct rec_uctx *c, uint64_t callee_pc, uint64_t ra);

#endif
