/*
 * dwline.c: DWARF line-number programs (see dwline.h): the state machine
 * that turns a unit's program into rows, and lookups in the sorted
 * table.  The header is read by dwlhdr.c, the rows ordered by dwlsort.c.
 */
#include <dwarf.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/search.h"
#include "sp-symbolize/dwarf/dwline_impl.h"
#include "common/banned.h"

/* The line-number state machine's registers that rows keep. */
struct state {
	uint64_t addr, op_index, file;
	int64_t line;
};

static void
reset(struct state *st)
{
	*st = (struct state){ .file = 1, .line = 1 };
}

static void
advance(struct state *st, const struct hdr *h, uint64_t ops)
{
	st->addr += h->min_inst * ((st->op_index + ops) / h->max_ops);
	st->op_index = (st->op_index + ops) % h->max_ops;
}

static inline int
emit(struct sym_dwline *l, const struct state *st, bool end)
{
	struct row *r;

	if (st->line < INT_MIN || st->line > INT_MAX)
		return -EBADMSG;
	if (SP_GROW(l->rows, l->arows, l->nrows + 1))
		return -ENOMEM;
	r = &l->rows[l->nrows++];
	r->addr = st->addr;
	r->file_end = st->file < ROW_END ? (uint32_t)st->file : ROW_END - 1;
	r->file_end |= end ? ROW_END : 0;
	r->line = (int32_t)st->line;
	return 0;
}

/* An extended opcode (after its 0 byte). */
static int
extended(struct cur *c, struct hdr *h, struct sym_dwline *l, struct state *st)
{
	const uint8_t *next;
	const char *name;
	uint64_t len = get_fixed(c, 1), dir;
	int rc = 0;

	/* libdw reads the length as one byte, not as the ULEB128 it is. */
	if (len >= 0x80)
		return -ENOTSUP;
	if (c->err || len == 0 || len > (size_t)(c->end - c->p))
		return -EBADMSG;
	next = c->p + len;
	switch (get_fixed(c, 1)) {
	case DW_LNE_end_sequence:
		rc = emit(l, st, true);
		reset(st);
		break;
	case DW_LNE_set_address:
		if (len != 1 + h->addr_size)
			return -ENOTSUP;
		st->addr = get_fixed(c, h->addr_size);
		st->op_index = 0;
		break;
	case DW_LNE_define_file:
		name = get_cstr(c);
		dir = get_uleb(c);
		if (c->err)
			return -EBADMSG;
		rc = sym_dwl_add_file(l, h, name, dir);
		break;
	default: /* discriminators and vendor opcodes: no row field */
		break;
	}
	c->p = next;
	return rc;
}

static int
standard(struct cur *c, struct hdr *h, struct sym_dwline *l, struct state *st,
	 unsigned op)
{
	static const uint8_t args[] = {
		[DW_LNS_copy] = 0,
		[DW_LNS_advance_pc] = 1,
		[DW_LNS_advance_line] = 1,
		[DW_LNS_set_file] = 1,
		[DW_LNS_set_column] = 1,
		[DW_LNS_negate_stmt] = 0,
		[DW_LNS_set_basic_block] = 0,
		[DW_LNS_const_add_pc] = 0,
		[DW_LNS_fixed_advance_pc] = 1,
		[DW_LNS_set_prologue_end] = 0,
		[DW_LNS_set_epilogue_begin] = 0,
		[DW_LNS_set_isa] = 1,
	};
	unsigned i;

	/* The header must give a known opcode its argument count. */
	if (op < sizeof(args) && h->std_len[op] != args[op])
		return -EBADMSG;
	switch (op) {
	case DW_LNS_copy:
		return emit(l, st, false);
	case DW_LNS_advance_pc:
		advance(st, h, get_uleb(c));
		break;
	case DW_LNS_advance_line:
		st->line += get_sleb(c);
		break;
	case DW_LNS_set_file:
		st->file = get_uleb(c);
		break;
	case DW_LNS_set_column:
	case DW_LNS_set_isa:
		get_uleb(c);
		break;
	case DW_LNS_const_add_pc:
		advance(st, h, (255 - h->opcode_base) / h->line_range);
		break;
	case DW_LNS_fixed_advance_pc:
		st->addr += get_fixed(c, 2);
		st->op_index = 0;
		break;
	case DW_LNS_negate_stmt:
	case DW_LNS_set_basic_block:
	case DW_LNS_set_prologue_end:
	case DW_LNS_set_epilogue_begin:
		break;
	default: /* an opcode newer than this decoder: skip its arguments */
		for (i = 0; i < h->std_len[op]; i++)
			get_uleb(c);
		break;
	}
	return c->err ? -EBADMSG : 0;
}

static int
run_program(struct cur *c, struct hdr *h, struct sym_dwline *l)
{
	struct state st;
	unsigned op, adj;
	int rc = 0;

	reset(&st);
	while (!rc && c->p < c->end) {
		op = *c->p++;
		if (op >= h->opcode_base) {
			adj = op - h->opcode_base;
			st.line += h->line_base + (int)(adj % h->line_range);
			advance(&st, h, adj / h->line_range);
			rc = emit(l, &st, false);
		} else if (op == 0) {
			rc = extended(c, h, l, &st);
		} else {
			rc = standard(c, h, l, &st, op);
		}
	}
	return rc;
}

/* Gives back the rows' unused room: tables stay for the unit's life. */
static void
fit_rows(struct sym_dwline *l)
{
	struct row *rows;

	if (l->nrows == 0 || l->arows == l->nrows)
		return;
	rows = realloc(l->rows, l->nrows * sizeof(*rows));
	if (rows) {
		l->rows = rows;
		l->arows = l->nrows;
	}
}

struct sym_dwline *
sym_dwline_read(const struct sym_dwsects *s, uint64_t off, unsigned addr_size,
		const char *comp_dir)
{
	struct sym_dwline *l;
	struct hdr h = { .s = s, .addr_size = addr_size };
	struct cur c = { 0 };
	int rc = -ENOTSUP;

	if (!(l = calloc(1, sizeof(*l))))
		return NULL;
	if ((addr_size == 4 || addr_size == 8) && s->line &&
	    !(rc = sym_dwl_read_header(&c, &h, l, off, comp_dir)) &&
	    !(rc = run_program(&c, &h, l)))
		rc = sym_dwl_sort_rows(l);
	free(h.dirs);
	if (!rc)
		fit_rows(l);
	if (rc) {
		sym_dwline_free(l);
		errno = -rc;
		return NULL;
	}
	return l;
}

size_t
sym_dwline_bytes(const struct sym_dwline *l)
{
	size_t i, n;

	if (!l)
		return 0;
	n = sizeof(*l) + l->arows * sizeof(*l->rows) +
	    l->afiles * sizeof(*l->files);
	for (i = 0; i < l->nfiles; i++)
		n += l->files[i] ? strlen(l->files[i]) + 1 : 0;
	return n;
}

void
sym_dwline_free(struct sym_dwline *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nfiles; i++)
		free(l->files[i]);
	free(l->files);
	free(l->rows);
	free(l);
}

bool
sym_dwline_find(const struct sym_dwline *l, uint64_t vaddr, const char **file,
		int *line)
{
	size_t i = SP_SEARCH_LAST_LE(l->rows, l->nrows, addr, vaddr), f;
	const struct row *r;

	if (i == SIZE_MAX || row_end(r = &l->rows[i]))
		return false;
	f = r->file_end & ~ROW_END;
	*file = sym_dwline_file(l, f);
	*line = r->line;
	return true;
}

const char *
sym_dwline_file(const struct sym_dwline *l, uint64_t idx)
{
	return idx < l->nfiles ? l->files[idx] : NULL;
}
