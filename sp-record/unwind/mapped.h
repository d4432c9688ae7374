/*
 * mapped.h: the module files the unwinder reads, mapped once and cached.
 *
 * For each file it keeps the loadable segments (to read any virtual
 * address of the file's image) and where the .eh_frame_hdr binary search
 * table lies, which is all the DWARF unwinder needs from disk.  ELF64
 * little-endian only; every read is checked against the file's size.
 *
 * Files are counted out and back (get, put): a file nobody holds stays
 * mapped on an idle list of at most REC_MAPPED_IDLE_MAX files, for the
 * next process that runs it, unless its path no longer names it.
 */
#ifndef SP_RECORD_UNWIND_MAPPED_H
#define SP_RECORD_UNWIND_MAPPED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp-record/files/filememo.h"

struct rec_filepin;
struct sp_module;
struct rec_mapped_cache;

#define REC_MAPPED_MAX_LOADS 16
#define REC_MAPPED_IDLE_MAX 32

struct rec_mapped_seg {
	uint64_t vaddr, memsz, offset, filesz;
	bool exec; /* PF_X */
};

/* One mapped ELF file; owned by the cache, valid until put back. */
struct rec_mapped {
	const uint8_t *img; /* the whole file, read-only */
	size_t size;
	struct rec_filememo_id
	    id; /* what it was opened as; all zero: the vdso */
	struct rec_mapped_seg load[REC_MAPPED_MAX_LOADS];
	size_t nload;
	uint64_t min_vaddr, max_vaddr; /* span of the PT_LOAD segments */
	/*
	 * The FDE search table: fde_count pairs of int32 (initial location,
	 * FDE address), sorted, relative to table_base (an ELF address):
	 * the .eh_frame_hdr table inside img when has_hdr, else one built
	 * from .eh_frame (ehframe.h) and owned by the cache; NULL if none.
	 */
	bool has_hdr;
	const uint8_t *table;
	uint64_t table_base, fde_count;
	int32_t *built_table; /* what `table` points to when built */
};

/*
 * Returns an empty cache, or NULL with errno set; files are opened
 * through `pins` (borrowed, may be NULL) as a last resort.
 */
struct rec_mapped_cache *rec_mapped_cache_new(struct rec_filepin *pins);
/* Unmaps every file and frees the cache; NULL is allowed. */
void rec_mapped_cache_free(struct rec_mapped_cache *c);

/*
 * Returns the file behind user module `m` of process `pid`, mapping it on
 * first use: from m->path when its inode matches (or m->inode is 0), else
 * /proc/PID/map_files/START-END, else /proc/PID/root/PATH; "[vdso]" is
 * copied from /proc/PID/mem.  Returns NULL when it cannot be read or is
 * not an ELF64 file; failures are cached too, on the idle list, so a
 * file costs one attempt while it is there.  Each file returned is held
 * until given back with rec_mapped_put (or the cache is freed).
 */
const struct rec_mapped *rec_mapped_get(struct rec_mapped_cache *c,
					const struct sp_module *m, int32_t pid);
/*
 * Gives back a file rec_mapped_get returned (NULL is allowed); `f` is not
 * to be used after.  The last holder's put moves it to the idle list,
 * whose least recently used file is unmapped when the list is full; a
 * file whose path no longer names it (deleted, replaced), or that
 * changed under its mapping, is unmapped at once.
 */
void rec_mapped_put(struct rec_mapped_cache *c, const struct rec_mapped *f);
/* How many files the cache holds mapped (or copied, the vdso) now. */
size_t rec_mapped_mapped(const struct rec_mapped_cache *c);

/*
 * Notices the files that shrank under their mapping since the last call
 * (mapguard.h) and drops them: rec_mapped_get returns NULL for them and
 * the struct rec_mapped it returned before has no segments and no table
 * left.  Returns how many files were dropped so far.  Cheap when nothing
 * happened: call it after each use.
 */
uint64_t rec_mapped_changed(struct rec_mapped_cache *c);

/*
 * The load bias of mapping `m` of file `f`: runtime address = bias + ELF
 * virtual address.  Uses the PT_LOAD segment whose mapped pages hold
 * m->file_offset; where two segments share that page (LLD starts its code
 * segment on the page that ends the read-only one, at a virtual address
 * one page further on), the executable one, since modules are the
 * process's executable mappings.
 */
uint64_t rec_mapped_bias(const struct rec_mapped *f, const struct sp_module *m);

/*
 * Copies `len` bytes at ELF virtual address `vaddr` into `buf`.  Returns 0,
 * or -EFAULT when the range is not entirely inside one segment's file
 * bytes.
 */
int rec_mapped_read(const struct rec_mapped *f, uint64_t vaddr, void *buf,
		    size_t len);
/*
 * The file bytes of the segment holding ELF virtual address `vaddr`, for
 * a caller that reads many small pieces of it: returns a pointer into the
 * image at ELF address *lo (<= vaddr), valid for *len bytes (> vaddr -
 * *lo) while `f` is held, or NULL when no segment's file bytes hold
 * `vaddr`.
 */
const uint8_t *rec_mapped_span(const struct rec_mapped *f, uint64_t vaddr,
			       uint64_t *lo, size_t *len);

#endif
