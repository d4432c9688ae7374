/*
 * kallsyms.h: kernel text symbols from /proc/kallsyms or a saved copy,
 * sorted for address lookups.  Lines are "ADDR TYPE NAME[\t[MODULE]]";
 * only text symbols (t, T, w, W) are kept.
 */
#ifndef SP_KALLSYMS_H
#define SP_KALLSYMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct sp_kallsyms;

/*
 * Reads a kallsyms file.  Returns the table, or NULL with errno set:
 * EBADMSG for a malformed line, whose number goes to *lineno when
 * `lineno` is not NULL.  A table whose addresses are all zero
 * (kptr_restrict) has no symbols.
 */
struct sp_kallsyms *sp_kallsyms_read(FILE *f, unsigned long *lineno);
struct sp_kallsyms *sp_kallsyms_load(const char *path,
				     unsigned long *lineno);
/* NULL is allowed. */
void sp_kallsyms_free(struct sp_kallsyms *k);
size_t sp_kallsyms_count(const struct sp_kallsyms *k);
/*
 * Finds the symbol at or below `addr`.  Returns true and sets *name,
 * *module ("[wireguard]", or NULL for the kernel image) and *start; the
 * strings belong to the table.
 */
bool sp_kallsyms_lookup(const struct sp_kallsyms *k, uint64_t addr,
			const char **name, const char **module,
			uint64_t *start);

#endif
