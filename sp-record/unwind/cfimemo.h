/*
 * cfimemo.h: the CFI rules the unwinder read (cfirule.h), kept by file
 * identity and ELF address, so that every process mapping the same file
 * (each cc1 of a build, at its own load address) finds the rule of a
 * frame already read in another: no FDE parsed twice per file.
 *
 * The identity is filememo.h's (device, inode, size, modification
 * time): a file rewritten or replaced is another key, so its old rules
 * are never served for it.  Values are 64-bit words (a packed rule, or a
 * word saying that address has none).  At most `max` are kept; the
 * memo is emptied when a new one would pass that, since rules are
 * cheap to read again and a whole build's fit well under the bound.
 *
 *   m = rec_cfimemo_new(REC_CFIMEMO_MAX);
 *   if (!rec_cfimemo_get(m, &file_id, vaddr, &word))
 *           ... read the rule, rec_cfimemo_put(m, &file_id, vaddr, word);
 */
#ifndef SP_RECORD_UNWIND_CFIMEMO_H
#define SP_RECORD_UNWIND_CFIMEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp-record/files/filememo.h"

/*
 * The default bound: a word costs about 112 bytes (its 48-byte key, its
 * slot in a table kept at most half full), so at most about 7 MiB; a
 * build of 40 files keeps about 5,000.
 */
#define REC_CFIMEMO_MAX (64u << 10)

struct rec_cfimemo;

/* An empty memo of at most `max` (>= 1) words; NULL with errno set. */
struct rec_cfimemo *rec_cfimemo_new(size_t max);
/* NULL is allowed. */
void rec_cfimemo_free(struct rec_cfimemo *m);

/* The word kept for address `vaddr` of file `id`; false when none is. */
bool rec_cfimemo_get(const struct rec_cfimemo *m,
		     const struct rec_filememo_id *id, uint64_t vaddr,
		     uint64_t *word);
/*
 * Keeps `word` for `vaddr` of `id` (replacing one kept for it), first
 * emptying the memo when `max` are kept.  Returns 0 or -ENOMEM (nothing
 * is kept then).
 */
int rec_cfimemo_put(struct rec_cfimemo *m, const struct rec_filememo_id *id,
		    uint64_t vaddr, uint64_t word);
/* How many words are kept; how many times the memo was emptied. */
size_t rec_cfimemo_count(const struct rec_cfimemo *m);
uint64_t rec_cfimemo_resets(const struct rec_cfimemo *m);

#endif
