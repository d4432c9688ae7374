/*
 * gofuncs.h: the functions of a Go module, from its ELF symbol table (or
 * its .gopclntab when it has none: gopclntab.h), for following Go's
 * stacks (goframes.h, issue 28).
 *
 * Go binaries carry no .eh_frame: the unwinder steps them by frame
 * pointer, and a goroutine's stack and the thread's system stack (g0) are
 * two stacks that runtime.systemstack, runtime.mcall and
 * runtime.morestack switch between.  Go's own traceback knows those
 * functions by name, and knows where a stack ends (runtime.goexit under
 * every goroutine, runtime.mstart and runtime.rt0_go under g0, and
 * runtime.mcall for its profiler, and runtime.sigtramp, with the
 * signal's return trampoline, under a signal handler: the interrupted
 * frames are not followed).  This
 * module finds them, and the start of every function, so that a frame
 * read from the live stack can be checked against the call before its
 * return address.
 *
 *   struct rec_gofuncs_mods *m = rec_gofuncs_mods_new();            per process
 *   fs = rec_gofuncs_mods_get(m, file);                       per module file
 *   if (fs && rec_gofuncs_find(fs, vaddr, &start, &kind)) ...
 *   rec_gofuncs_mods_free(m);
 */
#ifndef SP_RECORD_UNWIND_GOFUNCS_H
#define SP_RECORD_UNWIND_GOFUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_mapped;
struct rec_gofuncs;
struct rec_gofuncs_mods;

/*
 * What a function is to Go's traceback.  Its profiler's traceback goes
 * on from runtime.systemstack and runtime.morestack on g0 to the
 * goroutine that switched, and stops at runtime.mcall (whose callee,
 * the scheduler, works for no goroutine and never returns to it).
 */
enum rec_gofuncs_kind {
	REC_GOFUNC_OTHER,
	REC_GOFUNC_SYSTEMSTACK, /* runtime.systemstack: g to g0 and back */
	REC_GOFUNC_MORESTACK,   /* runtime.morestack(_noctxt): g to g0 */
	REC_GOFUNC_ROOT,  /* goexit, mstart, rt0_go, mcall, sigtramp ... */
	REC_GOFUNC_CLONE, /* runtime.clone: a new thread's only frame */
};

/*
 * Reads the function symbols of the ELF image `img` (`size` bytes), or
 * its .gopclntab's functions when it has no symbol table.  Returns NULL
 * with errno ENOENT when it has neither (of a layout read here) or is
 * not a Go program (none of the runtime functions below), EBADMSG when
 * the table is malformed, ENOMEM.  The result does not point into `img`.
 */
struct rec_gofuncs *rec_gofuncs_new(const uint8_t *img, size_t size);
void rec_gofuncs_free(struct rec_gofuncs *fs);

/*
 * The function holding ELF address `vaddr`: its start, its end and its
 * kind.  False when no function symbol covers it.
 */
bool rec_gofuncs_find(const struct rec_gofuncs *fs, uint64_t vaddr,
		      uint64_t *start, uint64_t *end,
		      enum rec_gofuncs_kind *kind);

/* The Go modules of one process, each read once.  NULL when no memory. */
struct rec_gofuncs_mods *rec_gofuncs_mods_new(void);
/* Frees the set and every table it read; NULL is allowed. */
void rec_gofuncs_mods_free(struct rec_gofuncs_mods *m);

/*
 * The functions of module file `f`, read on first use (from f->img);
 * NULL when it is not a Go program with symbols (remembered too).  The
 * result stays valid until rec_gofuncs_mods_free(); `f` must stay mapped while
 * the set holds it (the process's region cache holds it).
 */
const struct rec_gofuncs *rec_gofuncs_mods_get(struct rec_gofuncs_mods *m,
					       const struct rec_mapped *f);

#endif
