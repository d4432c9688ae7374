/*
 * fuzz_dwline.c: libFuzzer harness for sp-symbolize's DWARF line-program
 * decoder: the input is .debug_line (and, from its second half, the
 * string sections its version 5 tables point into); the decoder must
 * refuse it or build a table whose lookups stay inside it, never read
 * past the input or crash.
 *
 * objs: sp-symbolize/dwarf/dwlhdr.c sp-symbolize/dwarf/dwline.c
 * objs: sp-symbolize/dwarf/dwlsort.c
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp-symbolize/dwarf/dwline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so that ASan sees any read past the end. */
	uint8_t *copy = malloc(size ? size : 1);
	struct sym_dwsects s = { 0 };
	struct sym_dwline *l;
	const char *file;
	uint64_t a;
	int line;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	s.line = copy;
	s.line_len = size;
	s.str = s.line_str = copy + size / 2;
	s.str_len = s.line_str_len = size - size / 2;
	l = sym_dwline_read(&s, 0, size % 2 ? 4 : 8, size % 3 ? "/c" : NULL);
	if (l) {
		for (a = 0; a < 64; a++)
			if (sym_dwline_find(l, a * 0x11, &file, &line) && file)
				(void)strlen(file);
		for (a = 0; a < 8; a++)
			if ((file = sym_dwline_file(l, a)))
				(void)strlen(file);
		sym_dwline_free(l);
	}
	free(copy);
	return 0;
}
