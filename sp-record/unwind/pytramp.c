/*
 * pytramp.c: recognises CPython's perf trampolines and writes their CFI
 * (pytramp.h).
 */
#include <string.h>

#include "sp-record/unwind/madecfi.h"
#include "sp-record/unwind/pytramp.h"
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

/*
 * The CIE says CFA = rsp+8, return address at CFA-8; the FDE moves the
 * CFA to rsp+16 after the sub and back to rsp+8 at the add.
 */
size_t
rec_pytramp_cfi(uint64_t start, bool endbr, uint64_t at, uint8_t *out)
{
	static const uint8_t cie[] = {
		0x0c, 7, 8, /* DW_CFA_def_cfa rsp+8 */
		0x90, 1,    /* DW_CFA_offset r16, cfa-8 */
	};
	size_t pre = endbr ? sizeof(endbr64) : 0;
	const uint8_t fde[] = {
		(uint8_t)(0x40 | (pre + 4)), /* after the sub */
		0x0e,
		16,       /* CFA rsp+16 */
		0x40 | 6, /* after the add */
		0x0e,
		8, /* CFA rsp+8 */
	};

	_Static_assert(sizeof(cie) <= REC_MADECFI_CIE_OPS, "CIE too long");
	_Static_assert(sizeof(fde) <= REC_MADECFI_FDE_OPS, "FDE too long");
	return rec_madecfi_write(start, (uint32_t)rec_pytramp_len(endbr), at,
				 cie, sizeof(cie), fde, sizeof(fde), out);
}
