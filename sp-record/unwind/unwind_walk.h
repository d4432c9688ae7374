/*
 * unwind_walk.h: a sample walked with libunwind, and what is kept of the
 * frames a walk found by reading the live stack above the copy.
 * Private to the unwinder's files.
 */
#ifndef SP_RECORD_UNWIND_UNWIND_WALK_H
#define SP_RECORD_UNWIND_UNWIND_WALK_H

#include <libunwind.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_unwind_ctx;
struct rec_unwind_go;

/*
 * Walks the frames from `cur` (at pcs[*n - 1]; `sig`: whether that
 * frame is the signal trampoline's) into pcs[*n..max), going on past a
 * Go stack switch with `go` (unwind_go.h), counting in c->count.  Returns what
 * the last step returned (0: the outermost frame was reached, <0: truncated,
 * c->err says why), with *first_live set to the index of the first pc
 * found with live reads (deepstack.h), or to max when there is none.
 */
int rec_unwind_walk(struct rec_unwind_go *go, struct rec_unwind_ctx *c,
		    unw_cursor_t *cur, int sig, uint64_t *pcs, size_t *n,
		    size_t max, size_t *first_live);

/*
 * After a walk that returned `r` and found `n` pcs: keeps the frames
 * found with live reads only when the chain reached its outermost frame
 * and the stack did not change under the reads; else cuts them off,
 * counting why.  Returns the number of pcs kept; sets *truncated when
 * frames were cut or the walk ended early.
 */
size_t rec_unwind_walk_settle(struct rec_unwind_ctx *c, int r, size_t n,
			      size_t first_live, bool *truncated);

#endif
