/*
 * gopclntab.h: the function table of a Go module's .gopclntab, for Go
 * programs without a symbol table (linked with -s, or stripped), whose
 * runtime still needs it (issue 28).
 *
 * Only the layout of Go 1.18 and later is read (magic 0xfffffff0 and
 * 0xfffffff1, 8-byte pointers): a header, then nfunc + 1 entries of
 * (entry offset, _func offset), each _func naming its function by an
 * offset into the name table.  Every offset is checked against the
 * section's length.
 */
#ifndef SP_RECORD_UNWIND_GOPCLNTAB_H
#define SP_RECORD_UNWIND_GOPCLNTAB_H

#include <stddef.h>
#include <stdint.h>

/*
 * Calls fn(arg, start, end, name, len) for each function of the table
 * `tab` (`size` bytes, the section's contents), start and end as ELF
 * addresses: the header's text start, or `text` (the .text section's
 * address) where the header holds 0.  `name` is not NUL-terminated
 * within `len` bytes.  Returns 0, -ENOENT for a table of another layout,
 * -EBADMSG for a malformed one, or what fn returned when negative (the
 * walk stops there).
 */
int rec_gopclntab_each(const uint8_t *tab, size_t size, uint64_t text,
		       int (*fn)(void *arg, uint64_t start, uint64_t end,
				 const char *name, size_t len),
		       void *arg);

#endif
