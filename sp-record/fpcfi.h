/*
 * fpcfi.h: call frame information made up for code that has none and
 * keeps a frame pointer: JIT-compiled code in anonymous memory (HotSpot
 * with -XX:+PreserveFramePointer, its interpreter and stubs, V8 and
 * other JITs that keep one).
 *
 * Such a frame is the frame pointer's: the caller's frame pointer is
 * saved at rbp, the return address at rbp+8, and the caller's stack
 * pointer is rbp+16.  Written as CFI (CFA = rbp+16, return address at
 * CFA-8, rbp at CFA-16), libunwind steps through it as through any
 * other frame, with the caller's stack pointer right: its own
 * frame-pointer guess keeps the stack pointer at the callee's plus 16
 * bytes, which is wrong in every frame with locals and makes it give up
 * once the frame pointer lies 16 KiB above that guess (a deep Java
 * stack).  A frame sampled before its prologue saved the frame pointer
 * loses its caller, as in any frame-pointer walk.
 */
#ifndef SP_RECORD_FPCFI_H
#define SP_RECORD_FPCFI_H

#include <stddef.h>
#include <stdint.h>

/* Size of the buffer rec_fpcfi_write writes. */
#define REC_FPCFI_MAX 56

/*
 * Writes, for the code [start, start + len), a one-entry .eh_frame_hdr
 * search table followed by a CIE and an FDE saying the frame above, as
 * they would lie at address `at` (8-aligned, within 2 GiB of start):
 * table entries are relative to `at`, which is the table's segment
 * base.  Returns the bytes written (REC_FPCFI_MAX).
 */
size_t rec_fpcfi_write(uint64_t start, uint32_t len, uint64_t at, uint8_t *out);

#endif
