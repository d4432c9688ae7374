/*
 * fuzz_ehframe.c: libFuzzer harness for sp-record's .eh_frame indexer:
 * the input is an .eh_frame section (its address taken from its size);
 * the indexer must refuse it or return pairs sorted by initial location,
 * each naming an FDE offset inside the section, never read past the
 * input or crash.  Its LEB128 numbers go through common/varint.c.
 *
 * ehframe.c is compiled in directly: it needs nothing else of the tool.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/ehframe.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
		}
		free(t);
	}
	free(copy);
	return 0;
}
