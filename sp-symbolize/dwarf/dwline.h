/*
 * dwline.h: one unit's DWARF line-number program (.debug_line, versions
 * 2 to 5) decoded into an address-sorted table of rows and the unit's
 * file names.  libdw 0.188 builds the same table with a heap block per
 * row and a sort of the whole unit, and builds it again in full when
 * only the file names are asked for: on a large unit that was a third
 * of a first run.  Here the rows go into one array, and only sequences
 * that are out of order are sorted.
 *
 * The answers are dwarf_getsrc_die()'s, dwarf_linesrc()'s and
 * dwarf_getsrcfiles()'s (check_symbolize_dwline compares them on real
 * files).  What this decoder does not read (string forms that need the
 * unit's offsets table or a supplementary file, big-endian data,
 * headers of unexpected length) it refuses, and the caller asks libdw.
 */
#ifndef SP_SYMBOLIZE_DWARF_DWLINE_H
#define SP_SYMBOLIZE_DWARF_DWLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sym_dwline;

/* The sections a line program reads (little-endian); NULL when absent. */
struct sym_dwsects {
	const uint8_t *line, *str, *line_str;
	size_t line_len, str_len, line_str_len;
};

/*
 * Decodes the program at byte `off` of s->line, for a unit whose
 * addresses are `addr_size` (4 or 8) bytes and whose DW_AT_comp_dir is
 * `comp_dir` (NULL when it has none).  Returns NULL and sets errno:
 * EBADMSG for a malformed program, ENOTSUP for one this decoder does not
 * read, ENOMEM.  The result points into s's sections and `comp_dir`,
 * which must outlive it.
 */
struct sym_dwline *sym_dwline_read(const struct sym_dwsects *s, uint64_t off,
				   unsigned addr_size, const char *comp_dir);
/* NULL is allowed. */
void sym_dwline_free(struct sym_dwline *l);
/* The bytes `l` allocated (its rows and file names); 0 for NULL. */
size_t sym_dwline_bytes(const struct sym_dwline *l);

/*
 * The row covering `vaddr`: its file name (NULL when its file index is
 * out of range) and line.  Returns false when no row covers `vaddr`.
 */
bool sym_dwline_find(const struct sym_dwline *l, uint64_t vaddr,
		     const char **file, int *line);
/* The name of file `idx` (DW_AT_call_file's numbering), or NULL. */
const char *sym_dwline_file(const struct sym_dwline *l, uint64_t idx);

#endif
