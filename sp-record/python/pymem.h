/*
 * pymem.h: bounded reads of another process's writable memory, for the
 * CPython frame reader.
 *
 * Reads go through process_vm_readv, so the target never stops.  Every
 * read must lie inside one run of the target's writable mappings (a
 * frame, thread state or code object anywhere else is a pointer gone
 * stale), and a sample's reads share a byte budget, so a chain that
 * changes under the reader costs a bounded amount.  The mappings are
 * reread at most once per sample, when an address misses them; and a
 * process with many of them (a 4 MB maps file of 60,000 mappings takes
 * tens of milliseconds to read) has them reread only once they changed
 * (an mmap seen, rec_pymem_changed) or enough of its samples went by
 * (rec_pymem_tick): one a REC_PYMEM_MAPS_TICK bytes of its last maps, so
 * a frame chain that points outside them costs no more than this a
 * sample, however often it is sampled.  (perf reports only executable
 * mappings, never the anonymous memory a growing heap takes: the
 * samples are what bring that in.)
 *
 * A system call costs more than copying a page (several microseconds
 * in a VM), so reads of up to a page are served from whole pages read
 * once per sample: frames that share a page (3.11+ keep a thread's
 * frames side by side) cost one call, and are seen at one moment.  A
 * thread's next sample mostly uses the same pages (its thread state,
 * the stack of its frames), so a caller may prefetch the pages of the
 * last sample in one call, and gather small reads into one
 * (rec_pymem_readv).
 */
#ifndef SP_RECORD_PYTHON_PYMEM_H
#define SP_RECORD_PYTHON_PYMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Blocks rec_pymem_readv reads at most. */
#define REC_PYMEM_MANY 256

/* Bytes of maps text a sample of the process pays a reread for. */
#define REC_PYMEM_MAPS_TICK 16384

/* Pages kept for one sample. */
#define REC_PYMEM_PAGES 16
#define REC_PYMEM_PAGE 4096

struct rec_pymem_page;

struct rec_pymem_range {
	uint64_t start, end; /* end exclusive */
};

/* Embedded in its user; start with rec_pymem_init. */
struct rec_pymem {
	int32_t pid;
	struct rec_pymem_range *ranges; /* sorted, adjacent ones merged */
	size_t nranges, alloc;
	struct rec_pymem_page *pages; /* REC_PYMEM_PAGES of them */
	size_t npages, next;          /* kept; the next to replace */
	size_t budget;                /* bytes this sample may still read */
	bool reread;     /* the maps were reread during this sample */
	bool changed;    /* ... changed since they were last read */
	size_t maps_len; /* bytes of maps text last read */
	uint64_t ticks;  /* samples since then (rec_pymem_tick) */
	uint64_t clock;  /* counts the pages read, each one's stamp */
	uint64_t bytes_read, maps_reads; /* totals, for tests and costs */
	uint64_t faults; /* reads refused outside the mappings or short */
};

/* Sets up reads of `pid` and reads its maps.  Returns 0 or -errno. */
int rec_pymem_init(struct rec_pymem *m, int32_t pid);
/* Frees the mappings; `m` may then be initialized again. */
void rec_pymem_release(struct rec_pymem *m);

/*
 * Starts a sample: `budget` bytes may be read until the next start, and
 * pages kept are dropped.
 */
void rec_pymem_begin(struct rec_pymem *m, size_t budget);

/*
 * Reads `len` bytes at `addr` into `buf`.  Returns 0; -EFAULT when the
 * range is not inside the writable mappings or the read came back short;
 * -E2BIG when the sample's budget would be passed (nothing is read);
 * -ESRCH when the process is gone; -ENOMEM.  A read of up to a page may
 * come from a page read earlier in the sample (and costs its page).
 */
int rec_pymem_read(struct rec_pymem *m, uint64_t addr, void *buf, size_t len);

/*
 * The same, taking bytes only from a kept page read no earlier than
 * *since (0: any), an older copy being read again in its place; *since
 * becomes the stamp of the last page read from.  A chain of reads, each
 * of a pointer the one before read, passing one *since, sees each datum
 * no earlier than the pointer that led to it, as reads one after the
 * other would: a frame, then its caller, never from a copy of the
 * caller's memory older than the frame.
 */
int rec_pymem_read_after(struct rec_pymem *m, uint64_t addr, void *buf,
			 size_t len, uint64_t *since);

/* One block of rec_pymem_readv: `len` bytes at `addr` into `buf`. */
struct rec_pymem_block {
	uint64_t addr;
	void *buf;
	size_t len;
	bool ok; /* set by the read: the block was read whole */
};

/*
 * Reads blocks b[0..n) in one system call, from the process now and in
 * their order (a block is read after the ones before it), setting each
 * one's `ok`: inside the writable mappings, and before any block that
 * failed.  Returns 0, -E2BIG when the blocks would pass the budget
 * (nothing is read, every `ok` false), -ESRCH when the process is gone.
 */
int rec_pymem_readv(struct rec_pymem *m, struct rec_pymem_block *b, size_t n);

/*
 * Reads blocks b[0..nb) as rec_pymem_readv does, then pages[0..np)
 * (page addresses), in one system call and in that order, the pages
 * read replacing the pages kept.  A sample that uses the pages an
 * earlier one used pays one call for all of them and sees them at one
 * moment; reads after the call that take bytes from a page read later
 * than the blocks.  Pages outside the writable mappings as last read,
 * past the budget or after a block or page that failed are not kept (a
 * later read of one reads it then), nor those past REC_PYMEM_PAGES.
 * Returns how many pages were kept, -E2BIG (nothing read), -ESRCH or
 * -ENOMEM.
 */
int rec_pymem_prefetch(struct rec_pymem *m, struct rec_pymem_block *b,
		       size_t nb, const uint64_t *pages, size_t np);

/*
 * Copies the addresses of the kept pages that reads took bytes from, in
 * the order they were read, into pages[0..max) and returns how many:
 * what a later sample may prefetch.
 */
size_t rec_pymem_used(const struct rec_pymem *m, uint64_t *pages, size_t max);

/*
 * A sample of the process went by: counts towards the next reread of
 * its maps (a process of up to REC_PYMEM_MAPS_TICK bytes of them needs
 * none, and has them reread at any sample an address misses them).
 */
void rec_pymem_tick(struct rec_pymem *m);
/* The process's mappings changed: the next miss rereads them. */
void rec_pymem_changed(struct rec_pymem *m);

/* Drops the pages kept, so that the next reads see the process now. */
void rec_pymem_forget(struct rec_pymem *m);

/* The same, always from the process now (a change is to be seen). */
int rec_pymem_read_now(struct rec_pymem *m, uint64_t addr, void *buf,
		       size_t len);

#endif
