/*
 * dwarf.h: source lines and inlined-call chains from DWARF, via libdw.
 */
#ifndef SP_SYMBOLIZE_DWARF_DWARF_H
#define SP_SYMBOLIZE_DWARF_DWARF_H

#include <stdbool.h>
#include <stdint.h>

#include <gelf.h>

#include "sp-symbolize/elf/elffile.h"
#include "sp-symbolize/elf/symname.h"
#include "sp-symbolize/out/symres.h"

struct sym_dwarf;

/*
 * Opens the DWARF of the file `f` through a handle of its own
 * (sym_elffile_reopen(): `f` stays open, and must outlive the result
 * when it is an image in memory), so that sym_dwarf_free() gives back
 * every section libelf read for it, while `f` keeps its symbol tables.
 * The DWARF sections lookups never read (location lists, .debug_frame,
 * macros, name indexes) become SHT_NOBITS in that handle's section
 * headers, so that libdw does not load them; nothing is written to the
 * file.  Returns NULL with errno: ENODATA when the file has no usable
 * debug information, EFBIG when a DWARF section would decompress to an
 * implausible size (dwarf.c gives the bound; nothing was decompressed),
 * ENOMEM.
 */
struct sym_dwarf *sym_dwarf_open(const struct sym_elffile *f);
/* NULL is allowed; frees the handle and all it read. */
void sym_dwarf_free(struct sym_dwarf *d);
/*
 * The bytes `d` holds in memory: its debug sections as read (compressed
 * or not), the ones it inflated, and the line tables and scope indexes
 * of the units looked up so far (it grows with lookups); 0 for NULL.
 * libdw's own per-unit state is not counted (under 2% of the heap on
 * the runs measured).
 */
size_t sym_dwarf_bytes(const struct sym_dwarf *d);

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
