/*
 * jitdump.c: reading jit-PID.dump files (see jitdump.h).  The layout,
 * in the writer's byte order (the magic tells which):
 *
 *   header:  u32 magic 'JiTD' (0x4a695444), u32 version, u32 header
 *            size, u32 machine, u32 pad, u32 pid, u64 time, u64 flags
 *   record:  u32 id, u32 total size (header included), u64 time
 *   code load (id 0), after the record header: u32 pid, u32 tid,
 *            u64 vma, u64 code address, u64 code size, u64 index,
 *            the NUL-terminated name, then the code bytes
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp-symbolize/jit/jitdump.h"
#include "common/banned.h"

#define JD_MAGIC 0x4a695444u
#define JD_HEADER_SIZE 40
#define JD_RECORD_SIZE 16
#define JD_CODE_LOAD 0
/* The code load's fields before its name: pid, tid, vma, addr, size, index. */
#define JD_LOAD_FIXED 40
/* Reading stops here: a dump this large is mostly code bytes. */
#define JD_MAX_READ (512u << 20)

struct jd {
	const uint8_t *p;
	size_t len;
	bool swap;
};

static uint32_t
get32(const struct jd *d, size_t off)
{
	uint32_t v;

	memcpy(&v, d->p + off, sizeof(v));
	return d->swap ? __builtin_bswap32(v) : v;
}

static uint64_t
get64(const struct jd *d, size_t off)
{
	uint64_t v;

	memcpy(&v, d->p + off, sizeof(v));
	return d->swap ? __builtin_bswap64(v) : v;
}

/* Adds the code load whose body is d->p[off..off+size); 0, 1 or -errno. */
static int
code_load(const struct jd *d, size_t off, size_t size, struct sym_perfmap *m)
{
	const uint8_t *name, *nul;
	uint64_t addr, csize;

	if (size < JD_LOAD_FIXED + 1)
		return -EBADMSG;
	addr = get64(d, off + 16);
	csize = get64(d, off + 24);
	name = d->p + off + JD_LOAD_FIXED;
	nul = memchr(name, '\0', size - JD_LOAD_FIXED);
	if (!nul)
		return -EBADMSG;
	if (csize == 0 || nul == name)
		return 0;
	if (sym_perfmap_add(m, addr, csize, (const char *)name,
			    (size_t)(nul - name)))
		return -ENOMEM;
	return 1;
}

long
sym_jitdump_parse(const uint8_t *buf, size_t len, struct sym_perfmap *m)
{
	struct jd d = { buf, len, false };
	size_t off, size;
	long added = 0;
	uint32_t magic;
	int rc;

	if (len < JD_HEADER_SIZE)
		return -EBADMSG;
	memcpy(&magic, buf, sizeof(magic));
	if (magic != JD_MAGIC && magic != __builtin_bswap32(JD_MAGIC))
		return -EBADMSG;
	d.swap = magic != JD_MAGIC;
	off = get32(&d, 8);
	if (off < JD_HEADER_SIZE || off > len)
		return -EBADMSG;
	/* Each record must hold its header and fit in what was read. */
	while (len - off >= JD_RECORD_SIZE) {
		size = get32(&d, off + 4);
		if (size < JD_RECORD_SIZE || size > len - off)
			break;
		if (get32(&d, off) == JD_CODE_LOAD) {
			rc = code_load(&d, off + JD_RECORD_SIZE,
				       size - JD_RECORD_SIZE, m);
			if (rc == -ENOMEM)
				return rc;
			if (rc < 0)
				break;
			added += rc;
		}
		off += size;
	}
	sym_perfmap_sort(m);
	return added;
}

/* Reads up to JD_MAX_READ bytes of `fd`; NULL with errno on failure. */
static uint8_t *
read_all(int fd, size_t *len)
{
	size_t cap = 0, n = 0;
	uint8_t *buf = NULL, *nb;
	ssize_t got = 1;

	while (got > 0 && n < JD_MAX_READ) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1u << 16;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		got = read(fd, buf + n, cap - n);
		if (got > 0)
			n += (size_t)got;
		else if (got < 0 && errno == EINTR)
			got = 1;
	}
	if (got < 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

struct sym_perfmap *
sym_jitdump_load(const char *path, uid_t owner, struct sym_perfmap_id *id)
{
	struct sym_perfmap *m;
	struct stat st;
	int fd = sym_perfmap_open(path, owner, &st);
	uint8_t *buf;
	size_t len = 0;
	long rc;

	if (id)
		sym_perfmap_id_of(&st, id);
	if (fd < 0)
		return NULL;
	buf = read_all(fd, &len);
	close(fd);
	m = buf ? sym_perfmap_new() : NULL;
	rc = m ? sym_jitdump_parse(buf, len, m) : -ENOMEM;
	free(buf);
	if (rc < 0) {
		sym_perfmap_free(m);
		errno = (int)-rc;
		return NULL;
	}
	return m;
}
