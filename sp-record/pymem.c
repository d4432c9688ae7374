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
	free(m->staged);
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
	m->calls++;
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -EFAULT;
	m->bytes_read += (uint64_t)n;
	return (size_t)n == len ? 0 : -EFAULT;
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
 * Adds pages[0..np) to a transfer's vectors, into slots s[0..), as long
 * as the budget lasts, skipping pages outside the mappings as last read
 * (no maps reread for a guess); returns how many slots were filled.
 */
static size_t
add_pages(struct rec_pymem *m, struct rec_pymem_page *s, const uint64_t *pages,
	  size_t np, struct iovec *local, struct iovec *remote, size_t *k)
{
	size_t i, n = 0;

	for (i = 0; i < np && n < REC_PYMEM_PAGES; i++) {
		if (REC_PYMEM_PAGE > m->budget)
			break;
		if (!inside(m, pages[i], REC_PYMEM_PAGE))
			continue;
		m->budget -= REC_PYMEM_PAGE;
		s[n].addr = pages[i];
		s[n].used = false;
		s[n].stamp = ++m->clock;
		add_iov(local, remote, k, pages[i], s[n++].data,
			REC_PYMEM_PAGE);
	}
	return n;
}

/* Of `n` pages read in a row, how many `*r` bytes cover; takes them. */
static size_t
took_pages(ssize_t *r, size_t n)
{
	size_t got = (size_t)*r / REC_PYMEM_PAGE;

	if (got > n)
		got = n;
	*r -= (ssize_t)(got * REC_PYMEM_PAGE);
	if (got < n)
		*r = 0; /* a transfer stops at the first vector that fails */
	return got;
}

/* The vectors of one transfer: what it reads, in order. */
struct xfer {
	const uint64_t *pages; /* into the page slots, replacing them */
	size_t np;
	struct rec_pymem_block *b;
	size_t nb;
	const uint64_t *after; /* into the kept slots too, or staged */
	size_t na;
	bool replace; /* pages and after replace the pages kept */
	bool stage;   /* after goes to the staged slots */
};

/* Sets the blocks' vectors up; false: past the budget. */
static bool
add_blocks(struct rec_pymem *m, struct rec_pymem_block *b, size_t nb,
	   struct iovec *local, struct iovec *remote, size_t *k)
{
	size_t i, total = 0;

	for (i = 0; i < nb; i++) {
		b[i].ok = false;
		total += b[i].len;
	}
	if (nb > REC_PYMEM_MANY || total > m->budget)
		return false;
	for (i = 0; i < nb; i++) {
		b[i].ok = inside_now(m, b[i].addr, b[i].len);
		if (b[i].ok) {
			add_iov(local, remote, k, b[i].addr, b[i].buf,
				b[i].len);
			m->budget -= b[i].len;
		}
	}
	return true;
}

/* Marks the blocks that `*r` bytes cover as read, and takes them. */
static void
took_blocks(ssize_t *r, struct rec_pymem_block *b, size_t nb)
{
	size_t i;

	for (i = 0; i < nb; i++) {
		if (!b[i].ok)
			continue;
		if ((size_t)*r < b[i].len) {
			b[i].ok = false;
			*r = 0;
			continue;
		}
		*r -= (ssize_t)b[i].len;
	}
}

/*
 * Reads x's pages, blocks and after pages in one call (see
 * rec_pymem_readv, rec_pymem_prefetch and rec_pymem_prefetch3).
 */
static int
transfer(struct rec_pymem *m, const struct xfer *x)
{
	struct iovec local[REC_PYMEM_MANY + 2 * REC_PYMEM_PAGES];
	struct iovec remote[REC_PYMEM_MANY + 2 * REC_PYMEM_PAGES];
	struct rec_pymem_page *into;
	size_t k = 0, np = 0, na = 0, i, total = 0;
	ssize_t r;

	for (i = 0; i < x->nb; i++)
		total += x->b[i].len;
	if (x->nb > REC_PYMEM_MANY || total > m->budget) {
		for (i = 0; i < x->nb; i++)
			x->b[i].ok = false;
		return -E2BIG;
	}
	if (x->replace && !slots(m))
		return -ENOMEM;
	if (x->stage && !m->staged &&
	    !(m->staged = calloc(REC_PYMEM_PAGES, sizeof(*m->staged))))
		return -ENOMEM;
	if (x->replace)
		rec_pymem_forget(m);
	if (x->replace)
		np = add_pages(m, m->pages, x->pages, x->np, local, remote, &k);
	if (!add_blocks(m, x->b, x->nb, local, remote, &k))
		return -E2BIG;
	into = x->stage ? m->staged : m->pages + np;
	if (x->stage || x->replace)
		na = add_pages(m, into, x->after,
			       x->stage ? x->na
			       : x->na < REC_PYMEM_PAGES - np
				   ? x->na
				   : REC_PYMEM_PAGES - np,
			       local, remote, &k);
	r = k ? process_vm_readv(m->pid, local, k, remote, k, 0) : 0;
	m->calls += k > 0;
	if (r < 0 && errno == ESRCH)
		return -ESRCH;
	if (r < 0)
		r = 0;
	m->bytes_read += (uint64_t)r;
	np = took_pages(&r, np);
	took_blocks(&r, x->b, x->nb);
	na = took_pages(&r, na);
	if (x->stage)
		m->nstaged = na;
	else if (x->replace)
		np += na;
	if (x->replace) {
		m->npages = np;
		m->next = np % REC_PYMEM_PAGES;
	}
	return 0;
}

int
rec_pymem_readv(struct rec_pymem *m, struct rec_pymem_block *b, size_t n)
{
	struct xfer x = { .b = b, .nb = n };

	return transfer(m, &x);
}

int
rec_pymem_prefetch(struct rec_pymem *m, struct rec_pymem_block *b, size_t nb,
		   const uint64_t *pages, size_t np)
{
	struct xfer x = {
		.b = b, .nb = nb, .after = pages, .na = np, .replace = true
	};
	int rc = transfer(m, &x);

	return rc < 0 ? rc : (int)m->npages;
}

int
rec_pymem_prefetch3(struct rec_pymem *m, const uint64_t *pages, size_t np,
		    struct rec_pymem_block *b, size_t nb, const uint64_t *after,
		    size_t na)
{
	struct xfer x = { pages, np, b, nb, after, na, true, true };
	int rc = transfer(m, &x);

	return rc < 0 ? rc : (int)m->npages;
}

bool
rec_pymem_unstage(struct rec_pymem *m)
{
	struct rec_pymem_page *t = m->pages;

	if (!m->nstaged)
		return false;
	m->pages = m->staged;
	m->staged = t;
	m->npages = m->nstaged;
	m->next = m->npages % REC_PYMEM_PAGES;
	m->nstaged = 0;
	return true;
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
rec_pymem_forget(struct rec_pymem *m)
{
	m->npages = 0;
	m->next = 0;
	m->nstaged = 0;
}

int
rec_pymem_read_now(struct rec_pymem *m, uint64_t addr, void *buf, size_t len)
{
	return read_direct(m, addr, buf, len);
}
