/*
 * fuzz_jitdump.c: libFuzzer harness for sp-symbolize's jitdump reader
 * (jit-PID.dump files, which anyone can write in /tmp): any bytes are
 * parsed into a map or refused, never read past their end, never loop;
 * every address of each entry parsed must look up.
 *
 * objs: sp-symbolize/jit/jitdump.c sp-symbolize/jit/perfmap.c
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp-symbolize/jit/jitdump.h"
#include "sp-symbolize/jit/perfmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sym_perfmap *m = sym_perfmap_new();
	/* A copy of exactly `size` bytes, so ASan sees any overread. */
	uint8_t *copy = malloc(size ? size : 1);
	const char *name;
	uint64_t start;
	long n;

	if (!m || !copy)
		abort();
	memcpy(copy, data, size);
	n = sym_jitdump_parse(copy, size, m);
	if (n > 0 && sym_perfmap_count(m) != (size_t)n)
		abort();
	if (n > 0 && size >= 80) {
		uint64_t a;

		memcpy(&a, copy + size - 8, sizeof(a));
		if (sym_perfmap_lookup(m, a, &name, &start) && start > a)
			abort();
	}
	free(copy);
	sym_perfmap_free(m);
	return 0;
}
