/*
 * satmath.h: arithmetic that stops at the type's largest value instead
 * of wrapping.  Counts meet periods and weights in the writers (a run
 * record may say 10^14 samples; a period is 10^7 ns): a profile that
 * says "at least this much" is honest where a wrapped one is not.
 */
#ifndef SP_SATMATH_H
#define SP_SATMATH_H

#include <stdint.h>

/* a * b, or UINT64_MAX when the product does not fit. */
static inline uint64_t
sp_sat_mul_u64(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* a + b, or UINT64_MAX when the sum does not fit. */
static inline uint64_t
sp_sat_add_u64(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* `v` as an int64_t (profile.proto's values), INT64_MAX when larger. */
static inline int64_t
sp_sat_i64(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

#endif
