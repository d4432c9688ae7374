/*
 * unwind_code.c: what the unwinder knows of a process's code
 * (unwind_code.h): the module file region holding an address, whether an
 * address is code at all, CPython's perf trampolines and the signal
 * trampoline, the FDE search table of a module file, and the sampled
 * registers.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/htab.h"
#include "common/modtab.h"
#include "common/spool.h"
#include "sp-record/unwind/coderange.h"
#include "sp-record/unwind/mapped.h"
#include "sp-record/unwind/pytramp.h"
#include "sp-record/unwind/regcache.h"
#include "sp-record/unwind/unwind_code.h"
#include "sp-record/unwind/unwind_ctx.h"
#include "common/banned.h"

/*
 * The file region of this process that holds `addr`, learning it from the
 * module table the first time; sets *why when there is none.
 */
const struct rec_regcache_region *
rec_unwind_code_region(struct rec_unwind_ctx *c, uint64_t addr, int *why)
{
	const struct rec_regcache_region *r;
	int miss;

	r = rec_regcache_get(&c->p->regions, c->files, c->mods, addr, &miss);
	if (!r)
		*why = miss == REC_REGION_NO_MODULE ? FB_NO_MODULE : FB_NO_FILE;
	return r;
}

/* The anonymous code ranges of `pid`; NULL when none were added. */
static struct rec_coderange *
code_of(struct sp_htab *code, int32_t pid)
{
	uint64_t v;

	return sp_htab_get(code, &pid, sizeof(pid), &v)
		   ? (struct rec_coderange *)(uintptr_t)v
		   : NULL;
}

/*
 * Reads up to `len` bytes of the process's memory (code outside any
 * file) at `addr`; returns how many (0 on failure): a read stops at the
 * end of a mapping.
 */
static size_t
read_mem(struct rec_unwind_ctx_proc *p, uint64_t addr, void *buf, size_t len)
{
	ssize_t n;
	char path[64];

	if (p->memfd < 0) {
		snprintf(path, sizeof(path), "/proc/%" PRId32 "/mem", p->pid);
		if ((p->memfd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			p->memfd = -2; /* do not try again */
			return false;
		}
	}
	if (p->memfd < 0 || addr > INT64_MAX ||
	    (n = pread(p->memfd, buf, len, (off_t)addr)) < 0)
		return 0;
	return (size_t)n;
}

/*
 * Whether `ip`, in no module, lies in a CPython perf trampoline; the
 * answer for each pc is kept for the process's life.
 */
bool
rec_unwind_code_tramp_at(struct rec_unwind_ctx *c, uint64_t ip, uint64_t *start,
			 bool *endbr)
{
	uint8_t code[2 * REC_PYTRAMP_WINDOW];
	uint64_t from = ip - REC_PYTRAMP_WINDOW, *slot, v;
	struct rec_unwind_ctx_proc *p = c->p;
	bool inserted;
	size_t n;

	if (ip < REC_PYTRAMP_WINDOW)
		return false;
	if (!p->tramps && !(p->tramps = sp_htab_new()))
		return false;
	if (sp_htab_get(p->tramps, &ip, sizeof(ip), &v)) {
		*start = v >> 1;
		*endbr = v & 1;
		return v != 0;
	}
	/*
	 * The window may begin below the mapping (the first trampoline of
	 * CPython's arena is at its first byte): then from the page of ip.
	 */
	if (!(n = read_mem(p, from, code, sizeof(code))) &&
	    (ip & ~(uint64_t)4095) > from) {
		from = ip & ~(uint64_t)4095;
		n = read_mem(p, from, code,
			     (size_t)(ip - from) + REC_PYTRAMP_WINDOW);
	}
	if (n <= ip - from)
		return false; /* unknown: not cached */
	v = rec_pytramp_match(code, n, from, ip, start, endbr)
		? *start << 1 | *endbr
		: 0;
	if ((slot = sp_htab_slot(p->tramps, &ip, sizeof(ip), 0, &inserted)))
		*slot = v;
	return v != 0;
}

/*
 * Whether a return address can be one: it lies in a module or in
 * anonymous executable memory the process mapped (trampolines too).
 */
bool
rec_unwind_code_is_code(struct rec_unwind_ctx *c, uint64_t addr)
{
	const struct rec_coderange *rs;
	struct sp_frame fr;

	/* Not the region cache: a file's region spans its data segments too. */
	sp_modtab_resolve(c->mods, c->p->pid, addr, SP_FRAME_USER, &fr);
	if (fr.module_id != SP_NONE)
		return true;
	return (rs = code_of(c->code, c->p->pid)) &&
	       rec_coderange_has(rs, addr);
}

/* Whether `addr` holds the signal trampoline: mov $15,%rax; syscall. */
bool
rec_unwind_code_is_trampoline(struct rec_unwind_ctx *c, uint64_t addr)
{
	static const uint8_t tramp[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00,
					  0x00, 0x00, 0x0f, 0x05 };
	uint8_t code[sizeof(tramp)];
	const struct rec_regcache_region *r;
	int why;

	return (r = rec_unwind_code_region(c, addr, &why)) &&
	       rec_mapped_read(r->f, addr - r->bias, code, sizeof(code)) == 0 &&
	       memcmp(code, tramp, sizeof(tramp)) == 0;
}

/*
 * Finds the index of f's search table entry for ELF address `vaddr`: the
 * last one whose initial location is at or below it.  False when there
 * is none (below the first FDE, or out of the table's 32-bit reach).
 */
bool
rec_unwind_code_fde_index(const struct rec_mapped *f, uint64_t vaddr,
			  size_t *index)
{
	int64_t rel = (int64_t)(vaddr - f->table_base);
	size_t lo = 0, hi = f->fde_count, mid;
	int32_t loc;

	if (rel < INT32_MIN || rel > INT32_MAX || hi == 0)
		return false;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		memcpy(&loc, f->table + mid * 8, sizeof(loc));
		if (loc <= rel)
			lo = mid;
		else
			hi = mid;
	}
	memcpy(&loc, f->table + lo * 8, sizeof(loc));
	*index = lo;
	return loc <= rel;
}

/*
 * Finds the entry of f's search table for ELF address `vaddr`: the last
 * one whose initial location is at or below it.  False when there is
 * none (below the first FDE, or out of the table's 32-bit reach).
 */
bool
rec_unwind_code_fde_lookup(const struct rec_mapped *f, uint64_t vaddr,
			   int32_t entry[2])
{
	size_t i;

	return rec_unwind_code_fde_index(f, vaddr, &i) &&
	       (memcpy(entry, f->table + i * 8, 8));
}
