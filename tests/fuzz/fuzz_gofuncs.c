/*
 * fuzz_gofuncs.c: libFuzzer harness for sp-record's reader of a Go
 * module's functions (gofuncs.c: the ELF symbol table, else the
 * .gopclntab through gopclntab.c), which reads the files of whatever
 * process is recorded: any bytes are refused or read into a table whose
 * lookups answer inside it, never read past their end.
 *
 * objs: sp-record/unwind/gofuncs.c sp-record/unwind/gopclntab.c
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/unwind/gofuncs.h"
#include "sp-record/unwind/gopclntab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
count(void *arg, uint64_t start, uint64_t end, const char *name, size_t len)
{
	(void)start;
	(void)end;
	if (len && name[len - 1] == '\0')
		abort();
	(*(size_t *)arg)++;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so that ASan sees any read past the end. */
	uint8_t *copy = malloc(size ? size : 1);
	enum rec_gofuncs_kind kind;
	struct rec_gofuncs *fs;
	uint64_t start, end, a;
	size_t n = 0;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	/* the input as a whole ELF image, and as a bare .gopclntab */
	if ((fs = rec_gofuncs_new(copy, size))) {
		for (a = 0; a < 64; a++)
			if (rec_gofuncs_find(fs, a * 0x40, &start, &end,
					     &kind) &&
			    (start > a * 0x40 || end <= a * 0x40))
				abort();
		rec_gofuncs_free(fs);
	} else if (errno != ENOENT && errno != EBADMSG && errno != ENOMEM) {
		abort();
	}
	rec_gopclntab_each(copy, size, 0x401000, count, &n);
	free(copy);
	return 0;
}
