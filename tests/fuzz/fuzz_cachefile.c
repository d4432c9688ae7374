/*
 * fuzz_cachefile.c: libFuzzer harness for sp-symbolize's cache file
 * decoder (files anyone with the user's rights may have damaged): any
 * bytes are decoded or refused, never read past their end.  The input
 * is tried as it is, and resealed with a correct checksum so that the
 * structure checks behind it are reached.  A file that decodes must
 * encode and decode again to the same results.
 *
 * objs: sp-symbolize/cache/cachefile.c sp-symbolize/out/symres.c
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/htab.h"
#include "sp-symbolize/cache/cachefile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t
le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * Decodes the entries and the origin, then checks the round trip of
 * whatever decoded.
 */
static void
try_file(const uint8_t *p, size_t len, uint64_t ctx)
{
	struct sym_cset *s = sym_cset_new(), *t = sym_cset_new();
	struct sym_corigin o = SYM_CORIGIN_INIT, o2 = SYM_CORIGIN_INIT;
	struct sp_buf b = SP_BUF_INIT;
	int rc, orc;

	if (!s || !t)
		abort();
	orc = sym_cset_origin(p, len, ctx, &o);
	rc = sym_cset_decode(s, p, len, ctx);
	if (rc != 0 && sym_cset_count(s) != 0)
		abort(); /* a refused file must add nothing */
	if (rc == 0 && orc == 0) {
		if (sym_cset_encode(s, ctx, &o, &b) ||
		    sym_cset_decode(t, b.data, b.len, ctx) ||
		    sym_cset_count(t) != sym_cset_count(s) ||
		    sym_cset_origin(b.data, b.len, ctx, &o2) ||
		    o2.hash != o.hash || o2.nids != o.nids)
			abort();
	}
	sym_corigin_release(&o);
	sym_corigin_release(&o2);
	sp_buf_release(&b);
	sym_cset_free(s);
	sym_cset_free(t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size + 8);
	uint64_t ctx = size >= 16 ? le64(data + 8) : 0, h;
	int i;

	if (!copy)
		abort();
	/* Exactly `size` bytes first, so ASan sees any overread. */
	memcpy(copy, data, size);
	try_file(copy, size, ctx);
	h = sp_hash(copy, size);
	for (i = 0; i < 8; i++)
		copy[size + i] = (uint8_t)(h >> (8 * i));
	try_file(copy, size + 8, ctx);
	free(copy);
	return 0;
}
