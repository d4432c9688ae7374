/*
 * deepstack.c: the stack above a sample's copy, read live (deepstack.h).
 *
 * Why frames read after the sample can be trusted.  What the unwinder
 * reads above the copy are the return addresses and saved registers of
 * the callers of the copied frames: frames that were live at the sample.
 * A live frame's return address and register slots are written by its
 * call and prologue and not again until it returns, so the stack above
 * the copy keeps its sampled values until the thread returns past the
 * copy's end.  When it does, the words the unwinder read last from the
 * copy (the return addresses and saved registers of the outermost copied
 * frames) are popped, and the next call writes other frames over them.
 * rec_deepstack_verify() reads those words again after all the live
 * reads: when they still match, the thread has not returned past the
 * copy's end since the sample (or it made the same calls again from the
 * same frames, which writes the same callers back), so what was read
 * above is what was there at the sample.  A process that exited or a
 * stack unmapped in between fails the read: nothing is accepted then.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "common/buf.h"
#include "sp-record/deepstack.h"
#include "sp-record/maps.h"
#include "common/banned.h"

#define PAGE 4096u
#define CHUNK_MAX (64u << 10)

void
rec_stackmaps_release(struct rec_stackmaps *m)
{
	rec_ranges_release(&m->maps);
	m->miss_page = 0;
}

int
rec_deepstack_init(struct rec_deepstack *d, size_t budget)
{
	memset(d, 0, sizeof(*d));
	budget &= ~(size_t)(PAGE - 1);
	if (!budget)
		return 0;
	d->buf = malloc(budget);
	d->again = malloc(budget);
	d->words = calloc(budget / 8 / 64, sizeof(*d->words));
	if (!d->buf || !d->again || !d->words) {
		rec_deepstack_release(d);
		return -ENOMEM;
	}
	d->budget = budget;
	return 0;
}

void
rec_deepstack_release(struct rec_deepstack *d)
{
	free(d->buf);
	free(d->again);
	free(d->words);
	d->buf = d->again = NULL;
	d->words = NULL;
	d->budget = 0;
}

void
rec_deepstack_begin(struct rec_deepstack *d, int32_t pid,
		    struct rec_stackmaps *maps, uint64_t sp,
		    const uint8_t *copy, size_t copy_len)
{
	d->pid = pid;
	d->maps = maps;
	d->copy = copy;
	d->sp = sp;
	d->copy_end = sp + copy_len;
	d->limit = 0;
	if (d->top)
		memset(d->words, 0, (d->top / 8 + 63) / 64 * sizeof(*d->words));
	d->have = d->top = 0;
	d->chunk = PAGE;
	d->used = false;
	d->failed = d->budget == 0 || d->copy_end < sp;
	d->nseen = 0;
}

void
rec_deepstack_saw(struct rec_deepstack *d, uint64_t addr)
{
	if (!d->used)
		d->seen[d->nseen++ % REC_DEEPSTACK_SEEN] = addr;
}

bool
rec_deepstack_used(const struct rec_deepstack *d)
{
	return d->used;
}

/* The end of the known stack mapping holding `sp`, or 0. */
static uint64_t
known_end(const struct rec_stackmaps *m, uint64_t sp)
{
	size_t lo = 0, hi = m->maps.n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (m->maps.v[mid].hi <= sp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->maps.n && m->maps.v[lo].lo <= sp ? m->maps.v[lo].hi : 0;
}

/*
 * Learns the mapping that holds `sp` from /proc/PID/maps: writable and
 * without a file (a thread's stack, or [stack]).  Returns its end, or 0.
 */
static uint64_t
learn_end(struct rec_deepstack *d, uint64_t sp)
{
	struct sp_buf text = SP_BUF_INIT;
	struct rec_map m;
	uint64_t end = 0;
	size_t pos = 0;

	if (d->maps->miss_page == (sp & ~(uint64_t)(PAGE - 1)))
		return 0;
	d->maps_reads++;
	if (rec_maps_read(d->pid, &text) == 0)
		while (!end && rec_maps_next((const char *)text.data, text.len,
					     &pos, &m, NULL) == 1)
			if (m.start <= sp && sp < m.end && m.perms[1] == 'w' &&
			    m.path[0] != '/' &&
			    rec_ranges_add(&d->maps->maps, m.start, m.end) == 0)
				end = m.end;
	sp_buf_release(&text);
	if (!end)
		d->maps->miss_page = sp & ~(uint64_t)(PAGE - 1);
	return end;
}

/* Sets d->limit: the end of what may be read; false when nothing may. */
static bool
find_limit(struct rec_deepstack *d)
{
	uint64_t end;

	if (!(end = known_end(d->maps, d->sp)))
		end = learn_end(d, d->sp);
	if (end > d->copy_end + d->budget)
		end = d->copy_end + d->budget;
	d->limit = end;
	return end > d->copy_end;
}

/* Reads the next chunk (page-aligned end, doubling); false when none. */
static bool
read_chunk(struct rec_deepstack *d)
{
	uint64_t pos = d->copy_end + d->have,
		 end = (pos & ~(uint64_t)(PAGE - 1)) + d->chunk;
	struct iovec local, remote;
	ssize_t got;

	if (end > d->limit)
		end = d->limit;
	if (end <= pos)
		return false;
	local.iov_base = d->buf + d->have;
	local.iov_len = end - pos;
	remote.iov_base = (void *)(uintptr_t)pos;
	remote.iov_len = end - pos;
	d->syscalls++;
	got = process_vm_readv(d->pid, &local, 1, &remote, 1, 0);
	if (got <= 0)
		return false;
	d->have += (size_t)got;
	d->bytes += (uint64_t)got;
	if (d->chunk < CHUNK_MAX)
		d->chunk *= 2;
	return true;
}

bool
rec_deepstack_read(struct rec_deepstack *d, uint64_t addr, uint64_t *val)
{
	size_t off;

	/* whole words from the copy's end only, which verify can check */
	if (d->failed || addr < d->copy_end || (addr - d->copy_end) % 8)
		return false;
	if (!d->limit && !find_limit(d)) {
		d->failed = true;
		return false;
	}
	if (addr > d->limit - sizeof(*val))
		return false;
	while (addr - d->copy_end + sizeof(*val) > d->have)
		if (!read_chunk(d)) {
			d->failed = true;
			return false;
		}
	off = addr - d->copy_end;
	memcpy(val, d->buf + off, sizeof(*val));
	d->words[off / 8 / 64] |= (uint64_t)1 << (off / 8 % 64);
	if (off + sizeof(*val) > d->top)
		d->top = off + sizeof(*val);
	d->used = true;
	return true;
}

/* Whether the words the unwinder read from the copy still hold. */
static int
copy_words_hold(struct rec_deepstack *d)
{
	struct iovec local[REC_DEEPSTACK_SEEN], remote[REC_DEEPSTACK_SEEN];
	uint64_t now[REC_DEEPSTACK_SEEN], at;
	size_t i,
	    n = d->nseen < REC_DEEPSTACK_SEEN ? d->nseen : REC_DEEPSTACK_SEEN;

	if (n == 0)
		return -ENODATA;
	for (i = 0; i < n; i++) {
		local[i].iov_base = &now[i];
		local[i].iov_len = sizeof(now[i]);
		at = d->seen[(d->nseen - n + i) % REC_DEEPSTACK_SEEN];
		remote[i].iov_base = (void *)(uintptr_t)at;
		remote[i].iov_len = sizeof(now[i]);
	}
	d->syscalls++;
	if (process_vm_readv(d->pid, local, n, remote, n, 0) !=
	    (ssize_t)(n * sizeof(now[0])))
		return -EIO;
	for (i = 0; i < n; i++) {
		at = d->seen[(d->nseen - n + i) % REC_DEEPSTACK_SEEN];
		if (memcmp(&now[i], d->copy + (at - d->sp), sizeof(now[i])))
			return -ESTALE;
	}
	return 0;
}

/* Whether the live words the unwinder read still hold: one more read. */
static int
live_words_hold(struct rec_deepstack *d)
{
	struct iovec local = { d->again, d->top },
		     remote = { (void *)(uintptr_t)d->copy_end, d->top };
	size_t w;

	d->syscalls++;
	if (process_vm_readv(d->pid, &local, 1, &remote, 1, 0) !=
	    (ssize_t)d->top)
		return -EIO;
	d->bytes += d->top;
	for (w = 0; w * 8 < d->top; w++)
		if ((d->words[w / 64] >> (w % 64) & 1) &&
		    memcmp(d->buf + w * 8, d->again + w * 8, 8) != 0)
			return -ESTALE;
	return 0;
}

int
rec_deepstack_verify(struct rec_deepstack *d)
{
	int r = copy_words_hold(d);

	return r < 0 ? r : live_words_hold(d);
}
