/*
 * heap.c: glibc's heap tuned for short runs (see heap.h).
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/heap.h"
#include "common/banned.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1 */
#endif

#define HUGE_PAGE ((uintptr_t)2 << 20)

void
sp_heap_tune(size_t pad)
{
	/* More than the heap's top holds, so that the heap must grow. */
	size_t first = mallinfo2().keepcost + (64 << 10);
	/* Volatile: the compiler must not drop the malloc and free pair. */
	void *volatile grow;
	uintptr_t lo, hi, last;

	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TOP_PAD, (int)pad);
	/*
	 * Start the new heap on a huge page (what is skipped is address
	 * space only, never touched).
	 */
	lo = (uintptr_t)sbrk(0);
	if (lo != (uintptr_t)-1 && lo & (HUGE_PAGE - 1))
		sbrk((intptr_t)(HUGE_PAGE - (lo & (HUGE_PAGE - 1))));
	lo = (uintptr_t)sbrk(0);
	grow = malloc(first);
	hi = (uintptr_t)sbrk(0);
	free(grow);
	if (lo == (uintptr_t)-1 || lo & (HUGE_PAGE - 1) || hi <= lo)
		return;
	madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	/*
	 * malloc wrote the headers of that block and of what follows it
	 * before the advice, which keeps their huge pages from forming as
	 * the heap's first blocks use them: build them now (kernels before
	 * 6.1 refuse; no harm).
	 */
	madvise((void *)lo, HUGE_PAGE, MADV_COLLAPSE);
	last = (lo + first) & ~(HUGE_PAGE - 1);
	if (last != lo && last + HUGE_PAGE <= hi)
		madvise((void *)last, HUGE_PAGE, MADV_COLLAPSE);
}
