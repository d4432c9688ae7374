/*
 * callsite.h: what the call instruction before a return address says
 * about the function it called (x86_64), to check a frame read from the
 * live stack (issue 28): a caller whose call instruction names another
 * function than the callee's is not the caller the callee returns to.
 *
 * Only direct calls (e8 rel32) name their target; an indirect call, or
 * a target that is a PLT entry (whose jump the call went through), says
 * nothing.  A tail call (A calls B, B jumps to C) makes a direct call
 * name another function than the frame's: rec_callsite_jumps() lists
 * B's direct jumps out of it, where C may be found.  Indirect tail calls
 * cannot be followed: checks with these functions refuse such frames,
 * which costs completeness, not truth.
 */
#ifndef SP_RECORD_UNWIND_CALLSITE_H
#define SP_RECORD_UNWIND_CALLSITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes before a return address that rec_callsite_target() reads. */
#define REC_CALLSITE_BEFORE 5
/* Bytes before a return address that rec_callsite_indirect() reads. */
#define REC_CALLSITE_INDIRECT 8
/* Bytes at a call target that rec_callsite_is_plt() reads. */
#define REC_CALLSITE_PLT 7

/*
 * Whether the REC_CALLSITE_BEFORE bytes ending at return address `ra`
 * are a direct call; sets *target to the address it calls.
 */
bool rec_callsite_target(const uint8_t before[REC_CALLSITE_BEFORE], uint64_t ra,
			 uint64_t *target);

/*
 * Whether the REC_CALLSITE_INDIRECT bytes before a return address end
 * with an indirect call (ff /2: through a register or memory, with any
 * addressing form and a REX prefix).  Bytes are matched, not decoded
 * from a known start: other instructions can end in the same bytes, so
 * a yes only says that a call may have been made there.
 */
bool rec_callsite_indirect(const uint8_t before[REC_CALLSITE_INDIRECT]);

/*
 * Whether the REC_CALLSITE_PLT bytes at a call target are a PLT entry: an
 * indirect jump through the GOT (ff 25), optionally after endbr64 and a
 * bnd prefix (f2), as .plt and .plt.sec entries start.
 */
bool rec_callsite_is_plt(const uint8_t code[REC_CALLSITE_PLT]);

/*
 * Writes into out[0..max) the destinations outside [at, at + len) of the
 * direct jumps (e9 rel32, or conditional: 0f 8x rel32) in the `len`
 * bytes of code at `at`: the functions it may tail-call.  Returns how
 * many there are (more than max when some were left out).  The bytes are
 * scanned, not decoded: a false destination needs the four bytes after an
 * e9 or 0f 8x to name an address outside the function, and costs only a
 * frame accepted where it may have been refused.
 */
size_t rec_callsite_jumps(const uint8_t *code, size_t len, uint64_t at,
			  uint64_t *out, size_t max);

#endif
