/*
 * elfsym.h: a sorted table of the function symbols of ELF files, for
 * address lookups by binary search.
 *
 * Fill it from one or more symbol sections with sym_elfsyms_add(), then
 * call sym_elfsyms_finish() once before any lookup.  The table copies the
 * names, so the Elf handles may be closed afterwards.
 */
#ifndef SP_SYMBOLIZE_ELF_ELFSYM_H
#define SP_SYMBOLIZE_ELF_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

struct sym_elfsyms;

/* Returns an empty table, or NULL with errno set. */
struct sym_elfsyms *sym_elfsyms_new(void);
/* NULL is allowed. */
void sym_elfsyms_free(struct sym_elfsyms *t);
/*
 * Adds the defined STT_FUNC and STT_GNU_IFUNC symbols, and the
 * STT_NOTYPE labels of executable sections, of every section of type
 * `sh_type` (SHT_SYMTAB or SHT_DYNSYM) of `elf`.  Returns the
 * number of symbols added, or a negative errno (-EBADMSG for corrupt
 * data, -ENOMEM).
 */
long sym_elfsyms_add(struct sym_elfsyms *t, Elf *elf, GElf_Word sh_type);
/*
 * Adds a "NAME@plt" symbol for each PLT stub of `elf` (x86-64: .plt.sec,
 * else .plt after its header, in .rela.plt order), as perf names them.
 * Returns the number added, 0 for other machines or without a PLT.
 */
long sym_elfsyms_add_plt(struct sym_elfsyms *t, Elf *elf);
/*
 * Sorts the table and merges aliases.  At one address the name kept is
 * the one a user recognises: a function over a label, then the name
 * with the fewest leading underscores (malloc over __libc_malloc and
 * __GI___libc_malloc, puts over _IO_puts), then a global symbol over a
 * weak one over a local one (__libc_start_main over the local
 * __libc_start_main_impl), then a sized symbol, the shorter name (its
 * version left out) and the smaller name in byte order, so that the
 * order of the symbol tables never decides.  Labels inside a function
 * are dropped.  A symbol of size 0 extends to the next symbol or the
 * end of its section, whichever comes first.
 */
void sym_elfsyms_finish(struct sym_elfsyms *t);
size_t sym_elfsyms_count(const struct sym_elfsyms *t);
/*
 * Finds the function containing `vaddr`.  Returns true and sets *name
 * (owned by the table) and *start.
 */
bool sym_elfsyms_lookup(const struct sym_elfsyms *t, uint64_t vaddr,
			const char **name, uint64_t *start);

/* True when `elf` has a section of type `sh_type` with entries. */
bool sym_elf_has_symbols(Elf *elf, GElf_Word sh_type);

#endif
