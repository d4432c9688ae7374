/*
 * offcpu.h: --off-cpu's waiting threads.  A thread switched out leaves
 * its stack here (unwound from the context-switch sample); when it is
 * switched in again the stack is taken back and written with the time it
 * spent off the CPU as its weight.
 */
#ifndef SP_RECORD_PERF_OFFCPU_H
#define SP_RECORD_PERF_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/ext.h"
#include "common/spool.h"

struct rec_offcpu;

/* A stack waiting for its thread to run again. */
struct rec_offcpu_wait {
	int32_t pid;
	uint64_t tid;
	uint64_t out_ns;          /* when it was switched out */
	enum sp_wait_state state; /* why, once known */
	size_t nframes;
	struct sp_frame frames[]; /* leaf first */
};

struct rec_offcpu *rec_offcpu_new(void);
/* Frees the table and every stack still waiting. */
void rec_offcpu_free(struct rec_offcpu *t);
/*
 * Keeps a copy of `n` frames for thread `tid`, switched out at `out_ns`
 * in `state` (SP_WAIT_NONE: not known yet), replacing an older one of the
 * same thread (a switch-in never seen).  Returns 0 or -ENOMEM.
 */
int rec_offcpu_put(struct rec_offcpu *t, int32_t pid, uint64_t tid,
		   uint64_t out_ns, enum sp_wait_state state,
		   const struct sp_frame *frames, size_t n);
/* The stack waiting for `tid`, left in the table, or NULL. */
struct rec_offcpu_wait *rec_offcpu_peek(struct rec_offcpu *t, uint64_t tid);
/* Takes the stack waiting for `tid` (the caller frees it), or NULL. */
struct rec_offcpu_wait *rec_offcpu_take(struct rec_offcpu *t, uint64_t tid);
/* Takes any waiting stack (to flush them at the end), or NULL. */
struct rec_offcpu_wait *rec_offcpu_take_any(struct rec_offcpu *t);
size_t rec_offcpu_count(const struct rec_offcpu *t);

#endif
