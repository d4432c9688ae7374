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
	memset(m, 0, sizeof(*m));
}

void
rec_pymem_begin(struct rec_pymem *m, size_t budget)
{
	m->budget = budget;
	m->reread = false;
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

int
rec_pymem_read(struct rec_pymem *m, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;
	int rc;

	if (len > m->budget)
		return -E2BIG;
	if (!inside(m, addr, len)) {
		if (m->reread)
			return -EFAULT;
		m->reread = true;
		rc = read_ranges(m);
		if (rc < 0)
			return rc;
		if (!inside(m, addr, len))
			return -EFAULT;
	}
	m->budget -= len;
	n = process_vm_readv(m->pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -EFAULT;
	m->bytes_read += (uint64_t)n;
	return (size_t)n == len ? 0 : -EFAULT;
}
