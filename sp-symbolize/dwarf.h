/*
 * dwarf.h: source lines and inlined-call chains from DWARF, via libdw.
 */
#ifndef SP_SYMBOLIZE_DWARF_H
#define SP_SYMBOLIZE_DWARF_H

#include <stdbool.h>
#include <stdint.h>

#include <gelf.h>

#include "sp-symbolize/symname.h"
#include "sp-symbolize/symres.h"

struct sym_dwarf;

/*
 * Opens the DWARF of `elf` (not owned; it must outlive the result).
 * Returns NULL when `elf` has no usable debug information.  The DWARF
 * sections lookups never read (location lists, .debug_frame, macros,
 * name indexes) become SHT_NOBITS in `elf`'s in-memory section headers,
 * so that libdw does not load them; nothing is written to the file.
 */
struct sym_dwarf *sym_dwarf_open(Elf *elf);
/*
 * True when a DWARF section of `elf` would decompress to an implausible
 * size (dwarf.c gives the bound); sym_dwarf_open() then returns NULL
 * without decompressing anything.  Sections already hidden do not count.
 */
bool sym_dwarf_bomb(Elf *elf);
/* NULL is allowed. */
void sym_dwarf_free(struct sym_dwarf *d);

/*
 * Appends the logical frames of `vaddr` to `out`, outermost first: the
 * function, then (when `inlines`) each inlined callee, flagged
 * SP_SYM_INLINED.  Each frame's source is where it is at `vaddr`: the
 * call site of the next frame, or the line of `vaddr` for the last one.
 * The outermost frame is named `outer` when not NULL (the ELF symbol),
 * else after its DWARF subprogram, shown as `names` says (symname.h).
 * Returns the number of frames appended (0 when DWARF does not cover
 * `vaddr`, and then nothing is appended) or -ENOMEM.
 */
int sym_dwarf_frames(struct sym_dwarf *d, uint64_t vaddr, const char *outer,
		     bool inlines, const struct sym_nameopts *names,
		     struct sym_res *out);

#endif
