/*
 * kallsyms.h: kernel text symbols from /proc/kallsyms or a saved copy,
 * sorted for address lookups.  Lines are "ADDR TYPE NAME[\t[MODULE]]";
 * only text symbols (t, T, w, W) are kept.
 */
#ifndef SP_SYMBOLIZE_KERNEL_KALLSYMS_H
#define SP_SYMBOLIZE_KERNEL_KALLSYMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"

struct sym_kallsyms;

/*
 * Reads a kallsyms file.  Returns the table, or NULL with errno set:
 * EBADMSG for a malformed line, whose number goes to *lineno when
 * `lineno` is not NULL.  A table whose addresses are all zero
 * (kptr_restrict) has no symbols.
 */
struct sym_kallsyms *sym_kallsyms_read(FILE *f, unsigned long *lineno);
struct sym_kallsyms *sym_kallsyms_load(const char *path, unsigned long *lineno);
/* The same from the text in `b`, which the table takes (b is emptied). */
struct sym_kallsyms *sym_kallsyms_parse(struct sp_buf *b,
					unsigned long *lineno);
/*
 * Appends to `out`, in kallsyms form, the symbols of the kernel image
 * (no module) and the first symbol of each run of module symbols: a
 * table read from it finds, for any address, the symbol the whole table
 * finds when that is one of the image's, and else a module symbol (then
 * only the whole table knows).  Returns 0 or -ENOMEM.
 */
int sym_kallsyms_write_image(const struct sym_kallsyms *k, struct sp_buf *out);
/* NULL is allowed. */
void sym_kallsyms_free(struct sym_kallsyms *k);
size_t sym_kallsyms_count(const struct sym_kallsyms *k);
/*
 * Finds the symbol at or below `addr`.  Returns true and sets *name,
 * *module ("[wireguard]", or NULL for the kernel image) and *start; the
 * strings belong to the table.
 */
bool sym_kallsyms_lookup(const struct sym_kallsyms *k, uint64_t addr,
			 const char **name, const char **module,
			 uint64_t *start);

#endif
