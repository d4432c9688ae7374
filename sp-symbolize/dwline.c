/*
 * dwline.c: DWARF line-number programs (see dwline.h): the header's
 * directory and file tables, the state machine that turns the program
 * into rows, and the address order libdw gives them.
 */
#include <dwarf.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/varint.h"
#include "sp-symbolize/dwline.h"
#include "common/banned.h"

/* A row: the file index's top bit marks the end of a sequence. */
struct row {
	uint64_t addr;
	uint32_t file_end;
	int32_t line;
};
#define ROW_END 0x80000000u

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

static bool
need(struct cur *c, size_t n)
{
	if (!c->err && (size_t)(c->end - c->p) >= n)
		return true;
	c->err = EBADMSG;
	c->p = c->end;
	return false;
}

static uint64_t
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

static uint64_t
get_uleb(struct cur *c)
{
	uint64_t v = 0;

	/* Most operands are one byte: no call for them. */
	if (!c->err && c->p < c->end && *c->p < 0x80)
		return *c->p++;
	if (c->err || sp_varint_get_u64(&c->p, c->end, &v)) {
		c->err = EBADMSG;
		c->p = c->end;
		return 0;
	}
	return v;
}

static int64_t
get_sleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (!need(c, 1) || shift > 63) {
			c->err = EBADMSG;
			return 0;
		}
		b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

static const char *
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

/* The string at `off` of a string section, or NULL. */
static const char *
sect_str(const uint8_t *sec, size_t len, uint64_t off)
{
	if (!sec || off >= len || !memchr(sec + off, 0, len - off))
		return NULL;
	return (const char *)sec + off;
}

/*
 * Reads one value of `form` in a version 5 directory or file entry: a
 * string into *str or a number into *num (either may stay unset).
 * Returns 0, -EBADMSG, or -ENOTSUP for forms this decoder leaves to
 * libdw.
 */
static int
read_form(struct cur *c, const struct hdr *h, uint64_t form, const char **str,
	  uint64_t *num)
{
	static const uint8_t fixed[] = {
		[DW_FORM_data1] = 1, [DW_FORM_data2] = 2,   [DW_FORM_data4] = 4,
		[DW_FORM_data8] = 8, [DW_FORM_data16] = 16,
	};
	uint64_t off;

	if (form < sizeof(fixed) && fixed[form]) {
		*num = fixed[form] <= 8 ? get_fixed(c, fixed[form]) : 0;
		if (fixed[form] > 8 && need(c, fixed[form]))
			c->p += fixed[form];
	} else if (form == DW_FORM_udata) {
		*num = get_uleb(c);
	} else if (form == DW_FORM_string) {
		*str = get_cstr(c);
	} else if (form == DW_FORM_line_strp || form == DW_FORM_strp) {
		off = get_fixed(c, h->offset_size);
		*str = form == DW_FORM_strp
			   ? sect_str(h->s->str, h->s->str_len, off)
			   : sect_str(h->s->line_str, h->s->line_str_len, off);
		if (!c->err && !*str)
			return -EBADMSG;
	} else if (form == DW_FORM_block) {
		off = get_uleb(c);
		if (need(c, off))
			c->p += off;
	} else {
		return -ENOTSUP;
	}
	return c->err ? -EBADMSG : 0;
}

/* "dir/name", or `name` alone when absolute or without a directory. */
static char *
join(const char *dir, const char *name)
{
	size_t nd, nn = strlen(name);
	char *s;

	if (name[0] == '/' || !dir)
		return strdup(name);
	nd = strlen(dir);
	if (!(s = malloc(nd + 1 + nn + 1)))
		return NULL;
	memcpy(s, dir, nd);
	s[nd] = '/';
	memcpy(s + nd + 1, name, nn + 1);
	return s;
}

/* Appends an owned name (freed here on failure). */
static int
push_name(struct sym_dwline *l, char *name)
{
	if (!name || SP_GROW(l->files, l->afiles, l->nfiles + 1)) {
		free(name);
		return -ENOMEM;
	}
	l->files[l->nfiles++] = name;
	return 0;
}

static int
add_file(struct sym_dwline *l, const struct hdr *h, const char *name,
	 uint64_t dir)
{
	if (dir >= h->ndirs)
		return -EBADMSG;
	return push_name(l, join(h->dirs[dir], name));
}

/* libdw's name for a file the tables leave unnamed. */
#define UNNAMED "???"

/* A version 5 entry format: up to 255 (content type, form) pairs. */
struct fmt {
	uint64_t type[255], form[255];
	unsigned n;
};

static void
read_fmt(struct cur *c, struct fmt *f)
{
	unsigned i;

	f->n = (unsigned)get_fixed(c, 1);
	for (i = 0; i < f->n; i++) {
		f->type[i] = get_uleb(c);
		f->form[i] = get_uleb(c);
	}
}

/* One version 5 entry: its path and directory index. */
static int
read_entry(struct cur *c, const struct hdr *h, const struct fmt *f,
	   const char **path, uint64_t *dir)
{
	const char *str;
	uint64_t num;
	unsigned i;
	int rc;

	*path = NULL;
	*dir = UINT64_MAX;
	for (i = 0; i < f->n; i++) {
		str = NULL;
		num = UINT64_MAX;
		if ((rc = read_form(c, h, f->form[i], &str, &num)))
			return rc;
		if (f->type[i] == DW_LNCT_path)
			*path = str;
		else if (f->type[i] == DW_LNCT_directory_index)
			*dir = num;
	}
	return *path ? 0 : -EBADMSG;
}

/* Version 5: directory 0 is the unit's, file 0 its primary source. */
static int
read_tables_v5(struct cur *c, struct hdr *h, struct sym_dwline *l)
{
	struct fmt f;
	const char *path;
	uint64_t n, i, dir;
	int rc;

	read_fmt(c, &f);
	n = get_uleb(c);
	if (c->err || (f.n == 0 && n) ||
	    (f.n && n > (size_t)(c->end - c->p) / f.n))
		return -EBADMSG;
	if (!(h->dirs = calloc(n ? n : 1, sizeof(*h->dirs))))
		return -ENOMEM;
	for (h->ndirs = 0; h->ndirs < n; h->ndirs++) {
		if ((rc = read_entry(c, h, &f, &path, &dir)))
			return rc;
		h->dirs[h->ndirs] = path;
	}
	read_fmt(c, &f);
	n = get_uleb(c);
	if (c->err || (f.n == 0 && n) ||
	    (f.n && n > (size_t)(c->end - c->p) / f.n))
		return -EBADMSG;
	for (i = 0; i < n; i++) {
		if ((rc = read_entry(c, h, &f, &path, &dir)))
			return rc;
		if ((rc = add_file(l, h, path, dir)))
			return rc;
	}
	return n ? 0 : push_name(l, strdup(UNNAMED));
}

/* Before version 5: directory 0 is DW_AT_comp_dir, file 0 unnamed. */
static int
read_tables_v4(struct cur *c, struct hdr *h, struct sym_dwline *l,
	       const char *comp_dir)
{
	struct cur scan = *c;
	const char *name;
	uint64_t dir;
	size_t n = 1;
	int rc;

	while (need(&scan, 1) && *scan.p && get_cstr(&scan))
		n++;
	if (scan.err || !(h->dirs = calloc(n, sizeof(*h->dirs))))
		return scan.err ? -EBADMSG : -ENOMEM;
	h->dirs[0] = comp_dir;
	if ((rc = push_name(l, strdup(UNNAMED))))
		return rc;
	for (h->ndirs = 1; h->ndirs < n; h->ndirs++)
		h->dirs[h->ndirs] = get_cstr(c);
	c->p++;
	while (need(c, 1) && *c->p) {
		name = get_cstr(c);
		dir = get_uleb(c);
		get_uleb(c); /* modification time */
		get_uleb(c); /* length */
		if (c->err)
			return -EBADMSG;
		if ((rc = add_file(l, h, name, dir)))
			return rc;
	}
	if (c->err)
		return -EBADMSG;
	c->p++;
	return 0;
}

/* The header's fields after header_length, to the opcode lengths. */
static int
read_params(struct cur *c, struct hdr *h)
{
	h->min_inst = (unsigned)get_fixed(c, 1);
	h->max_ops = h->version >= 4 ? (unsigned)get_fixed(c, 1) : 1;
	get_fixed(c, 1); /* default_is_stmt */
	h->line_base = (int8_t)get_fixed(c, 1);
	h->line_range = (unsigned)get_fixed(c, 1);
	h->opcode_base = (unsigned)get_fixed(c, 1);
	if (c->err || h->max_ops == 0)
		return -EBADMSG;
	/* libdw refuses these only when an opcode divides by them. */
	if (h->line_range == 0 || h->opcode_base == 0)
		return -ENOTSUP;
	h->std_len = c->p - 1;
	if (need(c, h->opcode_base - 1))
		c->p += h->opcode_base - 1;
	return c->err ? -EBADMSG : 0;
}

/*
 * Reads the header at `off` and the file names; on success [c->p,
 * c->end) is the program.  The unit's length bounds everything.
 */
static int
read_header(struct cur *c, struct hdr *h, struct sym_dwline *l, uint64_t off,
	    const char *comp_dir)
{
	uint64_t len, hlen;
	const uint8_t *start;
	int rc;

	if (off >= h->s->line_len)
		return -EBADMSG;
	c->p = h->s->line + off;
	c->end = h->s->line + h->s->line_len;
	len = get_fixed(c, 4);
	h->offset_size = 4;
	if (len == 0xffffffff) {
		len = get_fixed(c, 8);
		h->offset_size = 8;
	}
	if (c->err || len > (size_t)(c->end - c->p))
		return -EBADMSG;
	c->end = c->p + len;
	h->version = (unsigned)get_fixed(c, 2);
	if (!c->err && (h->version < 2 || h->version > 5))
		return -ENOTSUP;
	if (h->version >= 5 &&
	    (get_fixed(c, 1) != h->addr_size || get_fixed(c, 1) != 0))
		return -EBADMSG;
	hlen = get_fixed(c, h->offset_size);
	start = c->p;
	if (c->err || hlen > (size_t)(c->end - c->p))
		return -EBADMSG;
	if ((rc = read_params(c, h)))
		return rc;
	rc = h->version >= 5 ? read_tables_v5(c, h, l)
			     : read_tables_v4(c, h, l, comp_dir);
	if (rc)
		return rc;
	/* A vendor field at the end (CUBIN) is libdw's to read. */
	return c->p == start + hlen ? 0 : -ENOTSUP;
}

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
	if (l->nrows == l->arows && SP_GROW(l->rows, l->arows, l->nrows + 1))
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
		rc = add_file(l, h, name, dir);
		break;
	default: /* discriminators and vendor opcodes: no row field */
		break;
	}
	c->p = next;
	return rc;
}

/* Standard opcode `op`, whose argument count must be `n`. */
static bool
std_args(const struct hdr *h, unsigned op, unsigned n)
{
	return h->std_len[op] == n;
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

	if (op < sizeof(args) && !std_args(h, op, args[op]))
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

/* libdw's order: by address, a sequence's end first, then as written. */
struct srow {
	struct row r;
	size_t idx;
};

static bool
row_end(const struct row *r)
{
	return r->file_end & ROW_END;
}

static int
cmp_rows(const struct row *a, size_t ia, const struct row *b, size_t ib)
{
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (row_end(a) != row_end(b))
		return row_end(a) ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

static int
cmp_srow(const void *pa, const void *pb)
{
	const struct srow *a = pa, *b = pb;

	return cmp_rows(&a->r, a->idx, &b->r, b->idx);
}

/* A run of rows in order (a sequence, as the program wrote it). */
struct seq {
	uint64_t addr; /* of its first row */
	size_t start, n;
	bool end; /* its first row ends it */
};

static int
cmp_seq(const void *pa, const void *pb)
{
	const struct seq *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->end != b->end)
		return a->end ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * A sequence's end often shares its address with the row before it
 * (and maybe more): libdw puts the end first, so that those rows cover
 * the address.  Moves the end at `i` before the rows at its address,
 * from `start` on; returns false when a row before it is out of order
 * in another way.
 */
static bool
end_before_rows(struct row *rows, size_t start, size_t i)
{
	struct row end = rows[i];
	size_t k = i;

	while (k > start && rows[k - 1].addr == end.addr &&
	       !row_end(&rows[k - 1]))
		k--;
	if (k == i || (k > start && rows[k - 1].addr > end.addr))
		return false;
	memmove(rows + k + 1, rows + k, (i - k) * sizeof(*rows));
	rows[k] = end;
	return true;
}

/*
 * Splits the rows into ordered runs; returns their count, or 0 when a
 * run is out of order or memory ran out (the rows are then sorted one
 * by one).
 */
static size_t
split_runs(struct sym_dwline *l, struct seq **out)
{
	struct seq *v = NULL;
	size_t n = 0, a = 0, i, start = 0;

	for (i = 0; i < l->nrows; i++) {
		if (i > start &&
		    cmp_rows(&l->rows[i - 1], i - 1, &l->rows[i], i) > 0 &&
		    !end_before_rows(l->rows, start, i))
			goto unordered;
		if (!row_end(&l->rows[i]) && i + 1 < l->nrows)
			continue;
		if (SP_GROW(v, a, n + 1))
			goto unordered;
		v[n++] =
		    (struct seq){ l->rows[start].addr, start, i + 1 - start,
				  row_end(&l->rows[start]) };
		start = i + 1;
	}
	*out = v;
	return n;
unordered:
	free(v);
	return 0;
}

/*
 * Puts ordered runs in address order, whole, when no two overlap.
 * Returns 0, 1 when they overlap (nothing moved), or -ENOMEM.
 */
static int
concat_runs(struct sym_dwline *l, struct seq *v, size_t n)
{
	struct row *rows;
	size_t i, last, at = 0;
	bool moved = false;

	qsort(v, n, sizeof(*v), cmp_seq);
	for (i = 1; i < n; i++) {
		last = v[i - 1].start + v[i - 1].n - 1;
		if (cmp_rows(&l->rows[last], last, &l->rows[v[i].start],
			     v[i].start) > 0)
			return 1;
		moved |= v[i].start < v[i - 1].start;
	}
	if (!moved)
		return 0;
	if (!(rows = malloc(l->nrows * sizeof(*rows))))
		return -ENOMEM;
	for (i = 0; i < n; at += v[i].n, i++)
		memcpy(rows + at, l->rows + v[i].start, v[i].n * sizeof(*rows));
	free(l->rows);
	l->rows = rows;
	l->arows = l->nrows;
	return 0;
}

static int
sort_each_row(struct sym_dwline *l)
{
	struct srow *t = malloc(l->nrows * sizeof(*t));
	size_t i;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < l->nrows; i++)
		t[i] = (struct srow){ l->rows[i], i };
	qsort(t, l->nrows, sizeof(*t), cmp_srow);
	for (i = 0; i < l->nrows; i++)
		l->rows[i] = t[i].r;
	free(t);
	return 0;
}

/*
 * libdw's table: sorted, the last row an end of sequence whatever the
 * program said.  Programs usually hold a few sequences, each in order
 * and apart from the others, so moving whole runs is enough.
 */
static int
sort_rows(struct sym_dwline *l)
{
	struct seq *v = NULL;
	size_t n = split_runs(l, &v);
	int rc = n ? concat_runs(l, v, n) : 1;

	free(v);
	if (rc > 0)
		rc = sort_each_row(l);
	if (!rc && l->nrows)
		l->rows[l->nrows - 1].file_end |= ROW_END;
	return rc;
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
	    !(rc = read_header(&c, &h, l, off, comp_dir)) &&
	    !(rc = run_program(&c, &h, l)))
		rc = sort_rows(l);
	free(h.dirs);
	if (rc) {
		sym_dwline_free(l);
		errno = -rc;
		return NULL;
	}
	return l;
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
	size_t lo = 0, hi = l->nrows, f;
	const struct row *r;

	/* The last row at or below vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->rows[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || row_end(r = &l->rows[lo - 1]))
		return false;
	f = r->file_end & ~ROW_END;
	*file = f < l->nfiles ? l->files[f] : NULL;
	*line = r->line;
	return true;
}

const char *
sym_dwline_file(const struct sym_dwline *l, uint64_t idx)
{
	return idx < l->nfiles ? l->files[idx] : NULL;
}
