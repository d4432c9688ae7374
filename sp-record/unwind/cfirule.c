/*
 * cfirule.c: one row of an FDE's CFA program, run as libunwind 1.6 runs
 * it (cfirule.h).
 *
 * The CIE's initial instructions, then the FDE's up to the address
 * looked up, over a table of the 17 columns libunwind keeps (the x86_64
 * general registers and the return address).  Where libunwind would
 * fail, read more bytes than it consumes, or evaluate an expression, the
 * row is refused rather than guessed.
 */
#include <errno.h>
#include <string.h>

#include "sp-record/unwind/cfirule.h"
#include "sp-record/unwind/ehcur.h"
#include "common/banned.h"

#define NCOLS 17 /* libunwind's DWARF_NUM_PRESERVED_REGS on x86_64 */
#define COL_BP 6 /* DWARF numbers of x86_64 registers */
#define COL_SP 7
#define COL_RA 16
#define REMEMBER_MAX 8
#define CFA_OFF_MAX (1 << 23)

enum where { SAME, UNDEF, CFAREL, REG, EXPR };

struct row {
	uint8_t where[NCOLS];
	int64_t val[NCOLS];
	uint8_t cfa_where; /* REG or EXPR */
	uint64_t cfa_reg;
	int64_t cfa_off;
};

/* The CIE facts the FDE's program needs. */
struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc, lsda_enc;
	bool sized; /* 'z': the FDE has an augmentation length */
	size_t instr, end;
};

/* An encoded pointer within the current entry; indirect ones refused. */
static bool
pointer(struct rec_ehcur *c, uint8_t enc, uint64_t *v)
{
	return !(enc & 0x80) && rec_ehcur_pointer(c, enc, v);
}

/*
 * Opens the entry at offset `at` of the `len` bytes of c->sec: c->pos
 * after its 32-bit length (64-bit DWARF is not read), c->end at its
 * end.  False when it does not fit.
 */
static bool
entry(struct rec_ehcur *c, size_t len, uint64_t at)
{
	uint32_t n;

	c->end = len;
	if (at > len)
		return false;
	c->pos = (size_t)at;
	if (!rec_ehcur_get(c, &n, 4) || n == 0 || n == 0xffffffffu ||
	    n > len - c->pos)
		return false;
	c->end = c->pos + n;
	return true;
}

/* The augmentation data of the CIE; -ENOTSUP for what is refused. */
static int
augmentation(struct rec_ehcur *c, const char *aug, struct cie *ci)
{
	uint64_t size = 0, skip;
	size_t data = 0;
	uint8_t enc;

	if ((ci->sized = aug[0] == 'z')) {
		if (!rec_ehcur_uleb(c, &size) || size > c->end - c->pos)
			return -EBADMSG;
		data = c->pos;
		aug++;
	}
	for (; *aug; aug++) {
		if (*aug == 'R' && !rec_ehcur_get(c, &ci->fde_enc, 1))
			return -EBADMSG;
		if (*aug == 'L' && !rec_ehcur_get(c, &ci->lsda_enc, 1))
			return -EBADMSG;
		/* skipped: indirect or not, its size is the encoding's */
		if (*aug == 'P' && (!rec_ehcur_get(c, &enc, 1) ||
				    !rec_ehcur_pointer(c, enc & 0x7f, &skip)))
			return -ENOTSUP;
		if (*aug != 'R' && *aug != 'L' && *aug != 'P')
			return -ENOTSUP; /* 'S' (a signal frame), unknown */
	}
	if (ci->sized && c->pos != data + size)
		return -ENOTSUP;
	return 0;
}

/* Reads the CIE at offset `at` of the `len` bytes of c.sec. */
static int
read_cie(struct rec_ehcur c, size_t len, uint64_t at, struct cie *ci)
{
	const char *aug;
	uint64_t ra;
	uint32_t id;
	uint8_t version, ra8;
	size_t n;
	int r;

	if (!entry(&c, len, at) || !rec_ehcur_get(&c, &id, 4) || id != 0 ||
	    !rec_ehcur_get(&c, &version, 1))
		return -EBADMSG;
	if (version != 1 && version != 3) /* libunwind misreads 4's sizes */
		return -ENOTSUP;
	aug = (const char *)c.sec + c.pos;
	if (!(n = c.end - c.pos) || !memchr(aug, 0, n))
		return -EBADMSG;
	if (strlen(aug) > 4) /* libunwind keeps four characters */
		return -ENOTSUP;
	c.pos += strlen(aug) + 1;
	if (!rec_ehcur_uleb(&c, &ci->code_align) ||
	    !rec_ehcur_sleb(&c, &ci->data_align))
		return -EBADMSG;
	if (version == 1 ? !rec_ehcur_get(&c, &ra8, 1)
			 : !rec_ehcur_uleb(&c, &ra))
		return -EBADMSG;
	if ((version == 1 ? ra8 : ra) != COL_RA)
		return -ENOTSUP;
	ci->fde_enc = 0x00;
	ci->lsda_enc = 0xff; /* DW_EH_PE_omit */
	if ((r = augmentation(&c, aug, ci)) < 0)
		return r;
	ci->instr = c.pos;
	ci->end = c.end;
	return 0;
}

static bool
regnum(struct rec_ehcur *c, uint64_t *reg)
{
	return rec_ehcur_uleb(c, reg) && *reg < NCOLS;
}

static void
set(struct row *row, uint64_t reg, enum where w, int64_t val)
{
	row->where[reg] = (uint8_t)w;
	row->val[reg] = val;
}

/* The ops that set a register's rule; 1 when `op` is none of them. */
static int
reg_op(struct rec_ehcur *c, const struct cie *ci, uint8_t op, struct row *row)
{
	uint64_t reg, u;
	int64_t s;

	switch (op) {
	case 0x05: /* DW_CFA_offset_extended */
		if (!regnum(c, &reg) || !rec_ehcur_uleb(c, &u))
			return -ENOTSUP;
		set(row, reg, CFAREL, (int64_t)u * ci->data_align);
		return 0;
	case 0x11: /* DW_CFA_offset_extended_sf */
		if (!regnum(c, &reg) || !rec_ehcur_sleb(c, &s))
			return -ENOTSUP;
		set(row, reg, CFAREL, s * ci->data_align);
		return 0;
	case 0x2f: /* DW_CFA_GNU_negative_offset_extended */
		if (!regnum(c, &reg) || !rec_ehcur_uleb(c, &u))
			return -ENOTSUP;
		set(row, reg, CFAREL, -((int64_t)u * ci->data_align));
		return 0;
	case 0x07: /* DW_CFA_undefined */
	case 0x08: /* DW_CFA_same_value */
		if (!regnum(c, &reg))
			return -ENOTSUP;
		set(row, reg, op == 0x07 ? UNDEF : SAME, 0);
		return 0;
	case 0x09: /* DW_CFA_register */
		if (!regnum(c, &reg) || !rec_ehcur_uleb(c, &u))
			return -ENOTSUP;
		set(row, reg, REG, (int64_t)u);
		return 0;
	case 0x10: /* DW_CFA_expression */
	case 0x16: /* DW_CFA_val_expression */
		if (!regnum(c, &reg) || !rec_ehcur_uleb(c, &u) ||
		    u > c->end - c->pos)
			return -ENOTSUP;
		c->pos += (size_t)u;
		set(row, reg, EXPR, 0);
		return 0;
	}
	return 1;
}

/* The ops that define the CFA; 1 when `op` is none of them. */
static int
cfa_op(struct rec_ehcur *c, const struct cie *ci, uint8_t op, struct row *row)
{
	uint64_t reg, u;
	int64_t s;

	switch (op) {
	case 0x0c: /* DW_CFA_def_cfa */
	case 0x12: /* DW_CFA_def_cfa_sf */
		if (!regnum(c, &reg) || (op == 0x0c ? !rec_ehcur_uleb(c, &u)
						    : !rec_ehcur_sleb(c, &s)))
			return -ENOTSUP;
		row->cfa_where = REG;
		row->cfa_reg = reg;
		row->cfa_off = op == 0x0c ? (int64_t)u : s * ci->data_align;
		return 0;
	case 0x0d: /* DW_CFA_def_cfa_register */
		if (!regnum(c, &reg))
			return -ENOTSUP;
		row->cfa_where = REG;
		row->cfa_reg = reg;
		return 0;
	case 0x0e: /* DW_CFA_def_cfa_offset */
	case 0x13: /* DW_CFA_def_cfa_offset_sf */
		if (op == 0x0e ? !rec_ehcur_uleb(c, &u)
			       : !rec_ehcur_sleb(c, &s))
			return -ENOTSUP;
		row->cfa_off = op == 0x0e ? (int64_t)u : s * ci->data_align;
		return 0;
	case 0x0f: /* DW_CFA_def_cfa_expression */
		if (!rec_ehcur_uleb(c, &u) || u > c->end - c->pos)
			return -ENOTSUP;
		c->pos += (size_t)u;
		row->cfa_where = EXPR;
		return 0;
	}
	return 1;
}

/* Moves the location on as an advance op says; 1 when `op` is none. */
static int
advance_op(struct rec_ehcur *c, const struct cie *ci, uint8_t op, uint64_t *loc)
{
	uint64_t delta = 0;
	uint16_t u16;
	uint32_t u32;
	uint8_t u8;

	switch (op) {
	case 0x01: /* DW_CFA_set_loc */
		return pointer(c, ci->fde_enc, loc) ? 0 : -ENOTSUP;
	case 0x02: /* DW_CFA_advance_loc1 */
		if (!rec_ehcur_get(c, &u8, 1))
			return -ENOTSUP;
		delta = u8;
		break;
	case 0x03: /* DW_CFA_advance_loc2 */
		if (!rec_ehcur_get(c, &u16, 2))
			return -ENOTSUP;
		delta = u16;
		break;
	case 0x04: /* DW_CFA_advance_loc4 */
		if (!rec_ehcur_get(c, &u32, 4))
			return -ENOTSUP;
		delta = u32;
		break;
	default:
		return 1;
	}
	*loc += delta * ci->code_align;
	return 0;
}

/*
 * Runs the program in [c->pos, c->end) while the location is at most
 * `pc`, as libunwind's run_cfi_program does.  `initial` is the row
 * DW_CFA_restore goes back to.
 */
static int
run(struct rec_ehcur *c, const struct cie *ci, uint64_t loc, uint64_t pc,
    struct row *row, const struct row *initial)
{
	struct row saved[REMEMBER_MAX];
	size_t depth = 0;
	uint64_t reg, u;
	uint8_t op;
	int r;

	while (loc <= pc && c->pos < c->end) {
		rec_ehcur_get(c, &op, 1);
		reg = op & 0x3f;
		switch (op >> 6) {
		case 1: /* DW_CFA_advance_loc */
			loc += reg * ci->code_align;
			continue;
		case 2: /* DW_CFA_offset */
			if (reg >= NCOLS || !rec_ehcur_uleb(c, &u))
				return -ENOTSUP;
			set(row, reg, CFAREL, (int64_t)u * ci->data_align);
			continue;
		case 3: /* DW_CFA_restore */
			if (reg >= NCOLS)
				return -ENOTSUP;
			set(row, reg, initial->where[reg], initial->val[reg]);
			continue;
		}
		if (op == 0x00) /* DW_CFA_nop */
			continue;
		if (op == 0x06) { /* DW_CFA_restore_extended */
			if (!regnum(c, &reg))
				return -ENOTSUP;
			set(row, reg, initial->where[reg], initial->val[reg]);
			continue;
		}
		if (op == 0x0a) { /* DW_CFA_remember_state */
			if (depth == REMEMBER_MAX)
				return -ENOTSUP;
			saved[depth++] = *row;
			continue;
		}
		if (op == 0x0b) { /* DW_CFA_restore_state */
			if (depth == 0)
				return -ENOTSUP;
			*row = saved[--depth];
			continue;
		}
		if (op == 0x2e) { /* DW_CFA_GNU_args_size */
			if (!rec_ehcur_uleb(c, &u))
				return -ENOTSUP;
			continue;
		}
		if ((r = reg_op(c, ci, op, row)) <= 0 ||
		    (r = cfa_op(c, ci, op, row)) <= 0 ||
		    (r = advance_op(c, ci, op, &loc)) <= 0) {
			if (r < 0)
				return r;
			continue;
		}
		return -ENOTSUP; /* val_offset, vendor ops: libunwind differs */
	}
	return 0;
}

/* A saved register's rule, if it is one cfirule.h can give. */
static bool
saved_rule(const struct row *row, int col, bool same_ok, int16_t *out)
{
	switch (row->where[col]) {
	case SAME:
		*out = REC_CFIRULE_SAME;
		return same_ok;
	case UNDEF:
		*out = REC_CFIRULE_UNDEF;
		return true;
	case CFAREL:
		*out = (int16_t)row->val[col];
		return row->val[col] > INT16_MIN && row->val[col] < INT16_MAX;
	}
	return false;
}

/* The row as a rule, or -ENOTSUP when it is not of the kind kept. */
static int
to_rule(const struct row *row, struct rec_cfirule *rule)
{
	int i;

	if (row->cfa_where != REG ||
	    (row->cfa_reg != COL_SP && row->cfa_reg != COL_BP) ||
	    row->cfa_off <= -CFA_OFF_MAX || row->cfa_off >= CFA_OFF_MAX ||
	    row->where[COL_SP] != SAME)
		return -ENOTSUP;
	/* libunwind evaluates an expression rule of any register */
	for (i = 0; i < NCOLS; i++)
		if (row->where[i] == EXPR ||
		    (row->where[i] == REG && row->val[i] >= NCOLS))
			return -ENOTSUP;
	rule->cfa_reg = row->cfa_reg == COL_SP ? REC_CFA_SP : REC_CFA_BP;
	rule->cfa_off = (int32_t)row->cfa_off;
	if (!saved_rule(row, COL_RA, false, &rule->ra) ||
	    !saved_rule(row, COL_BP, true, &rule->bp))
		return -ENOTSUP;
	return 0;
}

int
rec_cfirule_find(const uint8_t *sec, size_t len, uint64_t vaddr, uint64_t fde,
		 uint64_t pc, struct rec_cfirule *rule)
{
	struct rec_ehcur c = { sec, 0, len, vaddr }, p;
	struct row row, initial, undef;
	uint64_t start, range, aug;
	int32_t cie_off;
	size_t at;
	struct cie ci;
	int r;

	if (fde < vaddr || !entry(&c, len, fde - vaddr))
		return -EBADMSG;
	at = c.pos;
	if (!rec_ehcur_get(&c, &cie_off, 4) || cie_off == 0 ||
	    (int64_t)at < cie_off)
		return -EBADMSG;
	if ((r = read_cie(c, len, (uint64_t)((int64_t)at - cie_off), &ci)) < 0)
		return r;
	if (!(ci.fde_enc & 0x10) || !pointer(&c, ci.fde_enc, &start) ||
	    !pointer(&c, ci.fde_enc & 0x0f, &range))
		return -ENOTSUP; /* absolute: libunwind would not relocate */
	if (pc < start || pc - start >= range)
		return -ENOENT;
	if (ci.sized) {
		if (!rec_ehcur_uleb(&c, &aug) || aug > c.end - c.pos)
			return -EBADMSG;
		c.pos += (size_t)aug;
	} else if (ci.lsda_enc != 0xff && !pointer(&c, ci.lsda_enc, &aug)) {
		return -ENOTSUP;
	}
	memset(&row, 0, sizeof(row)); /* every column SAME */
	row.cfa_where = UNDEF;
	memset(&undef, UNDEF, sizeof(undef)); /* a restore in a CIE */
	p = c;
	p.pos = ci.instr;
	p.end = ci.end;
	if ((r = run(&p, &ci, 0, UINT64_MAX, &row, &undef)) < 0)
		return r;
	initial = row;
	if ((r = run(&c, &ci, start, pc, &row, &initial)) < 0)
		return r;
	rule->prev_in = pc > start;
	rule->next_in = pc - start + 1 < range;
	rule->tiny = range <= 16;
	return to_rule(&row, rule);
}

uint64_t
rec_cfirule_pack(const struct rec_cfirule *rule)
{
	return ((uint64_t)(uint32_t)rule->cfa_off & 0xffffffu) |
	       (uint64_t)(rule->cfa_reg & 1) << 24 |
	       (uint64_t)rule->prev_in << 25 | (uint64_t)rule->next_in << 26 |
	       (uint64_t)rule->tiny << 27 | (uint64_t)(uint16_t)rule->ra << 32 |
	       (uint64_t)(uint16_t)rule->bp << 48;
}

void
rec_cfirule_unpack(uint64_t word, struct rec_cfirule *rule)
{
	uint32_t off = (uint32_t)(word & 0xffffffu);

	/* sign-extend the 24-bit offset */
	rule->cfa_off = (int32_t)(off ^ 0x800000u) - 0x800000;
	rule->cfa_reg = (uint8_t)(word >> 24 & 1);
	rule->prev_in = word >> 25 & 1;
	rule->next_in = word >> 26 & 1;
	rule->tiny = word >> 27 & 1;
	rule->ra = (int16_t)(uint16_t)(word >> 32);
	rule->bp = (int16_t)(uint16_t)(word >> 48);
}
