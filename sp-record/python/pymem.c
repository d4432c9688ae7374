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
#include "common/search.h"
#include "sp-record/sys/maps.h"
#include "sp-record/python/pymem.h"
#include "common/banned.h"

struct rec_pymem_page {
	uint64_t addr;  /* of the page's first byte */
	bool used;      /* a read took bytes from it */
	uint64_t stamp; /* when it was read: m->clock then */
	uint8_t data[REC_PYMEM_PAGE];
};

/* Rebuilds the sorted list of writable ranges from the maps. */
static int
read_ranges(struct rec_pymem *m)
{
	struct sp_buf text = SP_BUF_INIT;
	struct rec_maps_entry map;
	size_t pos = 0;
	int rc;

	m->maps_reads++;
	m->ticks = 0;
	m->changed = false;
	rc = rec_maps_read(m->pid, &text);
	if (rc < 0)
		return rc == -ENOENT ? -ESRCH : rc;
	m->maps_len = text.len;
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
	size_t i;

	if (addr + len < addr)
		return false;
	/* the ranges do not overlap: only the last starting at or below
	 * addr may hold it */
	i = SP_SEARCH_LAST_LE(m->ranges, m->nranges, start, addr);
	return i != SIZE_MAX && addr < m->ranges[i].end &&
	       addr + len <= m->ranges[i].end;
}

/*
 * Whether the maps may be read again for an address that missed them:
 * once a sample at most, and, for a process of many mappings, once its
 * mappings changed or enough of its samples went by (pymem.h).
 */
static bool
may_reread(const struct rec_pymem *m)
{
	return !m->reread &&
	       (m->changed || m->ticks >= m->maps_len / REC_PYMEM_MAPS_TICK);
}

/* Whether block `addr` is inside, the maps read again if they may be. */
static bool
inside_now(struct rec_pymem *m, uint64_t addr, size_t len)
{
	if (inside(m, addr, len))
		return true;
	if (may_reread(m)) {
		m->reread = true;
		if (read_ranges(m) == 0 && inside(m, addr, len))
			return true;
	}
	m->faults++;
	return false;
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
	if (n < 0 && errno == ESRCH)
		return -ESRCH;
	if (n < 0)
		n = 0;
	m->bytes_read += (uint64_t)n;
	if ((size_t)n == len)
		return 0;
	m->faults++;
	return -EFAULT;
}

/* The page slots, allocated at first use; NULL when out of memory. */
static struct rec_pymem_page *
slots(struct rec_pymem *m)
{
	if (!m->pages)
		m->pages = calloc(REC_PYMEM_PAGES, sizeof(*m->pages));
	return m->pages;
}

/* Reads page `page` into slot `p`, which keeps it only if that worked. */
static int
fill(struct rec_pymem *m, struct rec_pymem_page *p, uint64_t page)
{
	int rc;

	p->addr = 0;
	rc = read_direct(m, page, p->data, REC_PYMEM_PAGE);
	if (rc < 0)
		return rc;
	p->addr = page;
	p->used = true;
	p->stamp = ++m->clock;
	return 0;
}

/*
 * The kept page at `page`, read now when not kept or kept from before
 * stamp `since`; NULL with *err.
 */
static const struct rec_pymem_page *
page_at(struct rec_pymem *m, uint64_t page, uint64_t since, int *err)
{
	struct rec_pymem_page *p;
	size_t i;

	for (i = 0; i < m->npages; i++) {
		p = &m->pages[i];
		if (p->addr != page)
			continue;
		if (p->stamp < since) /* read again, in its place */
			return (*err = fill(m, p, page)) < 0 ? NULL : p;
		p->used = true;
		return p;
	}
	if (!slots(m)) {
		*err = -ENOMEM;
		return NULL;
	}
	p = &m->pages[m->next];
	if ((*err = fill(m, p, page)) < 0)
		return NULL;
	m->next = (m->next + 1) % REC_PYMEM_PAGES;
	if (m->npages < REC_PYMEM_PAGES)
		m->npages++;
	return p;
}

int
rec_pymem_read_after(struct rec_pymem *m, uint64_t addr, void *buf, size_t len,
		     uint64_t *since)
{
	uint64_t page = addr & ~(uint64_t)(REC_PYMEM_PAGE - 1), off;
	const struct rec_pymem_page *p;
	uint8_t *out = buf;
	size_t n;
	int rc;

	if (len > REC_PYMEM_PAGE || addr + len < addr) {
		rc = read_direct(m, addr, buf, len);
		*since = ++m->clock;
		return rc;
	}
	while (len > 0) {
		p = page_at(m, page, *since, &rc);
		if (!p)
			return rc;
		*since = p->stamp;
		off = addr - page;
		n = REC_PYMEM_PAGE - off < len ? REC_PYMEM_PAGE - off : len;
		memcpy(out, p->data + off, n);
		out += n;
		addr += n;
		len -= n;
		page += REC_PYMEM_PAGE;
	}
	return 0;
}

int
rec_pymem_read(struct rec_pymem *m, uint64_t addr, void *buf, size_t len)
{
	uint64_t since = 0;

	return rec_pymem_read_after(m, addr, buf, len, &since);
}

/* Adds [addr, addr+len) into `buf` to a transfer's vectors. */
static void
add_iov(struct iovec *local, struct iovec *remote, size_t *k, uint64_t addr,
	void *buf, size_t len)
{
	local[*k].iov_base = buf;
	local[*k].iov_len = len;
	remote[*k].iov_base = (void *)(uintptr_t)addr;
	remote[(*k)++].iov_len = len;
}

/*
 * Reads blocks b[0..nb) then, when `replace`, pages[0..np) into the page
 * slots in place of the pages kept, in one call (see rec_pymem_readv and
 * rec_pymem_prefetch).
 */
static int
transfer(struct rec_pymem *m, struct rec_pymem_block *b, size_t nb,
	 const uint64_t *pages, size_t np, bool replace)
{
	struct iovec local[REC_PYMEM_MANY + REC_PYMEM_PAGES];
	struct iovec remote[REC_PYMEM_MANY + REC_PYMEM_PAGES];
	size_t i, k = 0, total = 0;
	ssize_t r;

	for (i = 0; i < nb; i++) {
		b[i].ok = false;
		total += b[i].len;
	}
	if (nb > REC_PYMEM_MANY || total > m->budget)
		return -E2BIG;
	if (replace && !slots(m))
		return -ENOMEM;
	for (i = 0; i < nb; i++) {
		b[i].ok = inside_now(m, b[i].addr, b[i].len);
		if (b[i].ok) {
			add_iov(local, remote, &k, b[i].addr, b[i].buf,
				b[i].len);
			m->budget -= b[i].len;
		}
	}
	if (replace)
		rec_pymem_forget(m);
	for (i = 0; replace && i < np && m->npages < REC_PYMEM_PAGES; i++) {
		if (REC_PYMEM_PAGE > m->budget)
			break;
		if (!inside(m, pages[i], REC_PYMEM_PAGE))
			continue; /* no maps reread for a guess */
		m->budget -= REC_PYMEM_PAGE;
		m->pages[m->npages].addr = pages[i];
		m->pages[m->npages].used = false;
		m->pages[m->npages].stamp = ++m->clock;
		add_iov(local, remote, &k, pages[i], m->pages[m->npages++].data,
			REC_PYMEM_PAGE);
	}
	r = k ? process_vm_readv(m->pid, local, k, remote, k, 0) : 0;
	if (r < 0 && errno == ESRCH)
		return -ESRCH;
	if (r < 0)
		r = 0;
	m->bytes_read += (uint64_t)r;
	/* A transfer stops at a vector that fails, never inside one. */
	for (i = 0; i < nb; i++) {
		if (!b[i].ok)
			continue;
		if ((size_t)r < b[i].len) {
			b[i].ok = false;
			m->faults++;
			r = 0;
			continue;
		}
		r -= (ssize_t)b[i].len;
	}
	if (replace) {
		if ((size_t)r / REC_PYMEM_PAGE < m->npages)
			m->npages = (size_t)r / REC_PYMEM_PAGE;
		m->next = m->npages % REC_PYMEM_PAGES;
	}
	return 0;
}

int
rec_pymem_readv(struct rec_pymem *m, struct rec_pymem_block *b, size_t n)
{
	return transfer(m, b, n, NULL, 0, false);
}

int
rec_pymem_prefetch(struct rec_pymem *m, struct rec_pymem_block *b, size_t nb,
		   const uint64_t *pages, size_t np)
{
	int rc = transfer(m, b, nb, pages, np, true);

	return rc < 0 ? rc : (int)m->npages;
}

size_t
rec_pymem_used(const struct rec_pymem *m, uint64_t *pages, size_t max)
{
	const struct rec_pymem_page *p[REC_PYMEM_PAGES], *t;
	size_t i, j, n = 0;

	/* In the order read: a page read again goes after the others. */
	for (i = 0; i < m->npages; i++) {
		if (!m->pages[i].used)
			continue;
		t = &m->pages[i];
		for (j = n++; j > 0 && p[j - 1]->stamp > t->stamp; j--)
			p[j] = p[j - 1];
		p[j] = t;
	}
	for (i = 0; i < n && i < max; i++)
		pages[i] = p[i]->addr;
	return i;
}

void
rec_pymem_tick(struct rec_pymem *m)
{
	m->ticks++;
}

void
rec_pymem_changed(struct rec_pymem *m)
{
	m->changed = true;
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
