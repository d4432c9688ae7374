/*
 * unwind_acc.h: the libunwind address space of a process, whose
 * accessors read one unwind call's context (unwind_ctx.h): pass the
 * context as unw_init_remote's argument.  Private to the unwinder's
 * files.
 */
#ifndef SP_RECORD_UNWIND_UNWIND_ACC_H
#define SP_RECORD_UNWIND_UNWIND_ACC_H

#include <libunwind.h>

struct rec_unwind_ctx_proc;

/*
 * The libunwind address space of `p`, made when its first sample needs
 * libunwind, with a global cache; NULL when it cannot be made.  Call it
 * with rec_sigmask_in_libunwind set (sigmask.h).  p->as holds it; whoever frees
 * `p` destroys it.
 */
unw_addr_space_t rec_unwind_acc_proc_as(struct rec_unwind_ctx_proc *p);

#endif
