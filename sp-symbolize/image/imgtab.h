/*
 * imgtab.h: the module files a resolver opens, one entry per path,
 * shared by every module that maps the file.  An entry's image is
 * opened at its first use; past the open bound the least recently used
 * image is closed, and opened again at its next use, so a long-running
 * resolver stays bounded as its targets load new code.  DWARF, most of
 * an open image's memory, has a bound of its own in bytes: past it the
 * least recently used images drop their DWARF (image.h), keep their
 * symbols and results, and open it again for a new address.
 */
#ifndef SP_SYMBOLIZE_IMAGE_IMGTAB_H
#define SP_SYMBOLIZE_IMAGE_IMGTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp-symbolize/image/image.h"
#include "sp-symbolize/out/warn.h"

struct sym_imgtab;

/*
 * One file on disk.  Callers read the fields and may set `warned` and
 * `unnamed`; the table owns the rest.  An entry stays at its address
 * until the table is freed; `img` only until the next
 * sym_imgtab_image() or sym_imgtab_get() on the table (it may close
 * it).
 */
struct sym_imgent {
	char *path;
	struct sym_image *img; /* NULL when closed or failed */
	bool failed;           /* it did not open: not tried again */
	int open_errno;        /* why it did not, when failed */
	uint64_t used;         /* the table's tick at its last use */
	bool have_ino;         /* the file's inode, from stat at creation */
	uint64_t ino;
	bool warned; /* one warning said about the file: say no other */
	/*
	 * No names but the dynamic symbols' and no debug file
	 * (sym_image_stripped()), or not even those (ENODATA): set when
	 * the image is first opened.
	 */
	bool stripped;
	size_t unnamed; /* the caller's count of frames left unnamed */
};

/* What the table did, for the resolver's statistics. */
struct sym_imgtab_stats {
	size_t opened;        /* images opened (again after a close too) */
	size_t closed;        /* closed over the bound */
	size_t peak;          /* the most open at once */
	size_t dwarf_dropped; /* DWARF dropped over the byte bound */
};

/*
 * Returns an empty table whose images open with `opts` (copied; its
 * debug_dirs are borrowed), at most `max_open` at once (at least 1),
 * their DWARF holding at most `max_dwarf` bytes of debug sections
 * (sym_image_dwarf_bytes()) at once, or the one image in use when it
 * alone holds more, warning through `warn` (may be NULL); NULL with
 * errno on ENOMEM.
 */
struct sym_imgtab *sym_imgtab_new(const struct sym_symopts *opts,
				  size_t max_open, size_t max_dwarf,
				  sym_warn_fn *warn, void *warn_ctx);
/* Closes every image; NULL is allowed. */
void sym_imgtab_free(struct sym_imgtab *t);

/*
 * The entry of `path`, created at its first request, with its image
 * opened (unless it failed: warned once, then `failed`).  NULL on
 * ENOMEM.
 */
struct sym_imgent *sym_imgtab_get(struct sym_imgtab *t, const char *path);
/*
 * The image of `e`, opened again if it was closed; NULL when it does
 * not open.  Counts as a use for the least recently used order.
 */
struct sym_image *sym_imgtab_image(struct sym_imgtab *t, struct sym_imgent *e);
/* The i-th entry in the order they were created, or NULL past the last. */
struct sym_imgent *sym_imgtab_at(const struct sym_imgtab *t, size_t i);
/* Copies the table's statistics into *st. */
void sym_imgtab_stats(const struct sym_imgtab *t, struct sym_imgtab_stats *st);

#endif
