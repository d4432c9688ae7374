/*
 * image.h: one executable or shared object as the symbolizer sees it:
 * the file, its debug file or MiniDebugInfo, its function symbols, its
 * DWARF and its PT_LOAD segments, plus a cache of resolved addresses.
 * Images are opened once per path and shared by every module (process
 * mapping) of that file.
 */
#ifndef SP_SYMBOLIZE_IMAGE_IMAGE_H
#define SP_SYMBOLIZE_IMAGE_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/stat.h>

#include "common/buf.h"
#include "sp-symbolize/out/symres.h"

struct sym_image;

/* Options that change what a lookup returns. */
struct sym_symopts {
	bool demangle;           /* C++ and Rust names */
	bool inlines;            /* inlined frames from DWARF */
	char *const *debug_dirs; /* more roots for debug files */
	size_t ndebug_dirs;
	bool names_only; /* ELF symbols only: no DWARF opened */
	bool raw_names;  /* symbol table names as they are (symname.h) */
	bool params;     /* C++ parameter lists */
};

/*
 * Opens the ELF file `path`.  Returns the image, or NULL with errno set
 * and, when `err` is not NULL, why appended to it: open(2)'s error
 * ("No such file or directory"), EINVAL "not a regular file", ENOEXEC
 * "not an ELF file", EBADMSG "corrupt program headers" or "corrupt
 * symbol table", ENOMEM "out of memory".  An image with neither symbols
 * nor DWARF fails with ENODATA "no symbols", or EFBIG and the warning
 * below when what it had was not read.  With opts->names_only, DWARF is
 * never opened.
 */
struct sym_image *sym_image_open(const char *path,
				 const struct sym_symopts *opts,
				 struct sp_buf *err);
/*
 * Same for an ELF image in memory (malloc'ed, taken over); its debug
 * file is looked up by build id only.
 */
struct sym_image *sym_image_open_mem(void *mem, size_t len,
				     const struct sym_symopts *opts,
				     struct sp_buf *err);
/* NULL is allowed. */
void sym_image_free(struct sym_image *img);

/*
 * What the image could not use, for one warning (a static string), or
 * NULL: DWARF that would decompress to an implausible size.
 */
const char *sym_image_warning(const struct sym_image *img);
/*
 * Whether the image names functions from its dynamic symbols only: the
 * file has no .symtab and no DWARF, and neither a debug file (by build
 * id or debuglink) nor MiniDebugInfo was found.  DWARF is not looked
 * for with opts->names_only.
 */
bool sym_image_stripped(const struct sym_image *img);
/*
 * fstat(2) of the file the image reads (not its debug file): 0, or
 * -ENOENT for an image in memory, or fstat's negative errno.
 */
int sym_image_fstat(const struct sym_image *img, struct stat *st);
/* The image's GNU build id as lowercase hex, or NULL when it has none. */
const char *sym_image_buildid(const struct sym_image *img);
/*
 * Turns a module-relative address in file-offset coordinates into the
 * ELF virtual address, through the PT_LOAD segment that holds it.
 * Returns false when no segment holds it.
 */
bool sym_image_vaddr(const struct sym_image *img, uint64_t rel_ip,
		     uint64_t *vaddr);
/*
 * Appends the logical frames of `rel_ip` to `out` (see dwarf.h for the
 * order and sources).  Each address is resolved once; later calls copy
 * the cached result.  Returns the number of frames appended, 0 when
 * nothing covers the address, or -ENOMEM.
 */
int sym_image_resolve(struct sym_image *img, uint64_t rel_ip,
		      struct sym_res *out);
/*
 * The bytes the image's DWARF holds (dwarf.h's sym_dwarf_bytes()), or
 * held when it was last dropped; 0 for an image without DWARF.
 */
size_t sym_image_dwarf_bytes(const struct sym_image *img);
/* Whether the image's DWARF is open now. */
bool sym_image_dwarf_held(const struct sym_image *img);
/*
 * Frees the image's DWARF (its sections, libdw's state and the unit
 * indexes), keeping its symbols and the addresses it resolved: those
 * are answered as before, and the next new address opens the DWARF
 * again, with the same answers.
 */
void sym_image_drop_dwarf(struct sym_image *img);
/* Distinct addresses resolved so far (for tests). */
size_t sym_image_cached(const struct sym_image *img);

#endif
