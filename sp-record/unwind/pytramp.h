/*
 * pytramp.h: CPython's perf trampolines (python -X perf, -X perf_jit,
 * PYTHONPERFSUPPORT=1), recognised by their code and described in CFI.
 *
 * With perf support on, CPython 3.12+ calls each Python function's
 * evaluator through a copy of a tiny trampoline placed in anonymous
 * executable memory, so that the function gets an address a perf map can
 * name.  The copies have no CFI (and libpython's original has none
 * either), but their code is fixed:
 *
 *   [endbr64]  sub $8,%rsp;  call *%rcx;  add $8,%rsp;  ret
 *
 * so their frame is known: the CFA is rsp+8, or rsp+16 between the sub
 * and the add, and the return address is at CFA-8.  The unwinder reads
 * the code bytes around a pc that no module covers, and when they are a
 * trampoline, hands libunwind the CFI below as if the file had it.
 */
#ifndef SP_RECORD_UNWIND_PYTRAMP_H
#define SP_RECORD_UNWIND_PYTRAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes to read on each side of a pc to recognise its trampoline. */
#define REC_PYTRAMP_WINDOW 16

/*
 * Whether `ip` lies inside a trampoline whose bytes are in `buf` (`len`
 * bytes of the process's memory from address `buf_addr`).  Sets *start to
 * the trampoline's first byte (its endbr64 when it has one) and *endbr.
 */
bool rec_pytramp_match(const uint8_t *buf, size_t len, uint64_t buf_addr,
		       uint64_t ip, uint64_t *start, bool *endbr);

/*
 * Writes, for the trampoline at `start`, a one-entry .eh_frame_hdr search
 * table followed by a CIE and an FDE, as they would lie at address `at`
 * (8-aligned, within 2 GiB of start): table entries are relative to
 * `at`, which is the table's segment base.  Returns the bytes written
 * (REC_MADECFI_MAX, madecfi.h).
 */
size_t rec_pytramp_cfi(uint64_t start, bool endbr, uint64_t at, uint8_t *out);

/* The trampoline's length in bytes. */
size_t rec_pytramp_len(bool endbr);

#endif
