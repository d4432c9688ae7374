/*
 * unwind_code.h: what the unwinder's parts ask of a process's code
 * during one unwind call (unwind_ctx.h): where module files lie, what is
 * code, where the trampolines are.  Private to the unwinder's files.
 */
#ifndef SP_RECORD_UNWIND_UNWIND_CODE_H
#define SP_RECORD_UNWIND_UNWIND_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_mapped;
struct rec_regcache_region;
struct rec_unwind_ctx;

/*
 * The module file region of c's process holding `addr` (regcache.h),
 * learnt from the module table the first time; NULL with *why set to
 * FB_NO_MODULE or FB_NO_FILE when there is none.
 */
const struct rec_regcache_region *
rec_unwind_code_region(struct rec_unwind_ctx *c, uint64_t addr, int *why);

/*
 * Whether `ip`, in no module, lies in a CPython perf trampoline
 * (pytramp.h): then *start and *endbr describe it.  Answers are kept
 * per process; a failed read of its memory is not.
 */
bool rec_unwind_code_tramp_at(struct rec_unwind_ctx *c, uint64_t ip,
			      uint64_t *start, bool *endbr);

/*
 * Whether `addr` can be a return address: it lies in a module or in
 * anonymous executable memory (rec_unwind_add_code).
 */
bool rec_unwind_code_is_code(struct rec_unwind_ctx *c, uint64_t addr);

/* Whether `addr` holds the signal trampoline (rt_sigreturn's). */
bool rec_unwind_code_is_trampoline(struct rec_unwind_ctx *c, uint64_t addr);

/*
 * The index of f's search table entry for ELF address `vaddr`, the last
 * whose initial location is at or below it; false when there is none.
 */
bool rec_unwind_code_fde_index(const struct rec_mapped *f, uint64_t vaddr,
			       size_t *index);

/* That entry itself (two 32-bit words), as rec_unwind_code_fde_index finds it.
 */
bool rec_unwind_code_fde_lookup(const struct rec_mapped *f, uint64_t vaddr,
				int32_t entry[2]);

#endif
