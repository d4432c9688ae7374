/* inflate.c: debug sections inflated by libdeflate (see inflate.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "common/grow.h"
#include "sp-symbolize/dwarf/inflate.h"
#include "common/banned.h"

/* Each buffer and the section data that points at it. */
struct sym_inflated {
	void **bufs;
	Elf_Data **data;
	size_t n, alloc, dalloc;
	size_t bytes; /* of bufs */
};

/* Inflates one zlib section into a new buffer; NULL when it does not. */
static void *
inflate_section(struct libdeflate_decompressor *dec, Elf *elf, Elf_Scn *scn,
		const GElf_Chdr *ch)
{
	size_t hdr = gelf_getclass(elf) == ELFCLASS64 ? sizeof(Elf64_Chdr)
						      : sizeof(Elf32_Chdr);
	Elf_Data *raw = elf_rawdata(scn, NULL);
	size_t got = 0;
	void *out;

	if (!raw || !raw->d_buf || raw->d_size <= hdr)
		return NULL;
	if (!(out = malloc(ch->ch_size ? ch->ch_size : 1)))
		return NULL;
	if (libdeflate_zlib_decompress(dec, (const char *)raw->d_buf + hdr,
				       raw->d_size - hdr, out, ch->ch_size,
				       &got) != LIBDEFLATE_SUCCESS ||
	    got != ch->ch_size) {
		free(out);
		return NULL;
	}
	return out;
}

/*
 * Puts `buf` in the place of the section's data and says it is no
 * longer compressed; returns false (nothing changed) when libelf has no
 * data for it.
 */
static Elf_Data *
install(Elf_Scn *scn, GElf_Shdr *sh, const GElf_Chdr *ch, void *buf)
{
	Elf_Data *d = elf_getdata(scn, NULL);

	if (!d)
		return NULL;
	d->d_buf = buf;
	d->d_size = ch->ch_size;
	d->d_type = ELF_T_BYTE;
	d->d_align = ch->ch_addralign ? ch->ch_addralign : 1;
	sh->sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh->sh_size = ch->ch_size;
	sh->sh_addralign = d->d_align;
	gelf_update_shdr(scn, sh);
	return d;
}

/* Inflates one section if it is a compressed debug one; -ENOMEM only. */
static int
one_section(struct sym_inflated *in, struct libdeflate_decompressor *dec,
	    Elf *elf, Elf_Scn *scn, size_t shstrndx)
{
	const char *name;
	GElf_Chdr ch;
	GElf_Shdr sh;
	Elf_Data *d;
	void *buf;

	if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
	    !(sh.sh_flags & SHF_COMPRESSED) ||
	    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
	    strncmp(name, ".debug_", 7) != 0 || !gelf_getchdr(scn, &ch) ||
	    ch.ch_type != ELFCOMPRESS_ZLIB)
		return 0;
	if (SP_GROW(in->bufs, in->alloc, in->n + 1) ||
	    SP_GROW(in->data, in->dalloc, in->n + 1))
		return -ENOMEM;
	if (!(buf = inflate_section(dec, elf, scn, &ch)))
		return 0;
	if (!(d = install(scn, &sh, &ch, buf))) {
		free(buf);
		return 0;
	}
	in->bufs[in->n] = buf;
	in->data[in->n++] = d;
	in->bytes += ch.ch_size;
	return 0;
}

struct sym_inflated *
sym_inflate_debug(Elf *elf)
{
	struct libdeflate_decompressor *dec;
	struct sym_inflated *in;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int rc = 0;

	if (elf_getshdrstrndx(elf, &shstrndx) || !(in = calloc(1, sizeof(*in))))
		return NULL;
	if (!(dec = libdeflate_alloc_decompressor())) {
		free(in);
		return NULL;
	}
	while (rc == 0 && (scn = elf_nextscn(elf, scn)) != NULL)
		rc = one_section(in, dec, elf, scn, shstrndx);
	libdeflate_free_decompressor(dec);
	if (in->n == 0) {
		sym_inflated_free(in);
		return NULL;
	}
	return in;
}

size_t
sym_inflated_bytes(const struct sym_inflated *in)
{
	return in ? in->bytes : 0;
}

void
sym_inflated_free(struct sym_inflated *in)
{
	size_t i;

	if (!in)
		return;
	/* The handle may outlive the bytes: leave it no dangling data. */
	for (i = 0; i < in->n; i++) {
		in->data[i]->d_buf = NULL;
		in->data[i]->d_size = 0;
		free(in->bufs[i]);
	}
	free(in->bufs);
	free(in->data);
	free(in);
}
