/*
 * ehframe.h: a binary search table for .eh_frame, built by the recorder
 * for files that carry CFI but no .eh_frame_hdr.
 *
 * GCC asks the linker for .eh_frame_hdr in dynamic and static-pie links
 * only, so a plain -static executable has every FDE but no sorted table;
 * libunwind's remote lookup needs one.  This builds the same table the
 * linker would have written: one pair of int32 (initial location, FDE
 * address), both relative to the .eh_frame section's address, sorted by
 * initial location.
 */
#ifndef SP_RECORD_UNWIND_EHFRAME_H
#define SP_RECORD_UNWIND_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

/*
 * Indexes the .eh_frame bytes `sec` (`len` bytes, at ELF virtual address
 * `vaddr`).  On success returns 0 and sets *table to a malloc'ed array of
 * 2 * *count int32 (the caller frees it); FDEs with an encoding libunwind
 * could not use either, or a zero initial location (discarded code), are
 * left out.  Returns -EBADMSG when the section is malformed or too large
 * for 32-bit offsets, -ENOENT when it holds no FDE, -ENOMEM.
 */
int rec_ehframe_index(const uint8_t *sec, size_t len, uint64_t vaddr,
		      int32_t **table, size_t *count);

#endif
