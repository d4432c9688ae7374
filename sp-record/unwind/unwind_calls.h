/*
 * unwind_calls.h: whether a caller may have called its callee, the
 * check of each frame found by reading the live stack above a sample's
 * copy.  Private to the unwinder's files.
 */
#ifndef SP_RECORD_UNWIND_UNWIND_CALLS_H
#define SP_RECORD_UNWIND_UNWIND_CALLS_H

#include <stdbool.h>
#include <stdint.h>

struct rec_unwind_ctx;

/*
 * Whether the caller at return address `ra` may be the one the frame at
 * `callee_pc` returns to: false only when its call instruction is a
 * direct call to another function than the callee's, which reaches the
 * callee through no PLT entry and no tail call of the first few
 * (callsite.h).  Answers about tail calls are kept per process.
 */
bool rec_unwind_calls_match(struct rec_unwind_ctx *c, uint64_t callee_pc,
			    uint64_t ra);

/*
 * For a frame at `pc` whose SP is `sp`, in a module file with no CFI
 * for it (a library's _init, which ld.so calls through a pointer;
 * hand-written code): the first of the copy's words at sp, sp+8, ...
 * sp+32 that is a return address right after a call that may have
 * called `pc`: an indirect call, a direct one to a PLT entry, or to an
 * address at most 64 KiB below `pc` with no CFI between them.  Sets
 * *cfa_off to its offset + 8 (the frame's CFA).  False when none is, or
 * more than one (a stale return address left below the live one), or
 * when a return address after a call of another function lies below it
 * (the frame's own, when its caller reached it by a tail call).
 */
bool rec_unwind_calls_leaf_return(struct rec_unwind_ctx *c, uint64_t pc,
				  uint64_t sp, uint8_t *cfa_off);

/*
 * Whether a step without CFI from the frame at `pc` whose SP is `sp`,
 * which read its return address at `ra_at`, passed over another return
 * address right after a call in the copy below it.  A function without
 * a frame of its own stepped by its caller's frame pointer skips that
 * caller so; one that saved rbp has none there.
 */
bool rec_unwind_calls_skips_return(struct rec_unwind_ctx *c, uint64_t pc,
				   uint64_t sp, uint64_t ra_at);

#endif
