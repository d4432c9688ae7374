/*
 * mapped.c: module files mapped for the unwinder (mapped.h).
 *
 * Files are keyed by path and inode, so a file replaced on disk under the
 * same path is a new entry.  A file stays mapped while a process's
 * module holds it (a reference); released, it waits on a short idle list
 * for the next process that runs it, oldest unmapped first, unless its
 * path no longer names it (deleted or replaced: nothing will run it
 * again, and its mapping would pin the disk space).  So what stays mapped
 * follows the live processes, not every binary that ever ran.  Headers
 * are copied out with memcpy before use because nothing promises their
 * alignment inside a file.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/htab.h"
#include "common/spool.h"
#include "sp-record/unwind/ehframe.h"
#include "sp-record/unwind/mapped.h"
#include "sp-record/files/mapguard.h"
#include "sp-record/files/modfile.h"
#include "common/banned.h"

#define VDSO_MAX_BYTES (1u << 20)

/* The first member is what rec_mapped_get returns: put() casts back. */
struct entry {
	struct rec_mapped f;
	bool ok;
	bool mapped; /* img came from mmap, else from malloc */
	volatile sig_atomic_t changed; /* raised by mapguard.c */
	dev_t dev;                     /* the mapped file's */
	ino_t ino;
	uint32_t refs;             /* gets not yet put; ok entries only */
	struct entry *prev, *next; /* on the idle list when refs == 0 */
	size_t klen;
	char key[]; /* path NUL inode: its key in `files` */
};

struct rec_mapped_cache {
	struct sp_htab *files;     /* path NUL inode -> struct entry * */
	struct entry *idle, *last; /* unreferenced, least recently used first */
	size_t nidle, nmapped;
	uint64_t seen_faults; /* rec_mapguard_faults() at the last sweep */
	uint64_t dropped;
	struct rec_filepin *pins; /* borrowed, or NULL */
};

struct rec_mapped_cache *
rec_mapped_cache_new(struct rec_filepin *pins)
{
	struct rec_mapped_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (!(c->files = sp_htab_new())) {
		free(c);
		return NULL;
	}
	c->pins = pins;
	return c;
}

/* Gives up the entry's image and table; it reads as a failed file. */
static void
unmap(struct rec_mapped_cache *c, struct entry *e)
{
	free(e->f.built_table);
	if (e->f.img && e->mapped) {
		rec_mapguard_remove(e->f.img);
		munmap((void *)e->f.img, e->f.size);
	} else {
		free((void *)e->f.img);
	}
	if (e->f.img)
		c->nmapped--;
	memset(&e->f, 0, sizeof(e->f));
	e->ok = false;
}

static void
entry_free(struct rec_mapped_cache *c, struct entry *e)
{
	if (!e)
		return;
	unmap(c, e);
	free(e);
}

static void
idle_unlink(struct rec_mapped_cache *c, struct entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		c->idle = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		c->last = e->prev;
	e->prev = e->next = NULL;
	c->nidle--;
}

static void
idle_push(struct rec_mapped_cache *c, struct entry *e)
{
	e->prev = c->last;
	e->next = NULL;
	if (c->last)
		c->last->next = e;
	else
		c->idle = e;
	c->last = e;
	c->nidle++;
}

/* Forgets an idle entry: a later get opens its file again. */
static void
evict(struct rec_mapped_cache *c, struct entry *e)
{
	idle_unlink(c, e);
	sp_htab_del(c->files, e->key, e->klen);
	entry_free(c, e);
}

static void
trim(struct rec_mapped_cache *c)
{
	while (c->nidle > REC_MAPPED_IDLE_MAX)
		evict(c, c->idle);
}

void
rec_mapped_cache_free(struct rec_mapped_cache *c)
{
	size_t pos = 0, klen;
	const void *key;
	uint64_t val;

	if (!c)
		return;
	while (sp_htab_next(c->files, &pos, &key, &klen, &val))
		entry_free(c, (struct entry *)(uintptr_t)val);
	sp_htab_free(c->files);
	free(c);
}

/* Size in bytes of a DW_EH_PE value with encoding `enc`; 0 if unsupported. */
static size_t
pe_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00:
	case 0x04:
	case 0x0c:
		return 8;
	case 0x03:
	case 0x0b:
		return 4;
	case 0x02:
	case 0x0a:
		return 2;
	default:
		return 0;
	}
}

static uint64_t
pe_read_unsigned(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, p, n); /* little-endian host, checked in parse */
	return v;
}

/*
 * Finds the binary search table of .eh_frame_hdr.  libunwind's remote
 * table lookup wants DW_EH_PE_datarel|sdata4 entries (0x3b), which is what
 * every linker writes; anything else counts as no unwind data.
 */
static void
parse_eh_frame_hdr(struct rec_mapped *f, const Elf64_Phdr *ph)
{
	const uint8_t *h;
	size_t ptr_size, count_size, need;

	if (ph->p_offset > f->size || ph->p_filesz > f->size - ph->p_offset ||
	    ph->p_filesz < 4)
		return;
	h = f->img + ph->p_offset;
	if (h[0] != 1 || h[3] != 0x3b)
		return;
	ptr_size = pe_size(h[1]);
	count_size = pe_size(h[2]);
	if (!ptr_size || !count_size)
		return;
	need = 4 + ptr_size + count_size;
	if (need > ph->p_filesz)
		return;
	f->fde_count = pe_read_unsigned(h + 4 + ptr_size, count_size);
	if (f->fde_count > (ph->p_filesz - need) / 8)
		return;
	f->table = h + need;
	f->table_base = ph->p_vaddr;
	f->has_hdr = true;
}

/* The section header named `want`, from a file already checked as ELF64. */
static bool
find_section(const struct rec_mapped *f, const Elf64_Ehdr *eh, const char *want,
	     Elf64_Shdr *out)
{
	Elf64_Shdr strs;
	size_t i, wlen = strlen(want) + 1;

	if (eh->e_shentsize < sizeof(*out) || eh->e_shoff > f->size ||
	    (uint64_t)eh->e_shnum * eh->e_shentsize > f->size - eh->e_shoff ||
	    eh->e_shstrndx >= eh->e_shnum)
		return false;
	memcpy(&strs,
	       f->img + eh->e_shoff + (size_t)eh->e_shstrndx * eh->e_shentsize,
	       sizeof(strs));
	if (strs.sh_offset > f->size || strs.sh_size > f->size - strs.sh_offset)
		return false;
	for (i = 0; i < eh->e_shnum; i++) {
		memcpy(out, f->img + eh->e_shoff + i * eh->e_shentsize,
		       sizeof(*out));
		if (out->sh_name < strs.sh_size &&
		    wlen <= strs.sh_size - out->sh_name &&
		    memcmp(f->img + strs.sh_offset + out->sh_name, want,
			   wlen) == 0)
			return true;
	}
	return false;
}

/* Without .eh_frame_hdr, index .eh_frame ourselves (static binaries). */
static void
index_eh_frame(struct rec_mapped *f, const Elf64_Ehdr *eh)
{
	Elf64_Shdr sh;
	int32_t *table;
	size_t count;

	if (!find_section(f, eh, ".eh_frame", &sh) ||
	    sh.sh_type != SHT_PROGBITS || sh.sh_offset > f->size ||
	    sh.sh_size > f->size - sh.sh_offset)
		return;
	if (rec_ehframe_index(f->img + sh.sh_offset, sh.sh_size, sh.sh_addr,
			      &table, &count) < 0)
		return;
	f->built_table = table;
	f->table = (const uint8_t *)table;
	f->fde_count = count;
	f->table_base = sh.sh_addr;
}

static int
parse_elf(struct rec_mapped *f)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	size_t i;

	if (f->size < sizeof(eh))
		return -EBADMSG;
	memcpy(&eh, f->img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_phentsize < sizeof(ph) ||
	    eh.e_phoff > f->size ||
	    (uint64_t)eh.e_phnum * eh.e_phentsize > f->size - eh.e_phoff)
		return -EBADMSG;
	f->min_vaddr = UINT64_MAX;
	for (i = 0; i < eh.e_phnum; i++) {
		memcpy(&ph, f->img + eh.e_phoff + i * eh.e_phentsize,
		       sizeof(ph));
		if (ph.p_type == PT_LOAD && f->nload < REC_MAPPED_MAX_LOADS) {
			f->load[f->nload++] =
			    (struct rec_mapped_seg){ ph.p_vaddr, ph.p_memsz,
						     ph.p_offset, ph.p_filesz,
						     (ph.p_flags & PF_X) != 0 };
			if (ph.p_vaddr < f->min_vaddr)
				f->min_vaddr = ph.p_vaddr;
			if (ph.p_vaddr + ph.p_memsz > f->max_vaddr)
				f->max_vaddr = ph.p_vaddr + ph.p_memsz;
		} else if (ph.p_type == PT_GNU_EH_FRAME) {
			parse_eh_frame_hdr(f, &ph);
		}
	}
	if (!f->has_hdr)
		index_eh_frame(f, &eh);
	return f->nload ? 0 : -EBADMSG;
}

static int
map_file(struct rec_mapped_cache *c, struct entry *e, const struct sp_module *m,
	 int32_t pid)
{
	struct stat st;
	void *p;
	int fd = rec_modfile_open(m, pid, c->pins, &st);

	if (fd < 0)
		return -ENOENT;
	if (st.st_size <= 0) {
		close(fd);
		return -EBADMSG;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	if (rec_mapguard_add(p, (size_t)st.st_size, &e->changed) < 0) {
		munmap(p, (size_t)st.st_size);
		return -ENOMEM;
	}
	e->f.img = p;
	e->f.size = (size_t)st.st_size;
	e->mapped = true;
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	rec_filememo_id_of(&st, &e->f.id);
	c->nmapped++;
	return 0;
}

/* [vdso] has no file: copy its image out of the process. */
static int
copy_vdso(struct rec_mapped_cache *c, struct entry *e,
	  const struct sp_module *m, int32_t pid)
{
	char path[64];
	uint8_t *buf;
	size_t len = m->end - m->start;
	ssize_t got;
	int fd;

	if (pid <= 0 || m->end <= m->start || len > VDSO_MAX_BYTES)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%" PRId32 "/mem", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (!(buf = malloc(len))) {
		close(fd);
		return -ENOMEM;
	}
	got = pread(fd, buf, len, (off_t)m->start);
	close(fd);
	if (got != (ssize_t)len) {
		free(buf);
		return -EIO;
	}
	e->f.img = buf;
	e->f.size = len;
	c->nmapped++;
	return 0;
}

static bool
is_vdso(const struct sp_module *m)
{
	return strcmp(m->path, "[vdso]") == 0;
}

/* An entry found again: referenced, or moved to the idle list's end. */
static const struct rec_mapped *
reuse(struct rec_mapped_cache *c, struct entry *e)
{
	if (e->refs == 0) {
		idle_unlink(c, e);
		if (!e->ok) {
			idle_push(c, e);
			return NULL;
		}
	}
	if (!e->ok)
		return NULL;
	e->refs++;
	return &e->f;
}

const struct rec_mapped *
rec_mapped_get(struct rec_mapped_cache *c, const struct sp_module *m,
	       int32_t pid)
{
	size_t plen = strlen(m->path), klen;
	struct entry *e;
	uint64_t val, inode = is_vdso(m) ? 0 : m->inode;
	int r;

	klen = plen + 1 + sizeof(inode);
	if (klen > 4200 || !(e = calloc(1, sizeof(*e) + klen)))
		return NULL;
	memcpy(e->key, m->path, plen + 1);
	memcpy(e->key + plen + 1, &inode, sizeof(inode));
	e->klen = klen;
	if (sp_htab_get(c->files, e->key, klen, &val)) {
		free(e);
		return reuse(c, (struct entry *)(uintptr_t)val);
	}
	r = is_vdso(m) ? copy_vdso(c, e, m, pid) : map_file(c, e, m, pid);
	if (r == 0)
		e->ok = parse_elf(&e->f) == 0;
	if (!e->ok)
		unmap(c, e);
	if (sp_htab_put(c->files, e->key, klen, (uint64_t)(uintptr_t)e) < 0) {
		entry_free(c, e);
		return NULL;
	}
	if (!e->ok) {
		idle_push(c, e);
		trim(c);
		return NULL;
	}
	e->refs = 1;
	return &e->f;
}

/* Whether the entry's path no longer names its file: deleted, replaced. */
static bool
gone(const struct entry *e)
{
	struct stat st;

	return e->mapped && (stat(e->key, &st) < 0 || st.st_dev != e->dev ||
			     st.st_ino != e->ino);
}

void
rec_mapped_put(struct rec_mapped_cache *c, const struct rec_mapped *f)
{
	struct entry *e = (struct entry *)(uintptr_t)f;

	if (!f || e->refs == 0 || --e->refs > 0)
		return;
	idle_push(c, e);
	if (!e->ok || gone(e))
		evict(c, e);
	else
		trim(c);
}

size_t
rec_mapped_mapped(const struct rec_mapped_cache *c)
{
	return c->nmapped;
}

uint64_t
rec_mapped_bias(const struct rec_mapped *f, const struct sp_module *m)
{
	const struct rec_mapped_seg *s, *best = NULL;
	size_t i;

	for (i = 0; i < f->nload; i++) {
		s = &f->load[i];
		if (m->file_offset < (s->offset & ~(uint64_t)0xfff) ||
		    m->file_offset >= s->offset + s->filesz)
			continue;
		if (!best || (s->exec && !best->exec))
			best = s;
	}
	if (!best)
		return m->start - m->file_offset;
	return m->start - m->file_offset + best->offset - best->vaddr;
}

const uint8_t *
rec_mapped_span(const struct rec_mapped *f, uint64_t vaddr, uint64_t *lo,
		size_t *len)
{
	const struct rec_mapped_seg *s;
	size_t i;

	for (i = 0; i < f->nload; i++) {
		s = &f->load[i];
		if (vaddr < s->vaddr || vaddr - s->vaddr >= s->filesz)
			continue;
		if (s->offset > f->size ||
		    vaddr - s->vaddr >= f->size - s->offset)
			return NULL;
		*lo = s->vaddr;
		*len = (size_t)(s->filesz < f->size - s->offset
				    ? s->filesz
				    : f->size - s->offset);
		return f->img + s->offset;
	}
	return NULL;
}

int
rec_mapped_read(const struct rec_mapped *f, uint64_t vaddr, void *buf,
		size_t len)
{
	const uint8_t *img;
	uint64_t lo;
	size_t n;

	img = rec_mapped_span(f, vaddr, &lo, &n);
	if (!img || len > n - (vaddr - lo))
		return -EFAULT;
	memcpy(buf, img + (vaddr - lo), len);
	return 0;
}

/*
 * A file cut under its mapping reads as zeros where it was cut: its CFI
 * and code can no longer be trusted, so it offers none from now on (the
 * unwinder's pointers to it stay valid).
 */
static void
drop(struct entry *e)
{
	e->ok = false;
	e->f.table = NULL;
	e->f.fde_count = 0;
	e->f.nload = 0;
}

uint64_t
rec_mapped_changed(struct rec_mapped_cache *c)
{
	size_t pos = 0, klen;
	const void *key;
	uint64_t val, faults = rec_mapguard_faults();
	struct entry *e;

	if (faults == c->seen_faults)
		return c->dropped;
	c->seen_faults = faults;
	while (sp_htab_next(c->files, &pos, &key, &klen, &val)) {
		e = (struct entry *)(uintptr_t)val;
		if (e->changed && (e->ok || e->f.nload)) {
			drop(e);
			c->dropped++;
		}
	}
	return c->dropped;
}
