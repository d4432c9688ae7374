/*
 * callsite.h: what the call instruction before a return address says
 * about the function it called (x86_64), to check a frame read from the
 * live stack (issue 28): a caller whose call instruction names another
 * function than the callee's is not the caller the callee returns to.
 *
 * Only direct calls (e8 rel32) name their target; an indirect call, or
 * a target that is a PLT entry (whose jump the call went through), says
 * nothing.  A tail call (A calls B, B jumps to C) also makes a direct
 * call name another function than the frame's: checks with these
 * functions refuse such frames, which costs completeness, not truth.
 */
#ifndef SP_RECORD_CALLSITE_H
#define SP_RECORD_CALLSITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes before a return address that rec_callsite_target() reads. */
#define REC_CALLSITE_BEFORE 5
/* Bytes at a call target that rec_callsite_is_plt() reads. */
#define REC_CALLSITE_PLT 7

/*
 * Whether the REC_CALLSITE_BEFORE bytes ending at return address `ra`
 * are a direct call; sets *target to the address it calls.
 */
bool rec_callsite_target(const uint8_t before[REC_CALLSITE_BEFORE], uint64_t ra,
			 uint64_t *target);

/*
 * Whether the REC_CALLSITE_PLT bytes at a call target are a PLT entry: an
 * indirect jump through the GOT (ff 25), optionally after endbr64 and a
 * bnd prefix (f2), as .plt and .plt.sec entries start.
 */
bool rec_callsite_is_plt(const uint8_t code[REC_CALLSITE_PLT]);

#endif
