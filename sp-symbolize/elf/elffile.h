/*
 * elffile.h: an ELF file opened for reading, from disk or from memory,
 * and the lookups that find its separate debug information.
 */
#ifndef SP_SYMBOLIZE_ELF_ELFFILE_H
#define SP_SYMBOLIZE_ELF_ELFFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gelf.h>

/* Where distributions install debug files, searched after --debug-dir. */
#define SYM_DEFAULT_DEBUG_ROOT "/usr/lib/debug"

struct sym_elffile {
	int fd;    /* -1 for an in-memory image */
	Elf *elf;  /* NULL when not open */
	void *mem; /* owned image bytes, or NULL */
	size_t memlen;
	/* Sections hidden as implausible (see sym_elffile_open), and the
	 * first one's name and claimed size. */
	unsigned nhidden;
	char hidden_name[32];
	uint64_t hidden_size;
};

#define SYM_ELFFILE_INIT                                                       \
	{                                                                      \
		-1, NULL, NULL, 0, 0, "", 0                                    \
	}

/*
 * Opens `path`.  Returns 0, a negative errno from open(2), -EINVAL when
 * it is not a regular file (a FIFO or a device is never opened), or
 * -ENOEXEC when the file is not an ELF object.  On failure `f` stays
 * closed.
 *
 * libelf allocates and reads the whole size a section header claims.  A
 * section whose data the file does not hold, past its end or (over
 * 1 MiB) more than half of it holes of a sparse file, which no linker
 * writes, is hidden: this handle's copy of its header says SHT_NOBITS
 * and size 0, so nothing reads it (the file is never written).  A symbol
 * table whose string table is hidden is hidden too.  nhidden counts
 * them.
 */
int sym_elffile_open(struct sym_elffile *f, const char *path);
/*
 * Opens the image in `mem` (malloc'ed; ownership passes to `f` even on
 * failure).  Returns 0 or -ENOEXEC.
 */
int sym_elffile_open_mem(struct sym_elffile *f, void *mem, size_t len);
/*
 * Opens a second handle on the file of `f` (its descriptor duplicated,
 * or its bytes borrowed for an image in memory: `f` must outlive it),
 * with the same sections hidden.  Everything the new handle reads is
 * freed when it is closed, whatever `f` keeps: libelf frees a section's
 * data only with its handle.  Returns 0, -ENOEXEC or a negative errno.
 */
int sym_elffile_reopen(const struct sym_elffile *f, struct sym_elffile *out);
/* Closes and frees everything; `f` becomes SYM_ELFFILE_INIT. */
void sym_elffile_close(struct sym_elffile *f);

/* The GNU build id of `elf`: its length (0 when none), *id into `elf`. */
size_t sym_elf_buildid(Elf *elf, const uint8_t **id);
/*
 * Whether `elf` holds code: an executable PT_LOAD segment with bytes in
 * the file.  A separate debug file keeps the segment but not its bytes
 * (p_filesz 0), so it cannot stand in for the module it describes.
 */
bool sym_elf_has_code(Elf *elf);

/*
 * Finds the separate debug file of the ELF file `path` (open as `elf`),
 * the way debuggers do: by build id under each root in `roots` (then
 * /usr/lib/debug) as .build-id/xx/rest.debug, then by .gnu_debuglink
 * next to the file, in its .debug/ directory, and under each root (with
 * the file's directory, then directly).  A candidate whose build id
 * differs from the file's, or (without build ids) whose CRC differs
 * from the debuglink's, is skipped; so is a debuglink candidate larger
 * than 4 GiB, whose CRC would take minutes to compute.  A build id
 * candidate that holds code (sym_elf_has_code(): a copy of a module file
 * kept where its debug file would be, as sp-archive does when it found
 * none) is taken only when no real debug file follows, and only when it
 * has a symbol table or DWARF: such a copy in a --debug-dir must not hide
 * the debug file of /usr/lib/debug.  `path` is NULL for an image in
 * memory (the vdso): then only the build id is looked up.  Returns 0
 * with *out open, or -ENOENT.
 */
int sym_debug_find(const char *path, Elf *elf, char *const *roots,
		   size_t nroots, struct sym_elffile *out);

/*
 * Receives a path where a debug file may be, and whether it is a build
 * id path (else a debuglink one); returns true to stop the walk.
 */
typedef bool sym_debug_fn(void *ctx, const char *cand, bool by_id);
/*
 * Calls `fn` on each path sym_debug_find() tries, in its order (it
 * walks them with this function): the build id paths, then the
 * debuglink ones.  Returns true when `fn` stopped the walk.
 */
bool sym_debug_each(const char *path, Elf *elf, char *const *roots,
		    size_t nroots, sym_debug_fn *fn, void *ctx);

/*
 * Decompresses the MiniDebugInfo (.gnu_debugdata, xz) of `f` into
 * *out.  Returns 0, -ENOENT when there is none, -EBADMSG when it is
 * corrupt, -EFBIG when it would inflate to an implausible size (a bomb),
 * -ENOMEM.
 */
int sym_minidebug_open(const struct sym_elffile *f, struct sym_elffile *out);

#endif
