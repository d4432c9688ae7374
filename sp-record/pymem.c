/*
 * pymem.c: budgeted process_vm_readv inside the writable mappings (see
 * pymem.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "common/buf.h"
#include "common/grow.h"
#include "sp-record/maps.h"
#include "sp-record/pymem.h"
#include "common/banned.h"

struct rec_pymem_page {
	uint64_t addr; /* of the page's first byte */
	uint8_t data[REC_PYMEM_PAGE];
};

/* Rebuilds the sorted list of writable ranges from the maps. */
static int
read_ranges(struct rec_pymem *m)
{
	struct sp_buf text = SP_BUF_INIT;
	struct rec_map map;
	size_t pos = 0;
	int rc;

	m->maps_reads++;
	rc = rec_maps_read(m->pid, &text);
	if (rc < 0)
		return rc == -ENOENT ? -ESRCH : rc;
	m->nranges = 0;
	while (rec_maps_next((const char *)text.data, text.len, &pos, &map,
			     NULL) == 1) {
		if (map.perms[1] != 'w')
			continue;
		if (m->nranges > 0 &&
		    m->ranges[m->nranges - 1].end == map.start) {
			m->ranges[m->nranges - 1].end = map.end;
			continue;
		}
		if (SP_GROW(m->ranges, m->alloc, m->nranges + 1) < 0) {
			rc = -ENOMEM;
			break;
		}
		m->ranges[m->nranges].start = map.start;
		m->ranges[m->nranges++].end = map.end;
	}
	sp_buf_release(&text);
	return rc;
}

int
rec_pymem_init(struct rec_pymem *m, int32_t pid)
{
	memset(m, 0, sizeof(*m));
	m->pid = pid;
	return read_ranges(m);
}

void
rec_pymem_release(struct rec_pymem *m)
{
	free(m->ranges);
	free(m->pages);
	memset(m, 0, sizeof(*m));
}

void
rec_pymem_begin(struct rec_pymem *m, size_t budget)
{
	m->budget = budget;
	m->reread = false;
	rec_pymem_forget(m);
}

/* Whether [addr, addr+len) lies inside one writable range. */
static bool
inside(const struct rec_pymem *m, uint64_t addr, size_t len)
{
	size_t lo = 0, hi = m->nranges, mid;

	if (addr + len < addr)
		return false;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->ranges[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nranges && m->ranges[lo].start <= addr &&
	       addr + len <= m->ranges[lo].end;
}

/* Whether block `addr` is inside; the maps are reread once a sample. */
static bool
inside_now(struct rec_pymem *m, uint64_t addr, size_t len)
{
	if (inside(m, addr, len))
		return true;
	if (m->reread)
		return false;
	m->reread = true;
	return read_ranges(m) == 0 && inside(m, addr, len);
}

/* Reads [addr, addr+len) once checked; counts it against the budget. */
static int
read_direct(struct rec_pymem *m, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (len > m->budget)
		return -E2BIG;
	if (!inside_now(m, addr, len))
		return -EFAULT;
	m->budget -= len;
	n = process_vm_readv(m->pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -EFAULT;
	m->bytes_read += (uint64_t)n;
	return (size_t)n == len ? 0 : -EFAULT;
}

/* The kept page at `page`, read now when not kept; NULL with *err. */
static const uint8_t *
page_at(struct rec_pymem *m, uint64_t page, int *err)
{
	struct rec_pymem_page *p;
	size_t i;

	for (i = 0; i < m->npages; i++)
		if (m->pages[i].addr == page)
			return m->pages[i].data;
	if (!m->pages) {
		m->pages = calloc(REC_PYMEM_PAGES, sizeof(*m->pages));
		if (!m->pages) {
			*err = -ENOMEM;
			return NULL;
		}
	}
	p = &m->pages[m->next];
	p->addr = 0; /* not kept unless the read succeeds */
	*err = read_direct(m, page, p->data, REC_PYMEM_PAGE);
	if (*err < 0)
		return NULL;
	p->addr = page;
	m->next = (m->next + 1) % REC_PYMEM_PAGES;
	if (m->npages < REC_PYMEM_PAGES)
		m->npages++;
	return p->data;
}

int
rec_pymem_read(struct rec_pymem *m, uint64_t addr, void *buf, size_t len)
{
	uint64_t page = addr & ~(uint64_t)(REC_PYMEM_PAGE - 1), off;
	uint8_t *out = buf;
	const uint8_t *d;
	size_t n;
	int rc;

	if (len > REC_PYMEM_PAGE || addr + len < addr)
		return read_direct(m, addr, buf, len);
	while (len > 0) {
		d = page_at(m, page, &rc);
		if (!d)
			return rc;
		off = addr - page;
		n = REC_PYMEM_PAGE - off < len ? REC_PYMEM_PAGE - off : len;
		memcpy(out, d + off, n);
		out += n;
		addr += n;
		len -= n;
		page += REC_PYMEM_PAGE;
	}
	return 0;
}

int
rec_pymem_read_many(struct rec_pymem *m, const uint64_t *addrs, size_t n,
		    size_t len, uint8_t *out, bool *ok)
{
	struct iovec local[REC_PYMEM_MANY], remote[REC_PYMEM_MANY];
	size_t i, k = 0, got;
	ssize_t r;

	if (n > REC_PYMEM_MANY || n * len > m->budget)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		ok[i] = inside_now(m, addrs[i], len);
		if (!ok[i])
			continue;
		local[k].iov_base = out + i * len;
		local[k].iov_len = len;
		remote[k].iov_base = (void *)(uintptr_t)addrs[i];
		remote[k++].iov_len = len;
	}
	m->budget -= k * len;
	r = k ? process_vm_readv(m->pid, local, k, remote, k, 0) : 0;
	if (r < 0 && errno == ESRCH)
		return -ESRCH;
	got = r > 0 ? (size_t)r / len : 0; /* whole blocks, in order */
	m->bytes_read += r > 0 ? (uint64_t)r : 0;
	for (i = 0; i < n; i++) {
		if (!ok[i])
			continue;
		ok[i] = got > 0;
		got -= got > 0;
	}
	return 0;
}

void
rec_pymem_forget(struct rec_pymem *m)
{
	m->npages = 0;
	m->next = 0;
}

int
rec_pymem_read_now(struct rec_pymem *m, uint64_t addr, void *buf, size_t len)
{
	return read_direct(m, addr, buf, len);
}
