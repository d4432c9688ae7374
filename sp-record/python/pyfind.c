/*
 * pyfind.c: finds a process's CPython module, its symbols and version
 * (see pyfind.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp-record/files/filememo.h"
#include "sp-record/sys/maps.h"
#include "sp-record/files/modfile.h"
#include "sp-record/python/pyfind.h"
#include "common/banned.h"

/* The module believed to hold the interpreter, from the maps. */
struct pymod {
	char path[PATH_MAX];
	uint64_t inode, start, end, offset; /* its lowest mapping */
	bool found;
};

/* What the module's symbols say, as ELF addresses. */
struct pysyms {
	uint64_t runtime, code_type, frame_type, py_version;
	uint64_t eval, eval_size;
	bool has_version;
};

#define MAX_LOADS 16
#define MEMO_FILES 64

/* What a module file says, kept by file identity (filememo.h). */
struct pyfile {
	struct pysyms s;
	struct {
		uint64_t offset, filesz, vaddr;
	} load[MAX_LOADS]; /* its PT_LOAD segments */
	size_t nload;
};

struct rec_pyfind_files {
	struct rec_filememo *memo; /* struct pyfile by file identity */
	uint64_t scans;
};

struct rec_pyfind_files *
rec_pyfind_files_new(void)
{
	struct rec_pyfind_files *f = calloc(1, sizeof(*f));

	if (f &&
	    !(f->memo = rec_filememo_new(sizeof(struct pyfile), MEMO_FILES))) {
		free(f);
		f = NULL;
	}
	if (!f)
		errno = ENOMEM;
	return f;
}

void
rec_pyfind_files_free(struct rec_pyfind_files *f)
{
	if (!f)
		return;
	rec_filememo_free(f->memo);
	free(f);
}

uint64_t
rec_pyfind_files_scans(const struct rec_pyfind_files *f)
{
	return f->scans;
}

static const char *
base_name(const char *path, size_t len, size_t *blen)
{
	const char *b = memrchr(path, '/', len);

	b = b ? b + 1 : path;
	*blen = len - (size_t)(b - path);
	return b;
}

int
rec_pyfind_name_minor(const char *path, size_t len)
{
	size_t blen, i, skip;
	const char *b = base_name(path, len, &blen);
	int minor = 0;

	if (blen > 3 && memcmp(b, "lib", 3) == 0) {
		b += 3;
		blen -= 3;
	}
	skip = strlen("python3.");
	if (blen <= skip || memcmp(b, "python3.", skip) != 0)
		return -1;
	for (i = skip; i < blen && b[i] >= '0' && b[i] <= '9'; i++) {
		minor = minor * 10 + (b[i] - '0');
		if (minor > 999)
			return -1;
	}
	return i == skip ? -1 : minor;
}

/* Keeps mapping `m` as the module's when it is the first or lowest. */
static void
note_mapping(struct pymod *mod, const struct rec_maps_entry *m)
{
	if (mod->found && (strlen(mod->path) != m->path_len ||
			   memcmp(mod->path, m->path, m->path_len) != 0))
		return;
	if (mod->found && m->offset >= mod->offset)
		return;
	if (m->path_len >= sizeof(mod->path))
		return;
	memcpy(mod->path, m->path, m->path_len);
	mod->path[m->path_len] = '\0';
	mod->inode = m->inode;
	mod->start = m->start;
	mod->end = m->end;
	mod->offset = m->offset;
	mod->found = true;
}

/*
 * A mapped libpython3.X.so when there is one, else the executable's
 * file.  Returns 0, or -ESRCH/-EACCES/-ENOENT.
 */
static int
find_module(int32_t pid, struct pymod *lib, struct pymod *exe)
{
	char link[64], exe_path[PATH_MAX];
	struct sp_buf text = SP_BUF_INIT;
	struct rec_maps_entry m;
	size_t pos = 0, blen;
	ssize_t n;
	int rc;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe_path, sizeof(exe_path) - 1);
	exe_path[n > 0 ? n : 0] = '\0';
	rc = rec_maps_read(pid, &text);
	if (rc < 0)
		return rc == -ENOENT ? -ESRCH : rc;
	while (rec_maps_next((const char *)text.data, text.len, &pos, &m,
			     NULL) == 1) {
		const char *b = base_name(m.path, m.path_len, &blen);

		if (blen > 12 && memcmp(b, "libpython3.", 11) == 0)
			note_mapping(lib, &m);
		else if (n > 0 && m.path_len == (size_t)n &&
			 memcmp(m.path, exe_path, m.path_len) == 0)
			note_mapping(exe, &m);
	}
	sp_buf_release(&text);
	return 0;
}

/* Opens the module as the target sees it. */
static int
open_module(int32_t pid, const struct pymod *mod, struct stat *st)
{
	char alt[PATH_MAX + 64];
	int fd;

	fd = rec_modfile_open_path(mod->path, mod->inode, st);
	if (fd >= 0)
		return fd;
	snprintf(alt, sizeof(alt), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)pid, mod->start, mod->end);
	fd = rec_modfile_open_path(alt, mod->inode, st);
	if (fd >= 0)
		return fd;
	snprintf(alt, sizeof(alt), "/proc/%d/root%s", (int)pid, mod->path);
	return rec_modfile_open_path(alt, mod->inode, st);
}

/* The value of the 8-byte object at ELF address `addr` in section `i`. */
static bool
read_const(Elf *e, size_t i, uint64_t addr, uint64_t *v)
{
	Elf_Scn *scn = elf_getscn(e, i);
	Elf_Data *d;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
		return false;
	if (addr < sh.sh_addr || addr - sh.sh_addr + 8 > sh.sh_size)
		return false;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || addr - sh.sh_addr + 8 > d->d_size)
		return false;
	memcpy(v, (const uint8_t *)d->d_buf + (addr - sh.sh_addr), 8);
	return true;
}

static void
scan_symbols(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct pysyms *s)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	const char *name;
	GElf_Sym sym;
	size_t i, n;

	if (!d || sh->sh_entsize == 0)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n && i <= INT_MAX; i++) {
		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || (name[0] != '_' && name[0] != 'P'))
			continue;
		if (strcmp(name, "_PyRuntime") == 0)
			s->runtime = sym.st_value;
		else if (strcmp(name, "PyCode_Type") == 0)
			s->code_type = sym.st_value;
		else if (strcmp(name, "PyFrame_Type") == 0)
			s->frame_type = sym.st_value;
		else if (strcmp(name, "_PyEval_EvalFrameDefault") == 0 &&
			 GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
			s->eval = sym.st_value;
			s->eval_size = sym.st_size;
		} else if (strcmp(name, "Py_Version") == 0 && !s->has_version)
			s->has_version = read_const(
			    e, sym.st_shndx, sym.st_value, &s->py_version);
	}
}

/* The symbols, from .dynsym first, then .symtab for what is missing. */
static void
find_symbols(Elf *e, struct pysyms *s)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		for (scn = NULL; (scn = elf_nextscn(e, scn)) != NULL;) {
			if (!gelf_getshdr(scn, &sh))
				continue;
			if (sh.sh_type == (pass ? SHT_SYMTAB : SHT_DYNSYM))
				scan_symbols(e, scn, &sh, s);
		}
		if (s->runtime && s->code_type)
			return;
	}
}

/* The file's PT_LOAD segments; -EBADMSG when they cannot be read. */
static int
file_loads(Elf *e, struct pyfile *pf)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(e, &n) != 0)
		return -EBADMSG;
	for (i = 0; i < n && pf->nload < MAX_LOADS; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		pf->load[pf->nload].offset = ph.p_offset;
		pf->load[pf->nload].filesz = ph.p_filesz;
		pf->load[pf->nload].vaddr = ph.p_vaddr;
		pf->nload++;
	}
	return 0;
}

/* The load bias: the mapped address less the ELF address. */
static int
load_bias(const struct pyfile *pf, const struct pymod *mod, uint64_t *bias)
{
	size_t i;

	for (i = 0; i < pf->nload; i++) {
		/* the mapping starts at the page holding p_offset */
		if (mod->offset < (pf->load[i].offset & ~(uint64_t)4095) ||
		    mod->offset >= pf->load[i].offset + pf->load[i].filesz)
			continue;
		*bias = mod->start -
			(pf->load[i].vaddr - pf->load[i].offset + mod->offset);
		return 0;
	}
	return -EBADMSG;
}

/* Reads the file's symbols and segments; 0 or -EBADMSG. */
static int
read_file(int fd, struct pyfile *pf)
{
	Elf *e;
	int rc = -EBADMSG;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) == ELF_K_ELF) {
		find_symbols(e, &pf->s);
		rc = file_loads(e, pf);
	}
	if (e)
		elf_end(e);
	return rc;
}

/* The file's symbols and segments, from the memo when it has them. */
static int
module_file(struct rec_pyfind_files *files, int fd, const struct stat *st,
	    struct pyfile *pf)
{
	struct rec_filememo_id id;
	int rc;

	rec_filememo_id_of(st, &id);
	if (files && rec_filememo_get(files->memo, &id, pf))
		return 0;
	memset(pf, 0, sizeof(*pf));
	rc = read_file(fd, pf);
	if (files)
		files->scans++;
	if (rc == 0 && files) /* a failed put only costs a read later */
		rec_filememo_put(files->memo, &id, pf);
	return rc;
}

static int
module_symbols(struct rec_pyfind_files *files, int32_t pid,
	       const struct pymod *mod, struct pysyms *s, uint64_t *bias,
	       struct sp_buf *why)
{
	struct pyfile pf;
	struct stat st;
	int fd, rc;

	fd = open_module(pid, mod, &st);
	if (fd < 0) {
		sp_buf_addf(why, "'%s': %s", mod->path, strerror(errno));
		return -errno;
	}
	rc = module_file(files, fd, &st, &pf);
	close(fd);
	if (rc < 0) {
		sp_buf_addf(why, "'%s': not an ELF file", mod->path);
		return rc;
	}
	*s = pf.s;
	rc = load_bias(&pf, mod, bias);
	if (rc < 0)
		sp_buf_addf(why, "'%s': no loadable segment at 0x%" PRIx64,
			    mod->path, mod->offset);
	return rc;
}

/* The version from Py_Version, else from the module's name. */
static int
module_minor(const struct pymod *mod, const struct pysyms *s,
	     struct sp_buf *why)
{
	int minor;

	if (s->has_version) {
		if (s->py_version >> 24 != 3) {
			sp_buf_addf(why, "python%u: not supported",
				    (unsigned)(s->py_version >> 24 & 0xff));
			return -ENOTSUP;
		}
		minor = (int)(s->py_version >> 16 & 0xff);
	} else {
		minor = rec_pyfind_name_minor(mod->path, strlen(mod->path));
	}
	if (minor < 0) {
		sp_buf_addf(why, "'%s': python version unknown", mod->path);
		return -ENOTSUP;
	}
	if (minor < 8) {
		sp_buf_addf(why, "python3.%d: not supported", minor);
		return -ENOTSUP;
	}
	if (minor > 13) {
		sp_buf_addf(why, "python3.%d: layout unknown", minor);
		return -ENOTSUP;
	}
	return minor;
}

/* Why a module without _PyRuntime has no stacks to read. */
static int
no_runtime(const struct pymod *mod, bool is_exe, struct sp_buf *why)
{
	int minor = rec_pyfind_name_minor(mod->path, strlen(mod->path));

	if (minor >= 0 && minor < 8) {
		/* 3.6 and older have no _PyRuntime at all */
		sp_buf_addf(why, "python3.%d: not supported", minor);
		return -ENOTSUP;
	}
	if (is_exe && minor < 0)
		sp_buf_adds(why, "not CPython");
	else
		sp_buf_addf(why, "'%s': no _PyRuntime symbol", mod->path);
	return -ENOENT;
}

int
rec_pyfind(struct rec_pyfind_files *files, int32_t pid,
	   struct rec_pyfind_target *t, struct sp_buf *why)
{
	struct pymod lib = { .found = false }, exe = { .found = false };
	struct pysyms s = { 0 };
	const struct pymod *mod;
	uint64_t bias = 0;
	int rc, minor;

	rc = find_module(pid, &lib, &exe);
	if (rc < 0) {
		sp_buf_addf(why, "pid %d: %s", (int)pid, strerror(-rc));
		return rc;
	}
	mod = lib.found ? &lib : &exe;
	if (!mod->found) {
		sp_buf_adds(why, "not CPython");
		return -ENOENT;
	}
	rc = module_symbols(files, pid, mod, &s, &bias, why);
	if (rc < 0)
		return rc;
	if (!s.runtime || !s.code_type)
		return no_runtime(mod, mod == &exe, why);
	minor = module_minor(mod, &s, why);
	if (minor < 0)
		return minor;
	t->minor = (unsigned)minor;
	t->runtime = s.runtime + bias;
	t->code_type = s.code_type + bias;
	t->frame_type = s.frame_type ? s.frame_type + bias : 0;
	t->eval_start = s.eval && s.eval_size ? s.eval + bias : 0;
	t->eval_end = t->eval_start ? t->eval_start + s.eval_size : 0;
	return 0;
}
