/* grow.c: the growth policy of grow.h. */
#include <stdint.h>

#include "common/grow.h"
#include "common/banned.h"

size_t
sp_grow_size(size_t alloc, size_t need, size_t elem)
{
	size_t n = alloc ? alloc : 16;

	while (n < need) {
		if (n > SIZE_MAX / 2)
			return 0;
		n *= 2;
	}
	return elem && n > SIZE_MAX / elem ? 0 : n;
}
