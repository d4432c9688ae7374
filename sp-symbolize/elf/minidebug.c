/*
 * minidebug.c: MiniDebugInfo, the xz-compressed ELF image with a
 * .symtab of local functions that Fedora-style builds embed in the
 * .gnu_debugdata section of a stripped binary (see elffile.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <lzma.h>

#include "sp-symbolize/elf/elffile.h"
#include "common/banned.h"

/*
 * A MiniDebugInfo image holds a symbol table, smaller than the binary
 * it describes: one larger than twice the binary (at least 64 MiB, at
 * most 256 MiB) is taken as a decompression bomb.
 */
#define SYM_MINIDEBUG_MIN_CAP ((size_t)64 << 20)
#define SYM_MINIDEBUG_MAX_CAP ((size_t)256 << 20)

static Elf_Data *
debugdata(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && strcmp(name, ".gnu_debugdata") == 0)
			return elf_rawdata(scn, NULL);
	}
	return NULL;
}

static size_t
size_cap(const struct sym_elffile *f)
{
	size_t size = f->memlen, cap;
	struct stat st;

	if (f->fd >= 0 && fstat(f->fd, &st) == 0 && st.st_size > 0)
		size = (size_t)st.st_size;
	cap =
	    size > SYM_MINIDEBUG_MAX_CAP / 2 ? SYM_MINIDEBUG_MAX_CAP : 2 * size;
	return cap < SYM_MINIDEBUG_MIN_CAP ? SYM_MINIDEBUG_MIN_CAP : cap;
}

static int
grow(uint8_t **buf, size_t *cap, size_t limit, lzma_stream *s)
{
	size_t used = *cap - s->avail_out;
	size_t ncap = *cap ? 2 * *cap : 1u << 16;
	uint8_t *n;

	if (*cap >= limit)
		return -EFBIG;
	if (ncap > limit)
		ncap = limit;
	n = realloc(*buf, ncap);
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = ncap;
	s->next_out = n + used;
	s->avail_out = ncap - used;
	return 0;
}

static int
xz_decode(const uint8_t *in, size_t inlen, size_t limit, uint8_t **out,
	  size_t *outlen)
{
	lzma_stream s = LZMA_STREAM_INIT;
	uint8_t *buf = NULL;
	size_t cap = 0;
	lzma_ret r = LZMA_OK;
	int rc = 0;

	if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = inlen;
	do {
		if (s.avail_out == 0 && (rc = grow(&buf, &cap, limit, &s)) < 0)
			break;
		r = lzma_code(&s, LZMA_FINISH);
	} while (r == LZMA_OK);
	if (rc == 0 && r != LZMA_STREAM_END)
		rc = r == LZMA_MEM_ERROR ? -ENOMEM : -EBADMSG;
	*outlen = cap - s.avail_out;
	lzma_end(&s);
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	return 0;
}

int
sym_minidebug_open(const struct sym_elffile *f, struct sym_elffile *out)
{
	Elf_Data *d = debugdata(f->elf);
	uint8_t *img;
	size_t len;
	int rc;

	*out = (struct sym_elffile)SYM_ELFFILE_INIT;
	if (!d || !d->d_buf || d->d_size == 0)
		return -ENOENT;
	rc = xz_decode(d->d_buf, d->d_size, size_cap(f), &img, &len);
	if (rc)
		return rc;
	return sym_elffile_open_mem(out, img, len) ? -EBADMSG : 0;
}
