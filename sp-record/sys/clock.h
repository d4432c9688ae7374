/*
 * clock.h: the clock sp-record stamps its own work with: the monotonic
 * clock, the one perf events use (use_clockid), so times the recorder
 * takes and times the kernel writes compare.
 */
#ifndef SP_RECORD_SYS_CLOCK_H
#define SP_RECORD_SYS_CLOCK_H

#include <stdint.h>

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t rec_clock_now_ns(void);

#endif
