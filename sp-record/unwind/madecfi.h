/*
 * madecfi.h: call frame information made up for code that has none, in
 * the form libunwind reads from a module: a one-entry .eh_frame_hdr
 * search table, a CIE and one FDE, laid out as they would lie at an
 * address the unwinder serves them from.  CPython's perf trampolines
 * (pytramp.h) are described this way, and frame-pointer frames.
 *
 * Code without a file that keeps a frame pointer (JIT-compiled code in
 * anonymous memory: HotSpot with -XX:+PreserveFramePointer, its
 * interpreter and stubs, other JITs that keep one) has the frame
 * pointer's frame: the caller's frame pointer saved at rbp, the return
 * address at rbp+8, the caller's stack pointer rbp+16.  Written as CFI
 * (CFA = rbp+16, return address at CFA-8, rbp at CFA-16), libunwind
 * steps through it as through any other frame, with the caller's stack
 * pointer right: its own frame-pointer guess keeps the stack pointer at
 * the callee's plus 16 bytes, which is wrong in every frame with locals
 * and makes it give up once the frame pointer lies 16 KiB above that
 * guess (a deep Java stack).  A frame sampled before its prologue saved
 * the frame pointer loses its caller, as in any frame-pointer walk.
 */
#ifndef SP_RECORD_UNWIND_MADECFI_H
#define SP_RECORD_UNWIND_MADECFI_H

#include <stddef.h>
#include <stdint.h>

/* Size of what rec_madecfi_write writes: table 8, CIE 24, FDE 32. */
#define REC_MADECFI_MAX 64
/* The most instruction bytes a CIE and an FDE take. */
#define REC_MADECFI_CIE_OPS 7
#define REC_MADECFI_FDE_OPS 15

/*
 * Writes, for the code [start, start + len), the search table, a CIE
 * with the initial instructions cie_ops[0..ncie) and an FDE with the
 * instructions fde_ops[0..nfde), padded with DW_CFA_nop, as they would
 * lie at address `at` (8-aligned, within 2 GiB of start): table entries
 * are relative to `at`, which is the table's segment base.  The CIE
 * says: code alignment 1, data alignment -8, return address in column
 * 16, FDE pointers pc-relative sdata4.  Returns the bytes written
 * (REC_MADECFI_MAX).  Longer instructions are cut.
 */
size_t rec_madecfi_write(uint64_t start, uint32_t len, uint64_t at,
			 const uint8_t *cie_ops, size_t ncie,
			 const uint8_t *fde_ops, size_t nfde, uint8_t *out);

/* rec_madecfi_write for a frame-pointer frame (above). */
size_t rec_madecfi_fp(uint64_t start, uint32_t len, uint64_t at, uint8_t *out);

/*
 * rec_madecfi_write for a frame whose return address lies at
 * rsp + cfa_off - 8 (cfa_off below 128): CFA = rsp + cfa_off, the
 * return address at CFA-8, no other register saved.
 */
size_t rec_madecfi_sp(uint64_t start, uint32_t len, uint64_t at,
		      uint8_t cfa_off, uint8_t *out);

#endif
