/*
 * fuzz_records.c: libFuzzer harness for the record stream codec of
 * common/records.h.  Every record the decoder accepts is written back,
 * and the written text must decode again to as many records with no
 * error, and write to the same bytes: the writer and the decoder agree.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decodes `f` and writes what it accepts to *out; returns the count. */
static size_t
rewrite(FILE *f, char **out, size_t *len, int *last)
{
	struct sp_recdec *d = sp_recdec_new(f);
	FILE *w = open_memstream(out, len);
	struct sp_rec rec;
	size_t n = 0;

	if (!d || !w)
		abort();
	while ((*last = sp_recdec_next(d, &rec)) == 1) {
		if (rec.kind == SP_REC_UNKNOWN) {
			size_t l;
			const char *line = sp_recdec_line(d, &l);

			fwrite(line, 1, l, w);
			fputc('\n', w);
		} else {
			sp_rec_write(w, &rec);
		}
		n++;
	}
	fclose(w);
	sp_recdec_free(d);
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *in = fmemopen((void *)data, size ? size : 1, "r");
	char *a = NULL, *b = NULL;
	size_t alen, blen, na, nb;
	int rc;
	FILE *again;

	if (!in || !size) {
		if (in)
			fclose(in);
		return 0;
	}
	na = rewrite(in, &a, &alen, &rc);
	fclose(in);
	again = fmemopen(a, alen ? alen : 1, "r");
	if (!again)
		abort();
	nb = alen ? rewrite(again, &b, &blen, &rc) : 0;
	fclose(again);
	if (nb != na || (alen && rc != 0) ||
	    (alen && (blen != alen || memcmp(a, b, alen))))
		abort();
	free(a);
	free(b);
	return 0;
}
