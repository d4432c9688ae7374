/*
 * dwline_impl.h: what the parts of the line-program decoder share
 * (dwline.c the state machine, dwlhdr.c the header and its file names,
 * dwlsort.c libdw's row order): the decoded unit, the bounded reader,
 * the header's fields.  Private to those files.
 */
#ifndef SP_SYMBOLIZE_DWARF_DWLINE_IMPL_H
#define SP_SYMBOLIZE_DWARF_DWLINE_IMPL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/varint.h"
#include "sp-symbolize/dwarf/dwline.h"

/* A row: the file index's top bit marks the end of a sequence. */
struct row {
	uint64_t addr;
	uint32_t file_end;
	int32_t line;
};
#define ROW_END 0x80000000u

static inline bool
row_end(const struct row *r)
{
	return r->file_end & ROW_END;
}

struct sym_dwline {
	struct row *rows; /* sorted as libdw sorts them */
	size_t nrows, arows;
	char **files; /* owned names, index as in the program */
	size_t nfiles, afiles;
};

/* A bounded little-endian reader; `err` is set once and sticks. */
struct cur {
	const uint8_t *p, *end;
	int err;
};

/* The header fields the program needs. */
struct hdr {
	unsigned version, offset_size, addr_size;
	unsigned min_inst, max_ops, opcode_base, line_range;
	int line_base;
	const uint8_t *std_len; /* std_len[k]: arguments of opcode k */
	const char **dirs;      /* borrowed strings; owned array */
	size_t ndirs;
	const struct sym_dwsects *s;
};

static inline bool
need(struct cur *c, size_t n)
{
	if (!c->err && (size_t)(c->end - c->p) >= n)
		return true;
	c->err = EBADMSG;
	c->p = c->end;
	return false;
}

static inline uint64_t
get_fixed(struct cur *c, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if (!need(c, n))
		return 0;
	for (i = n; i-- > 0;)
		v = v << 8 | c->p[i];
	c->p += n;
	return v;
}

/* LEB128 operands, read as every reader of them reads them (varint.h). */
static inline uint64_t
get_uleb(struct cur *c)
{
	uint64_t v = 0;

	/* Most operands are one byte: no call for them. */
	if (!c->err && c->p < c->end && *c->p < 0x80)
		return *c->p++;
	if (c->err || sp_leb_get_u64(&c->p, c->end, &v)) {
		c->err = EBADMSG;
		c->p = c->end;
		return 0;
	}
	return v;
}

static inline int64_t
get_sleb(struct cur *c)
{
	int64_t v = 0;

	if (c->err || sp_leb_get_s64(&c->p, c->end, &v)) {
		c->err = EBADMSG;
		c->p = c->end;
		return 0;
	}
	return v;
}

static inline const char *
get_cstr(struct cur *c)
{
	const uint8_t *nul;
	const char *s;

	if (c->err || !(nul = memchr(c->p, 0, (size_t)(c->end - c->p)))) {
		c->err = EBADMSG;
		return NULL;
	}
	s = (const char *)c->p;
	c->p = nul + 1;
	return s;
}

/*
 * Reads the header at `off` of the .debug_line section and its file
 * names into `l`; on success [c->p, c->end) is the program.  Returns 0,
 * -EBADMSG, -ENOTSUP or -ENOMEM.  h->dirs is allocated: the caller frees
 * it.
 */
int sym_dwl_read_header(struct cur *c, struct hdr *h, struct sym_dwline *l,
			uint64_t off, const char *comp_dir);
/* Appends file `name` in directory `dir`; returns 0, -EBADMSG, -ENOMEM. */
int sym_dwl_add_file(struct sym_dwline *l, const struct hdr *h,
		     const char *name, uint64_t dir);
/* Sorts l's rows as libdw does; returns 0 or -ENOMEM. */
int sym_dwl_sort_rows(struct sym_dwline *l);

#endif
