/*
 * dwlhdr.c: a line program's header (see dwline_impl.h): the fields the
 * state machine needs, the directory and file tables of versions 2 to 4
 * and the entry formats of version 5, and the file names libdw makes of
 * them.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "sp-symbolize/dwarf/dwline_impl.h"
#include "common/banned.h"

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

int
sym_dwl_add_file(struct sym_dwline *l, const struct hdr *h, const char *name,
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

/*
 * Reads an entry format and the number of entries that follow it into
 * *n; returns 0 or -EBADMSG (entries without a format, or more than the
 * bytes left could hold).
 */
static int
read_fmt(struct cur *c, struct fmt *f, uint64_t *n)
{
	unsigned i;

	f->n = (unsigned)get_fixed(c, 1);
	for (i = 0; i < f->n; i++) {
		f->type[i] = get_uleb(c);
		f->form[i] = get_uleb(c);
	}
	*n = get_uleb(c);
	if (c->err || (f->n == 0 && *n) ||
	    (f->n && *n > (size_t)(c->end - c->p) / f->n))
		return -EBADMSG;
	return 0;
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

	if ((rc = read_fmt(c, &f, &n)))
		return rc;
	if (!(h->dirs = calloc(n ? n : 1, sizeof(*h->dirs))))
		return -ENOMEM;
	for (h->ndirs = 0; h->ndirs < n; h->ndirs++) {
		if ((rc = read_entry(c, h, &f, &path, &dir)))
			return rc;
		h->dirs[h->ndirs] = path;
	}
	if ((rc = read_fmt(c, &f, &n)))
		return rc;
	for (i = 0; i < n; i++) {
		if ((rc = read_entry(c, h, &f, &path, &dir)))
			return rc;
		if ((rc = sym_dwl_add_file(l, h, path, dir)))
			return rc;
	}
	return n ? 0 : push_name(l, strdup(UNNAMED));
}

/* Before version 5: directory 0 is DW_AT_comp_dir, file 0 unnamed. */
static int
read_tables_v4(struct cur *c, struct hdr *h, struct sym_dwline *l,
	       const char *comp_dir)
{
	const char *name;
	size_t adirs = 0;
	uint64_t dir;
	int rc;

	if (SP_GROW(h->dirs, adirs, 1))
		return -ENOMEM;
	h->dirs[h->ndirs++] = comp_dir;
	while (need(c, 1) && *c->p) {
		if (SP_GROW(h->dirs, adirs, h->ndirs + 1))
			return -ENOMEM;
		h->dirs[h->ndirs++] = get_cstr(c);
	}
	if (c->err)
		return -EBADMSG;
	if ((rc = push_name(l, strdup(UNNAMED))))
		return rc;
	c->p++;
	while (need(c, 1) && *c->p) {
		name = get_cstr(c);
		dir = get_uleb(c);
		get_uleb(c); /* modification time */
		get_uleb(c); /* length */
		if (c->err)
			return -EBADMSG;
		if ((rc = sym_dwl_add_file(l, h, name, dir)))
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
int
sym_dwl_read_header(struct cur *c, struct hdr *h, struct sym_dwline *l,
		    uint64_t off, const char *comp_dir)
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
