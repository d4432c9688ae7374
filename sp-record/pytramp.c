/*
 * pytramp.c: recognises CPython's perf trampolines and writes their CFI
 * (pytramp.h).
 */
#include <string.h>

#include "sp-record/pytramp.h"
#include "common/banned.h"

static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
/* sub $8,%rsp; call *%rcx; add $8,%rsp; ret */
static const uint8_t body[11] = { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd1,
				  0x48, 0x83, 0xc4, 0x08, 0xc3 };

size_t
rec_pytramp_len(bool endbr)
{
	return sizeof(body) + (endbr ? sizeof(endbr64) : 0);
}

bool
rec_pytramp_match(const uint8_t *buf, size_t len, uint64_t buf_addr,
		  uint64_t ip, uint64_t *start, bool *endbr)
{
	size_t k, at;

	if (ip < buf_addr || ip - buf_addr >= len)
		return false;
	at = (size_t)(ip - buf_addr);
	for (k = at >= sizeof(body) ? at - sizeof(body) + 1 : 0; k <= at; k++) {
		if (len - k < sizeof(body) ||
		    memcmp(buf + k, body, sizeof(body)) != 0)
			continue;
		*endbr = k >= sizeof(endbr64) &&
			 memcmp(buf + k - sizeof(endbr64), endbr64,
				sizeof(endbr64)) == 0;
		*start = buf_addr + k - (*endbr ? sizeof(endbr64) : 0);
		return true;
	}
	/* ip on the endbr64 itself */
	for (k = at >= 3 ? at - 3 : 0; k <= at; k++)
		if (len - k >= sizeof(endbr64) + sizeof(body) &&
		    memcmp(buf + k, endbr64, sizeof(endbr64)) == 0 &&
		    memcmp(buf + k + sizeof(endbr64), body, sizeof(body)) ==
			0) {
			*endbr = true;
			*start = buf_addr + k;
			return true;
		}
	return false;
}

static void
put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4); /* little-endian host */
}

/*
 * Layout at `at`: table (8 bytes), CIE (24), FDE (32).  The CIE says:
 * code alignment 1, data alignment -8, return address in column 16, FDE
 * pointers pc-relative sdata4, CFA = rsp+8, return address at CFA-8.
 */
size_t
rec_pytramp_cfi(uint64_t start, bool endbr, uint64_t at, uint8_t *out)
{
	static const uint8_t cie[24] = {
		20,   0,    0,   0, /* length */
		0,    0,    0,   0, /* CIE id */
		1,    'z',  'R', 0, /* version, augmentation */
		1,    0x78, 16,     /* code align, data align -8, ra */
		1,    0x1b,         /* augmentation data: pcrel|sdata4 */
		0x0c, 7,    8,      /* DW_CFA_def_cfa rsp+8 */
		0x90, 1,            /* DW_CFA_offset r16, cfa-8 */
		0,    0,            /* padding */
	};
	const size_t cie_at = 8, fde_at = cie_at + sizeof(cie);
	size_t pre = endbr ? sizeof(endbr64) : 0, n = fde_at;
	uint8_t *fde = out + fde_at;

	memset(out, 0, REC_PYTRAMP_CFI_MAX);
	put32(out, (uint32_t)(int32_t)(int64_t)(start - at));
	put32(out + 4, (uint32_t)fde_at);
	memcpy(out + cie_at, cie, sizeof(cie));
	put32(fde, 28);                                  /* length */
	put32(fde + 4, (uint32_t)(fde_at + 4 - cie_at)); /* CIE ptr */
	put32(fde + 8, (uint32_t)(int32_t)(int64_t)(start - (at + fde_at +
							     8))); /* pcrel */
	put32(fde + 12, (uint32_t)rec_pytramp_len(endbr));         /* range */
	fde[16] = 0;                           /* no aug. data */
	fde[17] = (uint8_t)(0x40 | (pre + 4)); /* after the sub */
	fde[18] = 0x0e;
	fde[19] = 16;       /* CFA rsp+16 */
	fde[20] = 0x40 | 6; /* after the add */
	fde[21] = 0x0e;
	fde[22] = 8; /* CFA rsp+8 */
	n += 32;     /* rest: nops */
	return n;
}
