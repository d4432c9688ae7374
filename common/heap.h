/*
 * heap.h: glibc's heap tuned for a tool whose run is short next to the
 * cost of its page faults.  In a VM each first touch of a 4 KiB page can
 * cost microseconds, more than the tools' work on a small profile; a heap
 * that grows in large steps over transparent huge pages takes one fault
 * per 2 MiB instead.
 */
#ifndef SP_HEAP_H
#define SP_HEAP_H

#include <stddef.h>

/*
 * Grows the heap by at least `pad` bytes at a time, starting now on a
 * huge page boundary, asks for transparent huge pages over the first
 * growth (a hint: where the system declines, pages fault in one by one
 * as before), keeps freed memory for reuse instead of returning it, and
 * serves blocks up to 32 MiB from the heap.  Only address space is taken
 * until it is used, but the first huge page is built at once.  Call
 * first thing in main().
 */
void sp_heap_tune(size_t pad);

#endif
