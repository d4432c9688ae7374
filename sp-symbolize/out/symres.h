/*
 * symres.h: the result of symbolizing one frame: one or more logical
 * frames, outermost function first, inlined callees after it.
 *
 * A result owns every string in it; sym_res_release() frees them.
 */
#ifndef SP_SYMBOLIZE_OUT_SYMRES_H
#define SP_SYMBOLIZE_OUT_SYMRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/records.h"
#include "common/spool.h"

/* One logical frame. */
struct sym_entry {
	char *name;          /* never NULL */
	char *file;          /* source file or NULL */
	unsigned line;       /* 0 when unknown */
	unsigned start_line; /* the function's first line (DWARF), or 0 */
	uint64_t offset;     /* offset into the function */
	bool has_offset;
	unsigned flags; /* enum sp_sym_flag bits (common/records.h) */
};

struct sym_res {
	struct sym_entry *v;
	size_t n;
	size_t alloc;
};

#define SYM_RES_INIT                                                           \
	{                                                                      \
		NULL, 0, 0                                                     \
	}

/*
 * Appends a frame named `name` (copied); returns it, or NULL on
 * allocation failure.  The returned pointer is valid until the next add.
 */
struct sym_entry *sym_res_add(struct sym_res *r, const char *name);
/* Appends a frame named "PREFIX+0xHEX". */
struct sym_entry *sym_res_addhex(struct sym_res *r, const char *prefix,
				 uint64_t value);
/*
 * Appends the fallback name of `f` (common/names.h), named after `path`
 * (NULL: none), with `flags`; returns 0 or -ENOMEM.
 */
int sym_res_add_fallback(struct sym_res *r, const struct sp_frame *f,
			 const char *path, unsigned flags);
/* Sets the source file of `s` (copied); returns 0 or -ENOMEM. */
int sym_sym_set_file(struct sym_entry *s, const char *file, unsigned line);
/* Appends deep copies of the frames of `src`; returns 0 or -ENOMEM. */
int sym_res_append(struct sym_res *dst, const struct sym_res *src);
/* Adds `flags` to every frame. */
void sym_res_flag_all(struct sym_res *r, unsigned flags);
/* Frees every frame and leaves `r` as SYM_RES_INIT. */
void sym_res_release(struct sym_res *r);
#endif
