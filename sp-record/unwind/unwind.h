/*
 * unwind.h: DWARF unwinding of sampled user stacks (issue 4).
 *
 * The recorder copies each sample's user registers (PERF_SAMPLE_REGS_USER)
 * and the top of its user stack (PERF_SAMPLE_STACK_USER); this module turns
 * them into the chain of user pcs, leaf first.  Unwind tables come from the
 * modules' .eh_frame_hdr/.eh_frame read from disk (the module's path, else
 * /proc/PID/map_files/START-END, else /proc/PID/root/PATH; [vdso] from
 * /proc/PID/mem), parsed once and cached.  Where CFI is missing or fails for
 * a frame, that step follows the frame pointer; each such step is counted
 * by reason.  A module without .eh_frame_hdr (one with only .debug_frame)
 * is stepped that way too: "unwind_fallback.no_module_unwind_data".
 *
 * A stack deeper than the copy is read on from the live process
 * (deepstack.h: within the SP's mapping, up to --stack-read past the copy).
 * Frames found that way are kept only when every such step used CFI, each
 * CFA lies above the last, each return address is code, the chain ends
 * where CFI marks the outermost frame, and the copy's last words read the
 * same in the live stack afterwards; otherwise they are dropped and the
 * stack is truncated as if the copy had simply run out.  Kept frames are
 * remembered per process (deepcache.h): the next sample of the same
 * stack takes them once it reaches one of them, and verifies the words
 * they were found with instead of reading and unwinding them again.
 *
 * Go programs (no CFI: every frame is stepped by frame pointer) switch
 * stacks: runtime.systemstack and runtime.morestack run on the thread's
 * g0 stack while the goroutine's frames stay on its own.  Where the
 * unwinder stops at such a switch it takes the rest from the kernel's
 * frame-pointer walk of the sample (rec_unwind_set_fpchain), each
 * frame checked (goframes.h), as it does where a goroutine's stack is
 * deeper than the copy; runtime.mstart and runtime.mcall end a stack,
 * as in Go's own traceback.
 *
 * How sp-record calls it (one unwinder for the whole recording):
 *
 *   u = rec_unwind_new(pins);                    at start-up
 *   for each PERF_RECORD_SAMPLE with user regs and stack, at drain time:
 *       n = rec_unwind_unwind(u, mods, pid, regs, attr.sample_regs_user,
 *               stack_data, dyn_size, pcs, REC_UNWIND_MAX_FRAMES, &trunc);
 *       - frames = the kernel callchain frames (from PERF_SAMPLE_CALLCHAIN,
 *         user part excluded and counted), then for i < n
 *         sp_modtab_resolve(mods, pid, pcs[i], SP_FRAME_USER, &frame),
 *         then, when trunc, sp_frame_truncated_marker() (count it: the
 *         summary's truncated-marker counter);
 *       - when the frames are still empty, use the sample ip alone, as the
 *         reference recorder does.
 *       The pcs are already call sites (return address - 1): do not
 *       subtract again.  regs is the sample's register array exactly as
 *       the kernel wrote it (values in mask order, without the abi word);
 *       pass regs NULL when the abi word is PERF_SAMPLE_REGS_ABI_NONE (or
 *       not ABI_64), stack NULL/0 when dyn_size is 0: both are counted as
 *       errors and 0 is returned.
 *   on exec, on process exit, and when a process's modules are replaced
 *   (an unmap or a new mapping over an old one):
 *       rec_unwind_forget_process(u, pid);
 *   for the stderr summary and the stats extension record (SP_EXT_STATS):
 *       rec_unwind_counters(u, fn, arg);   fn gets each nonzero counter,
 *                                           e.g. "unwind_fallback.no_module";
 *                                           "unwind.changed_files" counts
 *                                           module files cut on disk while
 *                                           mapped, whose CFI is dropped
 *   at the end: rec_unwind_free(u);
 *
 * The module table must be up to date for `pid` when unwinding (modules
 * interned before the sample is handled: the event sorter's job).  It is
 * only read.  The unwinder is single-threaded: one thread calls it.
 */
#ifndef SP_RECORD_UNWIND_UNWIND_H
#define SP_RECORD_UNWIND_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_filepin;
struct sp_modtab;
struct rec_unwind;

/* Unwinding stops after this many frames and reports a truncated stack. */
#define REC_UNWIND_MAX_FRAMES 1024

/*
 * The registers sp-record should request on x86_64 (sample_regs_user): all
 * but DS, ES, FS and GS, which the kernel rejects.  The unwinder needs at
 * least IP, SP and BP; any mask holding them works.
 */
#define REC_UNWIND_REGS_MASK 0xff0fffULL

/*
 * Creates an unwinder with empty caches, opening module files through
 * `pins` (borrowed, may be NULL) as a last resort.  Returns NULL with
 * errno set (ENOMEM, or ENOSYS when the unwinding library is unusable).
 */
struct rec_unwind *rec_unwind_new(struct rec_filepin *pins);
/* Frees the unwinder, its per-process state and cached files.  NULL ok. */
void rec_unwind_free(struct rec_unwind *u);

/*
 * Unwinds one sample of process `pid`.  `regs` holds one u64 per set bit of
 * `regs_mask`, lowest bit first (perf_regs.h numbering); `stack` holds the
 * `stack_len` bytes copied from the sample's SP upwards.  Neither is kept
 * after the call.  Writes at most `max` call-site addresses into `pcs`,
 * leaf first: pcs[0] is the sampled pc, each caller's is its return
 * address minus one (except, where no call happened, the signal
 * trampoline and the frame a signal interrupted, whose pcs are exact).
 * Sets *truncated when unwinding stopped before the outermost frame: the
 * stack copy ran out, `max` frames were reached, or a step failed (each
 * counted by kind).  Returns the number of pcs written (0 when registers
 * or stack are missing).  Never fails otherwise.
 */
size_t rec_unwind_unwind(struct rec_unwind *u, struct sp_modtab *mods,
			 int32_t pid, const uint64_t *regs, uint64_t regs_mask,
			 const uint8_t *stack, size_t stack_len, uint64_t *pcs,
			 size_t max, bool *truncated);

/*
 * Hands the unwinder the kernel's frame-pointer walk of the next
 * sample's user stack (PERF_SAMPLE_CALLCHAIN's user part): `pcs[0]` the
 * sampled pc, then call sites (return address - 1), `n` of them (0:
 * none).  The next rec_unwind_unwind() reads it and forgets it; it
 * must stay valid until then.  Where a Go program's stack switch stops
 * the unwinder (gofuncs.h), the frames of this walk past the switch are
 * taken, each checked as a live Go frame would be (unwind_go.c).
 */
void rec_unwind_set_fpchain(struct rec_unwind *u, const uint64_t *pcs,
			    size_t n);

/*
 * Whether samples are first unwound with the recorder's own CFI rules
 * (cfirule.h, kept per file by cfimemo.h: a process's first samples
 * cost no more than its last), libunwind taking only the samples those
 * cannot finish; on by default.  Off, libunwind unwinds every sample.
 * The rules take only stacks they unwind as libunwind does (the tests
 * compare pcs and truncation both ways); the counters differ only in
 * "unwind.own_cfi_*".
 */
void rec_unwind_set_own_cfi(struct rec_unwind *u, bool on);

/*
 * Sets how many bytes past each sample's stack copy may be read from the
 * live process (0: none, the stack is truncated where the copy ends).
 * The default is REC_DEEPSTACK_BUDGET (sp-record --stack-read).  Returns
 * 0 or -ENOMEM (reads are off then).
 */
int rec_unwind_set_stack_read(struct rec_unwind *u, size_t bytes);

/*
 * Whether the last rec_unwind_unwind met a code address that no module
 * of the process covers (that step fell back to the frame pointer); the
 * first such address goes to *pc (pc may be NULL).  The module table may
 * be missing a mapping (a lost MMAP2 record, or ptrace mode's
 * /proc/PID/maps snapshot taken before the libraries loaded): the caller
 * may re-read /proc/PID/maps (at most now and then: once per page of *pc)
 * and unwind the sample again: new modules are picked up without
 * forgetting anything.
 */
bool rec_unwind_missed_module(const struct rec_unwind *u, uint64_t *pc);

/*
 * Drops what is cached for `pid` (its unwind cache and module view).  Call
 * it on exec and exit, and when its mappings were replaced.  Module files
 * stay cached (by path and inode) for the unwinder's life.
 */
void rec_unwind_forget_process(struct rec_unwind *u, int32_t pid);

/*
 * Tells the unwinder that [start, end) of `pid` is anonymous executable
 * memory (JIT code, CPython's perf trampolines: an executable mapping
 * without a file).  A caller's return address must lie in a module of the
 * table or in such memory, or unwinding stops there as truncated
 * ("unwind_error.return_address_not_code"), so that a failed step never
 * writes garbage as a frame.  A new range replaces the ranges it
 * overlaps.  Returns 0 or -ENOMEM.
 */
int rec_unwind_add_code(struct rec_unwind *u, int32_t pid, uint64_t start,
			uint64_t end);

/*
 * Forgets everything known of `pid`, its anonymous code included: call it
 * on exec and exit (rec_unwind_forget_process keeps the code ranges,
 * which the module table cannot give back).
 */
void rec_unwind_end_process(struct rec_unwind *u, int32_t pid);

/*
 * Calls fn(key, value, arg) for every nonzero counter, in a fixed order.
 * Keys are "unwind_error.KIND" (samples whose unwinding stopped early or
 * could not start) and "unwind_fallback.KIND" (frames stepped with the
 * frame pointer because CFI was missing or failed), plus "unwind.samples"
 * and "unwind.frames", and "unwind_deep.KIND" for the reads past the copy:
 * samples (that read any), completed (their live frames kept), cached
 * (completed with frames kept from an earlier sample, deepcache.h),
 * stack_changed and unverified (dropped: also counted as
 * unwind_error.stack_truncated), reads (system calls), bytes, maps_reads
 * (/proc/PID/maps reads to find a stack's mapping); "unwind.own_cfi_samples"
 * (samples unwound with the recorder's own CFI rules, no libunwind) and
 * "unwind.own_cfi_rules_read" (rules read from module files, once per
 * file and address however many processes map the file).  Keys are
 * static strings.
 */
/*
 * Whether the last sample unwound read its stack past the copy; then
 * [*lo, *hi) is the mapping that holds its SP (deepbpf.h).
 */
bool rec_unwind_last_deep(const struct rec_unwind *u, uint64_t *lo,
			  uint64_t *hi);
/*
 * Samples so far whose unwind read the stack past the copy (deepstack.h):
 * the recorder reads its rings sooner while they come.
 */
uint64_t rec_unwind_deep_samples(const struct rec_unwind *u);

void rec_unwind_counters(const struct rec_unwind *u,
			 void (*fn)(const char *key, uint64_t value, void *arg),
			 void *arg);

#endif
