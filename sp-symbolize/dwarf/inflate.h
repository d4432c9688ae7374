/*
 * inflate.h: decompresses an ELF file's zlib-compressed debug sections
 * (SHF_COMPRESSED) with libdeflate, two to three times faster than the
 * zlib inside libelf, before libdw reads them.  The inflated bytes take
 * the place of each section's data in our read-only handle (the file is
 * never written), so libdw finds them as if they had never been
 * compressed.  Sections already marked SHT_NOBITS are left alone.
 */
#ifndef SP_SYMBOLIZE_DWARF_INFLATE_H
#define SP_SYMBOLIZE_DWARF_INFLATE_H

#include <gelf.h>

struct sym_inflated;

/*
 * Inflates the compressed .debug_ sections of `elf`; returns what owns
 * the inflated bytes (NULL when nothing was inflated or memory ran
 * out: libdw then inflates what is left itself).  A section that does
 * not inflate to its stated size is left to libdw, which reports it.
 */
struct sym_inflated *sym_inflate_debug(Elf *elf);
/* The inflated bytes `in` owns; 0 for NULL. */
size_t sym_inflated_bytes(const struct sym_inflated *in);
/*
 * Frees the inflated bytes (those sections are then empty in the
 * handle): after dwarf_end(), before elf_end().
 */
void sym_inflated_free(struct sym_inflated *in);

#endif
