/*
 * fpcfi.c: writes the made-up CFI of a frame-pointer frame (fpcfi.h).
 */
#include <string.h>

#include "sp-record/fpcfi.h"
#include "common/banned.h"

static void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4); /* little-endian host */
}

/*
 * Layout at `at`: table (8 bytes), CIE (24), FDE (24).  The CIE says:
 * code alignment 1, data alignment -8, return address in column 16, FDE
 * pointers pc-relative sdata4, CFA = rbp+16, return address at CFA-8,
 * rbp at CFA-16.  The FDE adds nothing to it.
 */
size_t
rec_fpcfi_write(uint64_t start, uint32_t len, uint64_t at, uint8_t *out)
{
	static const uint8_t cie[24] = {
		20,   0,    0,   0, /* length */
		0,    0,    0,   0, /* CIE id */
		1,    'z',  'R', 0, /* version, augmentation */
		1,    0x78, 16,     /* code align, data align -8, ra */
		1,    0x1b,         /* augmentation data: pcrel|sdata4 */
		0x0c, 6,    16,     /* DW_CFA_def_cfa rbp+16 */
		0x90, 1,            /* DW_CFA_offset r16, cfa-8 */
		0x86, 2,            /* DW_CFA_offset r6 (rbp), cfa-16 */
	};
	const size_t cie_at = 8, fde_at = cie_at + sizeof(cie);
	uint8_t *fde = out + fde_at;

	memset(out, 0, REC_FPCFI_MAX);
	put32(out, (uint32_t)(int32_t)(int64_t)(start - at));
	put32(out + 4, (uint32_t)fde_at);
	memcpy(out + cie_at, cie, sizeof(cie));
	put32(fde, 20);                                  /* length */
	put32(fde + 4, (uint32_t)(fde_at + 4 - cie_at)); /* CIE ptr */
	put32(fde + 8, (uint32_t)(int32_t)(int64_t)(start - (at + fde_at +
							     8))); /* pcrel */
	put32(fde + 12, len); /* range; then no aug. data, nops */
	return REC_FPCFI_MAX;
}
