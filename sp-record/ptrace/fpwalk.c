/*
 * fpwalk.c: the frame-pointer walk of a stopped thread (fpwalk.h).
 */
#include <linux/perf_event.h>
#include <stdbool.h>
#include <string.h>
#include <sys/uio.h>

#include "sp-record/ptrace/fpwalk.h"
#include "common/banned.h"

#define PAGE 4096u

/*
 * The last page read from the thread: a goroutine's frames past a switch
 * lie close together, so one read serves several records.
 */
struct page {
	bool have; /* bytes hold the page at base */
	uint64_t base;
	uint8_t bytes[PAGE];
};

/* Reads the 16-byte record at `fp` into rec[2]; false when it cannot. */
static bool
read_record(pid_t tid, uint64_t fp, uint64_t sp, const uint8_t *stack,
	    size_t len, struct page *pg, uint64_t rec[2])
{
	struct iovec local, remote;
	uint64_t base = fp & ~(uint64_t)(PAGE - 1);

	if (fp >= sp && fp - sp <= len && len - (fp - sp) >= 16) {
		memcpy(rec, stack + (fp - sp), 16);
		return true;
	}
	/* a record across two pages is read alone */
	if (fp - base > PAGE - 16) {
		local = (struct iovec){ rec, 16 };
		remote = (struct iovec){ (void *)(uintptr_t)fp, 16 };
		return process_vm_readv(tid, &local, 1, &remote, 1, 0) == 16;
	}
	if (!pg->have || pg->base != base) {
		pg->have = false;
		local = (struct iovec){ pg->bytes, PAGE };
		remote = (struct iovec){ (void *)(uintptr_t)base, PAGE };
		if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != PAGE)
			return false;
		pg->have = true;
		pg->base = base;
	}
	memcpy(rec, pg->bytes + (fp - base), 16);
	return true;
}

size_t
rec_fpwalk(pid_t tid, uint64_t ip, uint64_t bp, uint64_t sp,
	   const uint8_t *stack, size_t len, uint64_t *chain, size_t max)
{
	struct page pg;
	uint64_t rec[2], fp = bp;
	size_t n = 0;

	pg.have = false;
	if (max < 2)
		return 0;
	chain[n++] = (uint64_t)PERF_CONTEXT_USER;
	chain[n++] = ip;
	while (n < max && n < REC_FPWALK_MAX + 2 && fp && !(fp & 7) &&
	       read_record(tid, fp, sp, stack, len, &pg, rec) && rec[1]) {
		chain[n++] = rec[1];
		fp = rec[0];
	}
	return n;
}
