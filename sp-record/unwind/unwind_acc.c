/*
 * unwind_acc.c: the libunwind address space of a process and its
 * accessors (unwind_acc.h).  libunwind calls them back with one unwind
 * call's context (unwind_ctx.h): find_proc_info() looks a pc up in the
 * module file's .eh_frame_hdr search table (mapped.h) and hands
 * libunwind the one entry found, or made-up CFI for a CPython
 * trampoline (pytramp.h) or for code without a file (madecfi.h);
 * access_mem() reads the sample's stack copy, the unwind data built
 * here, the module files, and above the copy the live stack
 * (deepstack.h); access_reg() reads the sampled registers.
 */
#include <libunwind.h>
#include <string.h>

#include <asm/perf_regs.h>

#include "sp-record/unwind/deepstack.h"
#include "sp-record/unwind/mapped.h"
#include "sp-record/unwind/madecfi.h"
#include "sp-record/perf/perfrec.h"
#include "sp-record/unwind/pytramp.h"
#include "sp-record/unwind/regcache.h"
#include "sp-record/unwind/unwind_acc.h"
#include "sp-record/unwind/unwind_calls.h"
#include "sp-record/unwind/unwind_code.h"
#include "sp-record/unwind/unwind_ctx.h"
#include "common/banned.h"

/* Exported by libunwind but declared in none of its headers. */
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)
extern int dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
				     unw_dyn_info_t *di, unw_proc_info_t *pi,
				     int need_unwind_info, void *arg);

/*
 * Where libunwind reads the one-entry search table of a lookup: a
 * non-canonical address, which no process maps.
 */
#define BUILT_TABLE_ADDR 0xfff8000000000000ULL

/* How far above the copy a read still counts as "the copy ran out". */
#define STACK_SPAN_MAX (64u << 20)

/*
 * Where made-up CFI for code at `start` lies: any address near the code
 * serves (within 2 GiB, for its pc-relative entries), since libunwind
 * reads it from us (access_mem).
 */
static uint64_t
made_cfi_addr(uint64_t start)
{
	return (start + 0x1000) & ~(uint64_t)7;
}

/*
 * Looks `ip` up in the made-up CFI c->made_cfi (`len` bytes, as at
 * address `at`), a one-entry table for the code [lo, hi).
 */
static int
search_made_cfi(struct rec_unwind_ctx *c, unw_addr_space_t as, uint64_t ip,
		uint64_t lo, uint64_t hi, uint64_t at, size_t len,
		unw_proc_info_t *pi, int need_unwind_info)
{
	unw_dyn_info_t di;

	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = lo;
	di.end_ip = hi;
	di.u.rti.segbase = at;
	di.u.rti.table_data = at;
	di.u.rti.table_len = 1;
	c->built = c->made_cfi;
	c->built_addr = at;
	c->built_len = len;
	return dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, c);
}

/* find_proc_info for a trampoline: its CFI, made up (pytramp.h). */
static int
find_tramp_info(struct rec_unwind_ctx *c, unw_addr_space_t as, uint64_t ip,
		unw_proc_info_t *pi, int need_unwind_info)
{
	uint64_t start, at;
	size_t len;
	bool endbr;

	if (!rec_unwind_code_tramp_at(c, ip, &start, &endbr))
		return -UNW_ENOINFO;
	at = made_cfi_addr(start);
	len = rec_pytramp_cfi(start, endbr, at, c->made_cfi);
	return search_made_cfi(c, as, ip, start, start + rec_pytramp_len(endbr),
			       at, len, pi, need_unwind_info);
}

/*
 * find_proc_info for code without a file (a JIT's): a frame-pointer
 * frame, in made-up CFI (madecfi.h) covering `ip` alone.
 */
static int
find_fp_info(struct rec_unwind_ctx *c, unw_addr_space_t as, uint64_t ip,
	     unw_proc_info_t *pi, int need_unwind_info)
{
	uint64_t at = made_cfi_addr(ip);
	size_t len = rec_madecfi_fp(ip, 1, at, c->made_cfi);

	return search_made_cfi(c, as, ip, ip, ip + 1, at, len, pi,
			       need_unwind_info);
}

/*
 * find_proc_info for a frame in a module file without CFI for it (a
 * library's _init, and what it calls): the sample's own pc, or the pc
 * of the caller libunwind is stepping from (a return address less one),
 * whose return address the copy holds at a place found by
 * rec_unwind_calls_leaf_return above the frame's SP, in made-up CFI covering
 * `ip` alone; the fallback `why` is counted as for any step without
 * CFI.  -UNW_ENOINFO for any other pc or when no return address is
 * found.  libunwind keeps the rule for the pc (UNW_CACHE_GLOBAL): a
 * frame is laid out the same each time its code is at one pc.
 */
static int
find_leaf_info(struct rec_unwind_ctx *c, unw_addr_space_t as, uint64_t ip,
	       unw_proc_info_t *pi, int need_unwind_info, int why)
{
	uint64_t pc, sp, bp, at = made_cfi_addr(ip);
	bool have_bp;
	uint8_t cfa_off;

	c->fallback = why;
	if (c->ip_override ||
	    !rec_perfrec_regs_value(c->regs, c->mask, PERF_REG_X86_IP, &pc))
		return -UNW_ENOINFO;
	if (pc == ip) {
		sp = c->sp;
		have_bp = rec_perfrec_regs_value(c->regs, c->mask,
						 PERF_REG_X86_BP, &bp);
	} else if (c->step_at && ip == c->step_at) {
		sp = c->step_sp;
		bp = c->step_bp;
		have_bp = true;
	} else {
		return -UNW_ENOINFO;
	}
	if (!rec_unwind_calls_leaf_return(c, ip, sp, &cfa_off))
		return -UNW_ENOINFO;
	/*
	 * A frame-pointer frame (rbp holds the saved rbp just below the
	 * return address): libunwind's frame-pointer step restores rbp,
	 * which the caller's CFI may need; this rule would not.
	 */
	if (have_bp && bp == sp + cfa_off - 16)
		return -UNW_ENOINFO;
	c->count->leaf_returns++;
	return search_made_cfi(c, as, ip, ip, ip + 1, at,
			       rec_madecfi_sp(ip, 1, at, cfa_off, c->made_cfi),
			       pi, need_unwind_info);
}

static int
find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
	       int need_unwind_info, void *arg)
{
	struct rec_unwind_ctx *c = arg;
	unw_dyn_info_t di;
	const struct rec_regcache_region *r;
	int why = FB_NO_MODULE, ret;

	if (!(r = rec_unwind_code_region(c, ip, &why))) {
		/* anonymous or no file: perhaps a Python trampoline */
		if ((ret = find_tramp_info(c, as, ip, pi, need_unwind_info)) !=
		    -UNW_ENOINFO)
			return ret;
		c->fallback = why;
		/*
		 * Code without a file: a frame-pointer step, in CFI but
		 * counted as the fallback it is, which keeps it off memory
		 * read live (live_step_ok).
		 */
		if (rec_unwind_code_is_code(c, ip))
			return find_fp_info(c, as, ip, pi, need_unwind_info);
		if (why == FB_NO_MODULE && !c->count->missed_module) {
			c->count->missed_module = true;
			c->count->missed_pc = ip;
		}
		return -UNW_ENOINFO;
	}
	/* a module without CFI (Go's) is stepped by frame pointer */
	if (!r->f->table) {
		c->fallback = FB_NO_UNWIND_DATA;
		return -UNW_ENOINFO;
	}
	if (!rec_unwind_code_fde_lookup(r->f, ip - r->bias, c->fde_entry))
		return find_leaf_info(c, as, ip, pi, need_unwind_info,
				      FB_EH_FRAME_HDR_LOOKUP);
	/*
	 * The binary search is done above, on the file's table in memory;
	 * libunwind gets the one entry found, which saves it a memory
	 * callback per probe.
	 */
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = r->lo;
	di.end_ip = r->hi;
	di.u.rti.segbase = r->bias + r->f->table_base;
	di.u.rti.table_data = BUILT_TABLE_ADDR;
	di.u.rti.table_len = 1;
	c->built = (const uint8_t *)c->fde_entry;
	c->built_addr = BUILT_TABLE_ADDR;
	c->built_len = sizeof(c->fde_entry);
	ret = dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
	/* the entry found ends before ip: no FDE covers it */
	if (ret == -UNW_ENOINFO)
		return find_leaf_info(c, as, ip, pi, need_unwind_info,
				      FB_EH_FRAME_HDR_LOOKUP);
	if (ret < 0)
		c->fallback = FB_FDE_READ;
	return ret;
}

static void
put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as;
	(void)pi;
	(void)arg;
}

static int
get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil, void *arg)
{
	(void)as;
	(void)dil;
	(void)arg;
	return -UNW_ENOINFO;
}

/*
 * Points the window at the file bytes of region `r` around `addr`;
 * false when they do not hold a word at `addr`.
 */
static bool
file_window(struct rec_unwind_ctx *c, const struct rec_regcache_region *r,
	    uint64_t addr)
{
	const uint8_t *img;
	uint64_t lo;
	size_t len;

	img = rec_mapped_span(r->f, addr - r->bias, &lo, &len);
	if (!img || len - (addr - r->bias - lo) < sizeof(uint64_t))
		return false;
	c->win = img;
	c->win_lo = lo + r->bias;
	c->win_len = len;
	return true;
}

/*
 * access_mem's other cases: a module file outside the window, or the
 * live stack above the copy.  Kept out of line so that the cases above,
 * a million calls on a build, cost no register saves.
 */
static __attribute__((noinline)) int
read_other(struct rec_unwind_ctx *c, uint64_t addr, unw_word_t *valp)
{
	const struct rec_regcache_region *r;
	int why;

	r = rec_unwind_code_region(c, addr, &why);
	if (r && file_window(c, r, addr)) {
		memcpy(valp, c->win + (addr - c->win_lo), sizeof(*valp));
		return 0;
	}
	if (r)
		return -UNW_EINVAL;
	/* a frame-pointer step over live memory is refused anyway */
	if (c->fallback == FB_NONE && rec_deepstack_read(c->live, addr, valp))
		return 0;
	if (addr >= c->sp && addr - c->sp < STACK_SPAN_MAX)
		c->ran_out = true;
	return -UNW_EINVAL;
}

static int
access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
	   void *arg)
{
	struct rec_unwind_ctx *c = arg;

	(void)as;
	/* ends any loop in what libunwind evaluates (unwind_walk.c) */
	if (write || ++c->reads > UNW_READS_MAX)
		return -UNW_EINVAL;
	if (addr >= c->sp && addr - c->sp <= c->stack_len - sizeof(*valp)) {
		memcpy(valp, c->stack + (addr - c->sp), sizeof(*valp));
		rec_deepstack_saw(c->live, addr);
		return 0;
	}
	if (c->built && addr >= c->built_addr &&
	    c->built_len >= sizeof(*valp) &&
	    addr - c->built_addr <= c->built_len - sizeof(*valp)) {
		memcpy(valp, c->built + (addr - c->built_addr), sizeof(*valp));
		return 0;
	}
	if (addr - c->win_lo < c->win_len &&
	    c->win_len - (addr - c->win_lo) >= sizeof(*valp)) {
		memcpy(valp, c->win + (addr - c->win_lo), sizeof(*valp));
		return 0;
	}
	return read_other(c, addr, valp);
}

/* perf_regs.h number of a libunwind x86_64 register, or -1. */
static int
perf_reg(unw_regnum_t r)
{
	switch (r) {
	case UNW_X86_64_RAX:
		return PERF_REG_X86_AX;
	case UNW_X86_64_RDX:
		return PERF_REG_X86_DX;
	case UNW_X86_64_RCX:
		return PERF_REG_X86_CX;
	case UNW_X86_64_RBX:
		return PERF_REG_X86_BX;
	case UNW_X86_64_RSI:
		return PERF_REG_X86_SI;
	case UNW_X86_64_RDI:
		return PERF_REG_X86_DI;
	case UNW_X86_64_RBP:
		return PERF_REG_X86_BP;
	case UNW_X86_64_RSP:
		return PERF_REG_X86_SP;
	case UNW_X86_64_RIP:
		return PERF_REG_X86_IP;
	default:
		if (r >= UNW_X86_64_R8 && r <= UNW_X86_64_R15)
			return PERF_REG_X86_R8 + (r - UNW_X86_64_R8);
		return -1;
	}
}

static int
access_reg(unw_addr_space_t as, unw_regnum_t r, unw_word_t *valp, int write,
	   void *arg)
{
	struct rec_unwind_ctx *c = arg;
	uint64_t v;

	(void)as;
	if (write || !rec_perfrec_regs_value(c->regs, c->mask, perf_reg(r), &v))
		return -UNW_EBADREG;
	if (r == UNW_X86_64_RIP && c->ip_override)
		v = c->ip_override;
	*valp = v;
	return 0;
}

static int
access_fpreg(unw_addr_space_t as, unw_regnum_t r, unw_fpreg_t *v, int write,
	     void *arg)
{
	(void)as;
	(void)r;
	(void)v;
	(void)write;
	(void)arg;
	return -UNW_EBADREG;
}

static int
resume(unw_addr_space_t as, unw_cursor_t *cur, void *arg)
{
	(void)as;
	(void)cur;
	(void)arg;
	return -UNW_EINVAL;
}

static int
get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
	      unw_word_t *off, void *arg)
{
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)off;
	(void)arg;
	return -UNW_ENOINFO;
}

/* Never written: libunwind's unw_create_addr_space takes it non-const. */
static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

/*
 * The libunwind address space of `p`, made when its first sample needs
 * libunwind (most processes of a build never do: own_walk()); NULL when
 * it cannot be made.  Call it with rec_sigmask_in_libunwind set.
 */
unw_addr_space_t
rec_unwind_acc_proc_as(struct rec_unwind_ctx_proc *p)
{
	if (!p->as && (p->as = unw_create_addr_space(&accessors, 0)))
		unw_set_caching_policy(p->as, UNW_CACHE_GLOBAL);
	return p->as;
}
