/*
 * clock.c: the recorder's clock (clock.h).
 */
#include <time.h>

#include "sp-record/sys/clock.h"
#include "common/banned.h"

uint64_t
rec_clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
