/*
 * fuzz_ehframe.c: libFuzzer harness for sp-record's .eh_frame indexer
 * and CFI rule reader: the input is an .eh_frame section (its address
 * taken from its size); the indexer must refuse it or return pairs
 * sorted by initial location, each naming an FDE offset inside the
 * section; the rule reader (cfirule.c), asked for addresses of each
 * FDE indexed and for FDEs at the first offsets of the input, must
 * refuse or give a rule of its kind that packs into one word and back.
 * Neither may read past the input or crash.  Their LEB128 numbers go
 * through common/varint.c.  The seed loop-expr is unw_loopcfa's
 * .eh_frame, whose expressions jump back without end (t2011): the rule
 * reader skips an expression by its length and never evaluates one.
 *
 * ehframe.c and cfirule.c are compiled in directly: they need nothing
 * else of the tool.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/unwind/cfirule.c"
#include "sp-record/unwind/ehframe.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The rule for `pc` of the FDE at `fde`, if any, must be one of its kind. */
static void
check_rule(const uint8_t *sec, size_t size, uint64_t vaddr, uint64_t fde,
	   uint64_t pc)
{
	struct rec_cfirule r, back;

	if (rec_cfirule_find(sec, size, vaddr, fde, pc, &r) < 0)
		return;
	if ((r.cfa_reg != REC_CFA_SP && r.cfa_reg != REC_CFA_BP) ||
	    r.cfa_off <= -(1 << 23) || r.cfa_off >= 1 << 23 ||
	    r.ra == REC_CFIRULE_SAME)
		abort();
	rec_cfirule_unpack(rec_cfirule_pack(&r), &back);
	if (back.cfa_reg != r.cfa_reg || back.cfa_off != r.cfa_off ||
	    back.ra != r.ra || back.bp != r.bp)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so that ASan sees any read past the end. */
	uint8_t *copy = malloc(size ? size : 1);
	uint64_t vaddr = 0x400000 + (size & 0xfff0);
	int32_t *t = NULL;
	size_t n = 0, i;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (rec_ehframe_index(copy, size, vaddr, &t, &n) == 0) {
		if (n == 0)
			abort();
		for (i = 0; i < n; i++) {
			if (t[2 * i + 1] < 0 || (size_t)t[2 * i + 1] >= size)
				abort();
			if (i > 0 && t[2 * i - 2] > t[2 * i])
				abort();
			if (i < 64)
				check_rule(copy, size, vaddr,
					   vaddr + (uint64_t)t[2 * i + 1],
					   vaddr + (uint64_t)(int64_t)t[2 * i] +
					       (uint64_t)(i * 7 % 40));
		}
		free(t);
	}
	for (i = 0; i < size && i < 64; i += 4)
		check_rule(copy, size, vaddr, vaddr + i, vaddr - 0x1000 + i);
	free(copy);
	return 0;
}
