/*
 * madecfi.c: writes made-up CFI (madecfi.h).
 */
#include <string.h>

#include "sp-record/unwind/madecfi.h"
#include "common/banned.h"

#define CIE_AT 8
#define CIE_HEAD 17 /* length, id, version, "zR", aligns, ra, aug. */
#define FDE_AT (CIE_AT + CIE_HEAD + REC_MADECFI_CIE_OPS)
#define FDE_HEAD 17 /* length, CIE pointer, pc, range, aug. length */

static void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4); /* little-endian host */
}

/* Longer instructions are cut (callers check theirs at compile time). */
size_t
rec_madecfi_write(uint64_t start, uint32_t len, uint64_t at,
		  const uint8_t *cie_ops, size_t ncie, const uint8_t *fde_ops,
		  size_t nfde, uint8_t *out)
{
	static const uint8_t cie_head[CIE_HEAD - 4] = {
		0, 0,    0,   0, /* CIE id */
		1, 'z',  'R', 0, /* version, augmentation */
		1, 0x78, 16,     /* code align, data align -8, ra */
		1, 0x1b,         /* augmentation data: pcrel|sdata4 */
	};
	uint8_t *cie = out + CIE_AT, *fde = out + FDE_AT;

	/* never past the buffer, whatever the caller passes */
	ncie = ncie < REC_MADECFI_CIE_OPS ? ncie : REC_MADECFI_CIE_OPS;
	nfde = nfde < REC_MADECFI_FDE_OPS ? nfde : REC_MADECFI_FDE_OPS;
	memset(out, 0, REC_MADECFI_MAX); /* 0: DW_CFA_nop */
	put32(out, (uint32_t)(int32_t)(int64_t)(start - at));
	put32(out + 4, FDE_AT);
	put32(cie, FDE_AT - CIE_AT - 4);
	memcpy(cie + 4, cie_head, sizeof(cie_head));
	if (ncie)
		memcpy(cie + CIE_HEAD, cie_ops, ncie);
	put32(fde, REC_MADECFI_MAX - FDE_AT - 4);
	put32(fde + 4, FDE_AT + 4 - CIE_AT); /* back to the CIE */
	put32(fde + 8, (uint32_t)(int32_t)(int64_t)(start - (at + FDE_AT + 8)));
	put32(fde + 12, len);
	fde[16] = 0; /* no augmentation data */
	if (nfde)
		memcpy(fde + FDE_HEAD, fde_ops, nfde);
	return REC_MADECFI_MAX;
}

size_t
rec_madecfi_fp(uint64_t start, uint32_t len, uint64_t at, uint8_t *out)
{
	static const uint8_t ops[] = {
		0x0c, 6, 16, /* DW_CFA_def_cfa rbp+16 */
		0x90, 1,     /* DW_CFA_offset r16 (ra), cfa-8 */
		0x86, 2,     /* DW_CFA_offset r6 (rbp), cfa-16 */
	};
	_Static_assert(sizeof(ops) <= REC_MADECFI_CIE_OPS, "CIE too long");

	return rec_madecfi_write(start, len, at, ops, sizeof(ops), NULL, 0,
				 out);
}

size_t
rec_madecfi_sp(uint64_t start, uint32_t len, uint64_t at, uint8_t cfa_off,
	       uint8_t *out)
{
	uint8_t ops[] = {
		0x0c, 7, 0, /* DW_CFA_def_cfa rsp+cfa_off (one ULEB byte) */
		0x90, 1,    /* DW_CFA_offset r16 (ra), cfa-8 */
	};
	_Static_assert(sizeof(ops) <= REC_MADECFI_CIE_OPS, "CIE too long");

	ops[2] = cfa_off & 0x7f;
	return rec_madecfi_write(start, len, at, ops, sizeof(ops), NULL, 0,
				 out);
}
