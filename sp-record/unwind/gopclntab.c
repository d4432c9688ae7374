/*
 * gopclntab.c: the function table of a Go 1.18+ .gopclntab
 * (gopclntab.h).
 */
#include <errno.h>
#include <string.h>

#include "sp-record/unwind/gopclntab.h"
#include "common/banned.h"

/* The header's fields after magic, pads, minLC and ptrSize (8 bytes). */
enum {
	HDR_NFUNC,
	HDR_NFILES,
	HDR_TEXT,
	HDR_FUNCNAME,
	HDR_CU,
	HDR_FILETAB,
	HDR_PCTAB,
	HDR_PCLN,
	HDR_WORDS
};

static uint32_t
u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int
rec_gopclntab_each(const uint8_t *tab, size_t size, uint64_t text,
		   int (*fn)(void *arg, uint64_t start, uint64_t end,
			     const char *name, size_t len),
		   void *arg)
{
	uint64_t h[HDR_WORDS], nfunc, i, fo, no, start, end;
	const uint8_t *ft, *names;
	size_t nsize;
	uint32_t magic;
	int r;

	if (size < 8 + sizeof(h))
		return size < 4 ? -EBADMSG : -ENOENT;
	magic = u32_at(tab);
	if ((magic != 0xfffffff0 && magic != 0xfffffff1) || tab[7] != 8)
		return -ENOENT;
	memcpy(h, tab + 8, sizeof(h));
	nfunc = h[HDR_NFUNC];
	/* nfunc + 1 entries of 8 bytes from the table's offset */
	if (h[HDR_PCLN] > size || h[HDR_FUNCNAME] > size || nfunc >= size ||
	    (size - h[HDR_PCLN]) / 8 < nfunc + 1)
		return -EBADMSG;
	if (h[HDR_TEXT])
		text = h[HDR_TEXT];
	ft = tab + h[HDR_PCLN];
	names = tab + h[HDR_FUNCNAME];
	nsize = size - h[HDR_FUNCNAME];
	for (i = 0; i < nfunc; i++) {
		start = text + u32_at(ft + i * 8);
		end = text + u32_at(ft + (i + 1) * 8);
		fo = u32_at(ft + i * 8 + 4);
		if (fo > size - h[HDR_PCLN] - 8)
			return -EBADMSG;
		no = u32_at(ft + fo + 4); /* _func.nameoff */
		if (no >= nsize || end < start)
			return -EBADMSG;
		r = fn(arg, start, end, (const char *)names + no,
		       strnlen((const char *)names + no, nsize - no));
		if (r < 0)
			return r;
	}
	return 0;
}
