/*
 * search.c: the binary search of search.h.
 */
#include <string.h>

#include "common/search.h"
#include "common/banned.h"

size_t
sp_search_last_le(const void *base, size_t n, size_t size, size_t key_offset,
		  uint64_t key)
{
	const unsigned char *p = base;
	size_t lo = 0, hi = n, mid;
	uint64_t start;

	while (lo < hi) { /* lo: the first element with start > key */
		mid = lo + (hi - lo) / 2;
		memcpy(&start, p + mid * size + key_offset, sizeof(start));
		if (start <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : SIZE_MAX;
}
