/*
 * symres.h: the result of symbolizing one frame: one or more logical
 * frames, outermost function first, inlined callees after it.
 *
 * A result owns every string in it; sp_symres_release() frees them.
 */
#ifndef SP_SYMRES_H
#define SP_SYMRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Flag letters of a symbol record, in the order they are printed. */
enum sp_sym_flag {
	SP_SYM_KERNEL = 1 << 0,		/* k */
	SP_SYM_JIT = 1 << 1,		/* j */
	SP_SYM_INLINED = 1 << 2,	/* i */
	SP_SYM_PYRUNTIME = 1 << 3,	/* p */
	SP_SYM_HIDDEN = 1 << 4,		/* h */
	SP_SYM_TRUNCATED = 1 << 5,	/* t */
	SP_SYM_UNRESOLVED = 1 << 6,	/* u */
};

/* One logical frame. */
struct sp_sym {
	char *name;		/* never NULL */
	char *file;		/* source file or NULL */
	unsigned line;		/* 0 when unknown */
	uint64_t offset;	/* offset into the function */
	bool has_offset;
	unsigned flags;		/* enum sp_sym_flag bits */
};

struct sp_symres {
	struct sp_sym *v;
	size_t n;
	size_t alloc;
};

#define SP_SYMRES_INIT { NULL, 0, 0 }

/*
 * Appends a frame named `name` (copied); returns it, or NULL on
 * allocation failure.  The returned pointer is valid until the next add.
 */
struct sp_sym *sp_symres_add(struct sp_symres *r, const char *name);
/* Appends a frame named "PREFIX+0xHEX". */
struct sp_sym *sp_symres_addhex(struct sp_symres *r, const char *prefix,
				uint64_t value);
/* Sets the source file of `s` (copied); returns 0 or -ENOMEM. */
int sp_sym_set_file(struct sp_sym *s, const char *file, unsigned line);
/* Appends deep copies of the frames of `src`; returns 0 or -ENOMEM. */
int sp_symres_append(struct sp_symres *dst, const struct sp_symres *src);
/* Adds `flags` to every frame. */
void sp_symres_flag_all(struct sp_symres *r, unsigned flags);
/* Frees every frame and leaves `r` as SP_SYMRES_INIT. */
void sp_symres_release(struct sp_symres *r);
/* Writes the flag letters of `flags` ("-" for none) into buf[8]. */
void sp_sym_flags_str(unsigned flags, char buf[8]);

#endif
