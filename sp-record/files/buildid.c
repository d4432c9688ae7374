/*
 * buildid.c: GNU build ids of module files (see buildid.h).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/htab.h"
#include "common/spool.h"
#include "sp-record/files/buildid.h"
#include "sp-record/files/modfile.h"
#include "common/banned.h"

#define MAX_NOTES 65536 /* bytes of PT_NOTE read per segment */
#define MAX_PHDRS 256

struct rec_buildid_set {
	struct sp_htab *seen; /* path + inode -> offset + 1 in ids, 0 */
	struct sp_buf ids;    /* length byte, then the id */
	struct sp_buf key;
	struct rec_filepin *pins; /* borrowed, or NULL */
};

struct rec_buildid_set *
rec_buildid_set_new(struct rec_filepin *pins)
{
	struct rec_buildid_set *c = calloc(1, sizeof(*c));

	if (!c || !(c->seen = sp_htab_new())) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->pins = pins;
	return c;
}

void
rec_buildid_set_free(struct rec_buildid_set *c)
{
	if (!c)
		return;
	sp_htab_free(c->seen);
	sp_buf_release(&c->ids);
	sp_buf_release(&c->key);
	free(c);
}

static bool
read_at(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(fd, buf, len, (off_t)off);

	return n == (ssize_t)len;
}

/* Walks the notes in buf for NT_GNU_BUILD_ID; returns its length or 0. */
static size_t
find_note(const uint8_t *p, size_t n, uint8_t *out)
{
	size_t off = 0, namesz, descsz, step;
	Elf64_Nhdr h;

	while (n - off >= sizeof(h)) {
		memcpy(&h, p + off, sizeof(h));
		off += sizeof(h);
		namesz = (h.n_namesz + 3) & ~(size_t)3;
		descsz = (h.n_descsz + 3) & ~(size_t)3;
		if (namesz > n - off || descsz > n - off - namesz)
			return 0;
		step = namesz + descsz;
		if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 &&
		    memcmp(p + off, "GNU", 4) == 0 && h.n_descsz > 0 &&
		    h.n_descsz <= REC_BUILDID_MAX) {
			memcpy(out, p + off + namesz, h.n_descsz);
			return h.n_descsz;
		}
		off += step;
	}
	return 0;
}

size_t
rec_buildid_from_fd(int fd, uint8_t *out)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	struct stat st;
	uint8_t *notes;
	size_t len = 0, i;

	if (fstat(fd, &st) < 0 || !read_at(fd, &eh, sizeof(eh), 0))
		return 0;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > MAX_PHDRS)
		return 0;
	for (i = 0; i < eh.e_phnum && !len; i++) {
		if (!read_at(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)))
			return 0;
		if (ph.p_type != PT_NOTE || ph.p_filesz == 0 ||
		    ph.p_filesz > MAX_NOTES ||
		    ph.p_offset > (uint64_t)st.st_size ||
		    ph.p_filesz > (uint64_t)st.st_size - ph.p_offset)
			continue;
		notes = malloc(ph.p_filesz);
		if (!notes)
			return 0;
		if (read_at(fd, notes, ph.p_filesz, ph.p_offset))
			len = find_note(notes, ph.p_filesz, out);
		free(notes);
	}
	return len;
}

/*
 * The build id of [vdso]: the same image for every process of a running
 * kernel, so the recorder's own copy (AT_SYSINFO_EHDR) is read, within
 * `size` bytes, the target's mapping size.
 */
static size_t
vdso_buildid(size_t size, uint8_t *out)
{
	const uint8_t *img = (const uint8_t *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Phdr *ph;
	size_t i, len = 0;

	if (!img || size < sizeof(*eh) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(*ph) || eh->e_phoff > size ||
	    eh->e_phnum > (size - eh->e_phoff) / sizeof(*ph))
		return 0;
	ph = (const Elf64_Phdr *)(img + eh->e_phoff);
	for (i = 0; i < eh->e_phnum && !len; i++)
		if (ph[i].p_type == PT_NOTE && ph[i].p_offset <= size &&
		    ph[i].p_filesz <= size - ph[i].p_offset)
			len = find_note(img + ph[i].p_offset, ph[i].p_filesz,
					out);
	return len;
}

size_t
rec_buildid_set_get(struct rec_buildid_set *c, const struct sp_module *m,
		    uint8_t *out)
{
	struct stat st;
	uint64_t *slot;
	size_t len = 0;
	bool fresh;
	int fd;

	if (m->path_len == 6 && !memcmp(m->path, "[vdso]", 6))
		return vdso_buildid(m->end - m->start, out);
	if (m->path_len == 0 || m->path[0] != '/')
		return 0;
	sp_buf_reset(&c->key);
	if (sp_buf_add(&c->key, &m->inode, sizeof(m->inode)) ||
	    sp_buf_add(&c->key, m->path, m->path_len))
		return 0;
	slot = sp_htab_slot(c->seen, c->key.data, c->key.len, 0, &fresh);
	if (!slot)
		return 0;
	if (!fresh) {
		if (*slot == 0)
			return 0;
		len = c->ids.data[*slot - 1];
		memcpy(out, c->ids.data + *slot, len);
		return len;
	}
	fd = rec_modfile_open(m, m->pid, c->pins, &st);
	if (fd >= 0) {
		len = rec_buildid_from_fd(fd, out);
		close(fd);
	}
	if (len && sp_buf_addc(&c->ids, (uint8_t)len) == 0 &&
	    sp_buf_add(&c->ids, out, len) == 0)
		*slot = c->ids.len - len;
	return len;
}
