/*
 * check_record_unwind.c: the DWARF unwinder (sp-record/unwind*.c) and its
 * module files (sp-record/unwind/mapped.c) without perf_event_open: the test
 * captures its own registers and stack, then unwinds them as if they came
 * from a sample, and checks the pcs against the return addresses each
 * function recorded.  The .eh_frame index (sp-record/ehframe.c) reads
 * FDE locations with the one LEB128 reader.
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <elf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include "common/modtab.h"
#include "common/spool.h"
#include "sp-record/unwind/ehframe.h"
#include "sp-record/unwind/mapped.h"
#include "sp-record/unwind/unwind.h"
#include "tests/unit/skip.h"

#define NOINLINE __attribute__((noinline))
#define DEPTH 10
#define COPY_MAX 32768

/* What capture() saw: registers in perf mask order, the stack copy. */
static uint64_t cap_regs[24];
static size_t cap_nregs;
static uint8_t cap_stack[COPY_MAX];
static size_t cap_len;
static uintptr_t cap_ra, ras[DEPTH + 1], fps[DEPTH + 1];
static ucontext_t cap_uc;
/* Called by capture() once the stack is copied, while it still stands. */
static void (*cap_hook)(void);

/* The end of the [stack] mapping, from /proc/self/maps. */
static uint64_t
stack_top(void)
{
	char line[512];
	uint64_t lo, hi, top = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") &&
		    sscanf(line, "%" SCNx64 "-%" SCNx64, &lo, &hi) == 2)
			top = hi;
	fclose(f);
	return top;
}

/* Copies the live stack, redzones and all, which ASan must not check. */
__attribute__((no_sanitize("address"))) static void
copy_stack(uint64_t sp, size_t len)
{
	const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)sp;
	size_t i;

	for (i = 0; i < len; i++)
		cap_stack[i] = p[i];
}

NOINLINE static void
capture(void)
{
	static const int greg[24] = { REG_RAX, REG_RBX, REG_RCX, REG_RDX,
				      REG_RSI, REG_RDI, REG_RBP, REG_RSP,
				      REG_RIP, REG_EFL, -1,      -1,
				      -1,      -1,      -1,      -1,
				      REG_R8,  REG_R9,  REG_R10, REG_R11,
				      REG_R12, REG_R13, REG_R14, REG_R15 };
	uint64_t sp, top;
	int i;

	cap_ra = (uintptr_t)__builtin_return_address(0);
	getcontext(&cap_uc);
	cap_nregs = 0;
	for (i = 0; i < 24; i++)
		if (REC_UNWIND_REGS_MASK & (1ULL << i))
			cap_regs[cap_nregs++] =
			    greg[i] < 0
				? 0
				: (uint64_t)cap_uc.uc_mcontext.gregs[greg[i]];
	sp = (uint64_t)cap_uc.uc_mcontext.gregs[REG_RSP];
	top = stack_top();
	ck_assert_uint_gt(top, sp);
	cap_len = top - sp < COPY_MAX ? top - sp : COPY_MAX;
	copy_stack(sp, cap_len);
	if (cap_hook)
		cap_hook();
}

NOINLINE static int
level(int d)
{
	int r;

	ras[d] = (uintptr_t)__builtin_return_address(0);
	fps[d] = (uintptr_t)__builtin_frame_address(0);
	if (d == 0) {
		capture();
		r = 0;
	} else {
		r = level(d - 1);
	}
	__asm__ volatile("" : "+r"(r));
	return r + 1;
}

/* Interns this process's executable mappings, leaving out `skip`. */
/*
 * Interns the executable mappings of this process into t: all but those
 * of file `skip`, or only those of file `only` (either may be NULL).
 */
static void
add_self_modules(struct sp_modtab *t, const char *skip, const char *only)
{
	struct sp_module m;
	char line[4600], perm[8], path[4096];
	uint64_t lo, hi, off, ino;
	uint32_t id;
	FILE *f = fopen("/proc/self/maps", "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line,
			   "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64
			   " %*s %" SCNu64 " %4095s",
			   &lo, &hi, perm, &off, &ino, path) < 5 ||
		    perm[2] != 'x' || !path[0])
			continue;
		if ((skip && strcmp(path, skip) == 0) ||
		    (only && strcmp(path, only) != 0))
			continue;
		memset(&m, 0, sizeof(m));
		m.pid = getpid();
		m.start = lo;
		m.end = hi;
		m.file_offset = off;
		m.inode = ino;
		m.path = path;
		m.path_len = strlen(path);
		ck_assert_int_eq(sp_modtab_intern(t, &m, NULL, &id), 0);
	}
	fclose(f);
}

static struct sp_modtab *
self_modules(const char *skip)
{
	struct sp_modtab *t = sp_modtab_new();

	ck_assert_ptr_nonnull(t);
	add_self_modules(t, skip, NULL);
	return t;
}

struct counters {
	uint64_t fallback_no_module, stack_truncated, no_regs, no_stack;
	uint64_t too_many, deep_completed, deep_cached;
};

static void
count(const char *key, uint64_t v, void *arg)
{
	struct counters *c = arg;

	if (strcmp(key, "unwind_fallback.no_module") == 0)
		c->fallback_no_module = v;
	else if (strcmp(key, "unwind_error.stack_truncated") == 0)
		c->stack_truncated = v;
	else if (strcmp(key, "unwind_error.no_user_regs") == 0)
		c->no_regs = v;
	else if (strcmp(key, "unwind_error.no_user_stack") == 0)
		c->no_stack = v;
	else if (strcmp(key, "unwind_error.too_many_frames") == 0)
		c->too_many = v;
	else if (strcmp(key, "unwind_deep.completed") == 0)
		c->deep_completed = v;
	else if (strcmp(key, "unwind_deep.cached") == 0)
		c->deep_cached = v;
}

/* pcs[1] must be capture's call site, then one per level, in order. */
static void
check_chain(const uint64_t *pcs, size_t n)
{
	int d;

	ck_assert_uint_ge(n, DEPTH + 3);
	ck_assert_uint_eq(pcs[0], (uint64_t)cap_uc.uc_mcontext.gregs[REG_RIP]);
	ck_assert_uint_eq(pcs[1] + 1, cap_ra);
	for (d = 0; d <= DEPTH; d++)
		ck_assert_uint_eq(pcs[2 + d] + 1, ras[d]);
}

static size_t
unwind_self(struct rec_unwind *u, struct sp_modtab *t, size_t len,
	    uint64_t *pcs, bool *trunc)
{
	return rec_unwind_unwind(u, t, getpid(), cap_regs, REC_UNWIND_REGS_MASK,
				 cap_stack, len, pcs, REC_UNWIND_MAX_FRAMES,
				 trunc);
}

START_TEST(test_self_unwind)
{
	struct rec_unwind *u = rec_unwind_new(NULL);
	struct sp_modtab *t = self_modules(NULL);
	uint64_t pcs[REC_UNWIND_MAX_FRAMES];
	bool trunc;
	size_t n;
	int pass;

	ck_assert_ptr_nonnull(u);
	level(DEPTH);
	for (pass = 0; pass < 2; pass++) { /* cold, then cached */
		n = unwind_self(u, t, cap_len, pcs, &trunc);
		check_chain(pcs, n);
		ck_assert(!trunc);
		ck_assert(!rec_unwind_missed_module(u, NULL));
	}
	rec_unwind_forget_process(u, getpid());
	n = unwind_self(u, t, cap_len, pcs, &trunc);
	check_chain(pcs, n);
	rec_unwind_free(u);
	sp_modtab_free(t);
}
END_TEST

static void
on_usr1(int sig)
{
	int r = level(DEPTH) + sig;

	__asm__ volatile("" : "+r"(r)); /* no tail call */
}

NOINLINE static void
raise_here(void)
{
	raise(SIGUSR1);
	__asm__ volatile("");
}

/* Whether `pc` is the signal trampoline: mov $15,%rax; syscall. */
static bool
is_trampoline(uint64_t pc)
{
	static const uint8_t code[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0,
					 0,    0,    0x0f, 0x05 };

	return memcmp((const void *)(uintptr_t)pc, code, sizeof(code)) == 0;
}

/*
 * Captured inside a signal handler: the chain goes through the trampoline
 * (its exact address) into the interrupted code and on to raise_here().
 */
START_TEST(test_signal_frame)
{
	struct rec_unwind *u = rec_unwind_new(NULL);
	struct sp_modtab *t = self_modules(NULL);
	uint64_t pcs[REC_UNWIND_MAX_FRAMES],
	    lo = (uint64_t)(uintptr_t)raise_here;
	struct sigaction sa;
	size_t n, i, tramp = 0, caller = 0;
	bool trunc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	raise_here();
	n = unwind_self(u, t, cap_len, pcs, &trunc);
	check_chain(pcs, n);
	ck_assert(!trunc);
	for (i = DEPTH + 2; i < n; i++) {
		if (!tramp && is_trampoline(pcs[i]))
			tramp = i;
		if (tramp && !caller && pcs[i] >= lo && pcs[i] < lo + 64)
			caller = i;
	}
	ck_assert_msg(tramp > 0, "no signal trampoline frame");
	ck_assert_msg(caller > tramp,
		      "raise_here not found past the trampoline");
	rec_unwind_free(u);
	sp_modtab_free(t);
}
END_TEST

START_TEST(test_short_copy_is_truncated)
{
	struct rec_unwind *u = rec_unwind_new(NULL);
	struct sp_modtab *t = self_modules(NULL);
	uint64_t pcs[REC_UNWIND_MAX_FRAMES];
	struct counters c = { 0 };
	bool trunc;
	size_t n;

	ck_assert_int_eq(rec_unwind_set_stack_read(u, 0), 0);
	level(DEPTH);
	n = unwind_self(u, t, 32, pcs, &trunc);
	ck_assert_uint_ge(n, 1);
	ck_assert_uint_lt(n, DEPTH + 3);
	ck_assert(trunc);
	rec_unwind_counters(u, count, &c);
	ck_assert_uint_eq(c.stack_truncated, 1);
	rec_unwind_free(u);
	sp_modtab_free(t);
}
END_TEST

/* What unwind_short() found, unwinding from inside capture(). */
static struct rec_unwind *short_u;
static struct sp_modtab *short_t;
static uint64_t short_pcs[REC_UNWIND_MAX_FRAMES];
static size_t short_n;
static bool short_trunc;

/* Unwinds a copy that ends halfway up the recursion. */
static void
unwind_short(void)
{
	uint64_t sp = (uint64_t)cap_uc.uc_mcontext.gregs[REG_RSP];
	size_t len = (size_t)(fps[DEPTH / 2] - sp) & ~(size_t)7;

	ck_assert_uint_lt(len, cap_len);
	short_n = unwind_self(short_u, short_t, len, short_pcs, &short_trunc);
}

/*
 * Makes the short unwinder, runs `hook` at the recursion's bottom and
 * sets *c to the unwinder's counters.
 */
static void
short_run(void (*hook)(void), struct counters *c)
{
	short_u = rec_unwind_new(NULL);
	short_t = self_modules(NULL);
	ck_assert_ptr_nonnull(short_u);
	cap_hook = hook;
	level(DEPTH);
	cap_hook = NULL;
	rec_unwind_counters(short_u, count, c);
}

/*
 * The copy ends halfway up the recursion, whose frames still stand: the
 * unwinder reads on from this process's stack and finds every frame.
 */
START_TEST(test_reads_past_the_copy)
{
	struct counters c = { 0 };

	short_run(unwind_short, &c);
	check_chain(short_pcs, short_n);
	ck_assert(!short_trunc);
	ck_assert_uint_eq(c.deep_completed, 1);
	ck_assert_uint_eq(c.stack_truncated, 0);
	/* the same with the reads turned off: truncated halfway */
	ck_assert_int_eq(rec_unwind_set_stack_read(short_u, 0), 0);
	cap_hook = unwind_short;
	level(DEPTH);
	cap_hook = NULL;
	ck_assert(short_trunc);
	ck_assert_uint_lt(short_n, DEPTH + 3);
	ck_assert_uint_gt(short_n, DEPTH / 2);
	rec_unwind_free(short_u);
	sp_modtab_free(short_t);
}
END_TEST

/* What unwind_again() found: the sample unwound again, and after. */
static uint64_t again_pcs[REC_UNWIND_MAX_FRAMES];
static size_t again_n;
static bool again_trunc, tampered_trunc;

/*
 * Unwinds the short copy four times: the first keeps the frames above
 * the copy, the second takes them from there; the third finds level 8's
 * saved BP changed (a word the kept frames read), the fourth finds it
 * back.
 */
static void
unwind_again(void)
{
	uint64_t *slot = (uint64_t *)fps[8], was = *slot;

	unwind_short();
	unwind_short();
	memcpy(again_pcs, short_pcs, short_n * sizeof(*short_pcs));
	again_n = short_n;
	again_trunc = short_trunc;
	*slot = 8; /* level 9's CFA then lies outside any stack */
	unwind_short();
	*slot = was;
	tampered_trunc = short_trunc;
	unwind_short();
}

/*
 * The frames above the copy are kept (deepcache.h): the next sample of
 * the same stack takes them from there, the same frames; where a word
 * they were found with no longer holds, the stack is walked again
 * without them, and the changed BP is refused.
 */
START_TEST(test_cached_outer_frames)
{
	struct counters c = { 0 };

	short_run(unwind_again, &c);
	check_chain(again_pcs, again_n);
	ck_assert(!again_trunc);
	ck_assert(tampered_trunc);
	check_chain(short_pcs, short_n);
	ck_assert(!short_trunc);
	ck_assert_uint_eq(c.deep_completed, 3);
	ck_assert_uint_eq(c.deep_cached, 2);
	rec_unwind_free(short_u);
	sp_modtab_free(short_t);
}
END_TEST

/*
 * Without the executable in the module table there is no CFI for the
 * test's own frames: each such step follows the frame pointer (this file
 * is built with frame pointers under the sanitizers) and is counted.
 */
/* The index in cap_regs (perf mask order) of perf register `pr`. */
static size_t
reg_index(int pr)
{
	return (size_t)__builtin_popcountll(REC_UNWIND_REGS_MASK &
					    ((1ULL << pr) - 1));
}

/* Where the made-up JIT code lies: mapped by nobody in this process. */
#define JIT_LO 0x100000000000ULL
#define JIT_LOCALS 0x3000 /* each JIT frame's locals */
#define JIT_FRAME (JIT_LOCALS + 16)

/*
 * A stack with two frame-pointer frames of JIT code below the captured
 * one, as HotSpot's -XX:+PreserveFramePointer lays them out: locals
 * (holding stack addresses, as spilled pointers do), the caller's rbp,
 * the return address.  Fills regs for a sample in the first frame and
 * returns the copy's length.
 */
static size_t
jit_stack(uint8_t *buf, uint64_t *regs)
{
	uint64_t sp = (uint64_t)cap_uc.uc_mcontext.gregs[REG_RSP];
	uint64_t s = sp - 2 * JIT_FRAME, w;
	size_t i;

	for (i = 0; i < 2 * JIT_FRAME; i += 8) {
		w = s + i + 8;
		memcpy(buf + i, &w, 8);
	}
	w = s + 2 * JIT_FRAME - 16; /* frame A's rbp -> frame B's */
	memcpy(buf + JIT_LOCALS, &w, 8);
	w = JIT_LO + 0x1040; /* A returns into B */
	memcpy(buf + JIT_LOCALS + 8, &w, 8);
	w = (uint64_t)cap_uc.uc_mcontext.gregs[REG_RBP];
	memcpy(buf + JIT_FRAME + JIT_LOCALS, &w, 8);
	w = (uint64_t)cap_uc.uc_mcontext.gregs[REG_RIP]; /* B returns here */
	memcpy(buf + JIT_FRAME + JIT_LOCALS + 8, &w, 8);
	memcpy(buf + 2 * JIT_FRAME, cap_stack, cap_len);
	memcpy(regs, cap_regs, cap_nregs * sizeof(*regs));
	regs[reg_index(6)] = s + JIT_LOCALS; /* BP */
	regs[reg_index(7)] = s;              /* SP */
	regs[reg_index(8)] = JIT_LO + 0x10;  /* IP */
	return 2 * JIT_FRAME + cap_len;
}

/*
 * JIT code has no CFI and lies in anonymous memory (or in a module
 * without a file, "//anon"): the unwinder steps through its frames by
 * their frame pointers, with the stack pointer right, and goes on with
 * CFI in the captured frames, to the end.  Each pass twice: libunwind
 * caches the frames' steps by pc.
 */
START_TEST(test_jit_frames)
{
	static uint8_t buf[2 * JIT_FRAME + COPY_MAX];
	uint64_t regs[24], pcs[REC_UNWIND_MAX_FRAMES];
	struct rec_unwind *u = NULL;
	struct sp_modtab *t = NULL;
	struct sp_module m;
	size_t len, n;
	uint32_t id;
	bool trunc;
	int pass, d;

	level(DEPTH);
	len = jit_stack(buf, regs);
	for (pass = 0; pass < 4; pass++) {
		if (pass % 2 == 0) {
			u = rec_unwind_new(NULL);
			t = self_modules(NULL);
		}
		if (pass == 0) {
			ck_assert_int_eq(rec_unwind_add_code(u, getpid(),
							     JIT_LO,
							     JIT_LO + 0x2000),
					 0);
		} else if (pass == 2) {
			memset(&m, 0, sizeof(m));
			m.pid = getpid();
			m.start = JIT_LO;
			m.end = JIT_LO + 0x2000;
			m.file_offset = JIT_LO;
			m.path = "//anon";
			m.path_len = strlen(m.path);
			ck_assert_int_eq(sp_modtab_intern(t, &m, NULL, &id), 0);
		}
		n = rec_unwind_unwind(u, t, getpid(), regs,
				      REC_UNWIND_REGS_MASK, buf, len, pcs,
				      REC_UNWIND_MAX_FRAMES, &trunc);
		ck_assert_uint_ge(n, DEPTH + 5);
		ck_assert_uint_eq(pcs[0], JIT_LO + 0x10);
		ck_assert_uint_eq(pcs[1], JIT_LO + 0x103f);
		ck_assert_uint_eq(pcs[2] + 1,
				  (uint64_t)cap_uc.uc_mcontext.gregs[REG_RIP]);
		ck_assert_uint_eq(pcs[3] + 1, cap_ra);
		for (d = 0; d <= DEPTH; d++)
			ck_assert_uint_eq(pcs[4 + d] + 1, ras[d]);
		ck_assert(!trunc);
		if (pass % 2 == 1) {
			rec_unwind_free(u);
			sp_modtab_free(t);
		}
	}
}
END_TEST

/* Reaching `max` frames before the root is a truncation, counted. */
START_TEST(test_max_frames)
{
	struct rec_unwind *u = rec_unwind_new(NULL);
	struct sp_modtab *t = self_modules(NULL);
	uint64_t pcs[5];
	struct counters c = { 0 };
	bool trunc;
	size_t n;

	level(DEPTH);
	n = rec_unwind_unwind(u, t, getpid(), cap_regs, REC_UNWIND_REGS_MASK,
			      cap_stack, cap_len, pcs, 5, &trunc);
	ck_assert_uint_eq(n, 5);
	ck_assert(trunc);
	ck_assert_uint_eq(pcs[1] + 1, cap_ra);
	rec_unwind_counters(u, count, &c);
	ck_assert_uint_eq(c.too_many, 1);
	rec_unwind_free(u);
	sp_modtab_free(t);
}
END_TEST

START_TEST(test_fallback_counted)
{
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct rec_unwind *u = rec_unwind_new(NULL);
	struct sp_modtab *t;
	uint64_t pcs[REC_UNWIND_MAX_FRAMES];
	struct counters c = { 0 };
	uint64_t missed = 0;
	bool trunc;
	size_t n;

	ck_assert_int_gt(len, 0);
	exe[len] = 0;
	t = self_modules(exe);
	level(DEPTH);
	unwind_self(u, t, cap_len, pcs, &trunc);
	ck_assert(rec_unwind_missed_module(u, &missed));
	ck_assert_uint_ne(missed, 0);
	rec_unwind_counters(u, count, &c);
	ck_assert_uint_ge(c.fallback_no_module, 1);
	/* The module learnt afterwards serves the next unwind of the pid. */
	add_self_modules(t, NULL, exe);
	n = unwind_self(u, t, cap_len, pcs, &trunc);
	ck_assert(!rec_unwind_missed_module(u, &missed));
	check_chain(pcs, n);
	ck_assert(!trunc);
	rec_unwind_free(u);
	sp_modtab_free(t);
}
END_TEST

START_TEST(test_missing_input)
{
	struct rec_unwind *u = rec_unwind_new(NULL);
	struct sp_modtab *t = sp_modtab_new();
	uint64_t regs[24] = { 0 }, pcs[4];
	uint8_t stack[64] = { 0 };
	struct counters c = { 0 };
	bool trunc = true;

	ck_assert_uint_eq(rec_unwind_unwind(u, t, 1, NULL, 0xff0fff, stack,
					    sizeof(stack), pcs, 4, &trunc),
			  0);
	ck_assert(!trunc);
	/* a mask without SP */
	ck_assert_uint_eq(rec_unwind_unwind(u, t, 1, regs, 0x100, stack,
					    sizeof(stack), pcs, 4, &trunc),
			  0);
	ck_assert_uint_eq(
	    rec_unwind_unwind(u, t, 1, regs, 0xff0fff, NULL, 0, pcs, 4, &trunc),
	    0);
	rec_unwind_counters(u, count, &c);
	ck_assert_uint_eq(c.no_regs, 2);
	ck_assert_uint_eq(c.no_stack, 1);
	rec_unwind_free(u);
	sp_modtab_free(t);
}
END_TEST

/* An unknown pc with garbage registers ends cleanly, never crashes. */
START_TEST(test_garbage_stack)
{
	struct rec_unwind *u = rec_unwind_new(NULL);
	struct sp_modtab *t = self_modules(NULL);
	uint64_t regs[24], pcs[REC_UNWIND_MAX_FRAMES];
	uint8_t stack[4096];
	bool trunc;
	size_t n, i;

	for (i = 0; i < sizeof(stack); i++)
		stack[i] = (uint8_t)(i * 37 + 11);
	for (i = 0; i < 24; i++)
		regs[i] = 0x1234567 * (i + 1);
	regs[7] = 0x7ff000000000;             /* SP */
	regs[8] = (uint64_t)(uintptr_t)level; /* IP, with CFI */
	n = rec_unwind_unwind(u, t, getpid(), regs, REC_UNWIND_REGS_MASK, stack,
			      sizeof(stack), pcs, REC_UNWIND_MAX_FRAMES,
			      &trunc);
	ck_assert_uint_ge(n, 1);
	ck_assert_uint_le(n, REC_UNWIND_MAX_FRAMES);
	rec_unwind_free(u);
	sp_modtab_free(t);
}
END_TEST

/*
 * Random registers over a random stack mixed with real return addresses
 * and stack pointers: whatever libunwind and the frame-pointer steps make
 * of it, the unwinder stays in bounds and ends, and its own CFI rules
 * (cfirule.h) give what libunwind alone gives.
 */
START_TEST(test_random_stacks)
{
	struct rec_unwind *u = rec_unwind_new(NULL),
			  *lib = rec_unwind_new(NULL);
	struct sp_modtab *t = self_modules(NULL);
	static uint64_t pcs[REC_UNWIND_MAX_FRAMES], lpcs[REC_UNWIND_MAX_FRAMES];
	uint64_t regs[24], words[512], base = 0x7ff000100000;
	unsigned seed = 12345;
	size_t n, ln, i, round;
	bool trunc, ltrunc;

	level(DEPTH);
	for (round = 0; round < 3000; round++) {
		for (i = 0; i < 512; i++) {
			switch (rand_r(&seed) % 4) {
			case 0:
				words[i] = ras[rand_r(&seed) % (DEPTH + 1)];
				break;
			case 1:
				words[i] =
				    base + (uint64_t)(rand_r(&seed) % 4096) * 8;
				break;
			case 2:
				words[i] = 0;
				break;
			default:
				words[i] = ((uint64_t)rand_r(&seed) << 32) ^
					   (uint64_t)rand_r(&seed);
			}
		}
		for (i = 0; i < 24; i++)
			regs[i] = words[rand_r(&seed) % 512];
		regs[6] = base + (uint64_t)(rand_r(&seed) % 512) * 8; /* BP */
		regs[7] = base;                                       /* SP */
		regs[8] = ras[rand_r(&seed) % (DEPTH + 1)] +
			  (uint64_t)(rand_r(&seed) % 64); /* IP */
		/* every third round as a process without modules */
		n = rec_unwind_unwind(u, t, round % 3 ? getpid() : 999999, regs,
				      REC_UNWIND_REGS_MASK,
				      (const uint8_t *)words, sizeof(words),
				      pcs, REC_UNWIND_MAX_FRAMES, &trunc);
		ck_assert_uint_ge(n, 1);
		ck_assert_uint_le(n, REC_UNWIND_MAX_FRAMES);
		rec_unwind_set_own_cfi(lib, false);
		ln = rec_unwind_unwind(lib, t, round % 3 ? getpid() : 999999,
				       regs, REC_UNWIND_REGS_MASK,
				       (const uint8_t *)words, sizeof(words),
				       lpcs, REC_UNWIND_MAX_FRAMES, &ltrunc);
		ck_assert_uint_eq(n, ln);
		ck_assert(trunc == ltrunc);
		ck_assert_mem_eq(pcs, lpcs, n * sizeof(*pcs));
	}
	rec_unwind_free(u);
	rec_unwind_free(lib);
	sp_modtab_free(t);
}
END_TEST

/* The value of counter `key`, 0 when it is not reported. */
struct one_counter {
	const char *key;
	uint64_t v;
};

static void
get_one(const char *key, uint64_t v, void *arg)
{
	struct one_counter *c = arg;

	if (strcmp(key, c->key) == 0)
		c->v = v;
}

static uint64_t
counter(struct rec_unwind *u, const char *key)
{
	struct one_counter c = { key, 0 };

	rec_unwind_counters(u, get_one, &c);
	return c.v;
}

/*
 * The stack captured last, cut at every 8 bytes of its first 4 KiB and
 * whole: the recorder's own CFI rules give libunwind's pcs and
 * truncation (stacks they cannot finish are left to libunwind, as those
 * through a signal frame: `own_used` says whether some are not).
 */
static void
own_matches_libunwind(bool own_used)
{
	struct rec_unwind *own = rec_unwind_new(NULL),
			  *lib = rec_unwind_new(NULL);
	struct sp_modtab *t = self_modules(NULL);
	static uint64_t pcs[REC_UNWIND_MAX_FRAMES], lpcs[REC_UNWIND_MAX_FRAMES];
	size_t len, n, ln;
	bool trunc, ltrunc;

	ck_assert_ptr_nonnull(own);
	ck_assert_ptr_nonnull(lib);
	rec_unwind_set_own_cfi(lib, false);
	/* no reads past the copy: the live stack is not the one captured */
	ck_assert_int_eq(rec_unwind_set_stack_read(own, 0), 0);
	ck_assert_int_eq(rec_unwind_set_stack_read(lib, 0), 0);
	for (len = 8; len <= cap_len; len = len < 4096 ? len + 8 : len + 1) {
		if (len > 4096)
			len = cap_len;
		n = unwind_self(own, t, len, pcs, &trunc);
		ln = unwind_self(lib, t, len, lpcs, &ltrunc);
		ck_assert_uint_eq(n, ln);
		ck_assert(trunc == ltrunc);
		ck_assert_mem_eq(pcs, lpcs, n * sizeof(*pcs));
	}
	ck_assert(own_used == (counter(own, "unwind.own_cfi_samples") > 0));
	ck_assert_uint_eq(counter(lib, "unwind.own_cfi_samples"), 0);
	rec_unwind_free(own);
	rec_unwind_free(lib);
	sp_modtab_free(t);
}

START_TEST(test_own_cfi_matches_libunwind)
{
	struct sigaction sa;

	level(DEPTH);
	own_matches_libunwind(true);
	/* through the signal trampoline, which libunwind steps */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	raise_here();
	own_matches_libunwind(false);
}
END_TEST

/*
 * A process seen anew (forgotten, as at exec) finds the rules read for
 * the first: they are kept per file, not per process, so it reads none.
 */
START_TEST(test_own_cfi_rules_per_file)
{
	struct rec_unwind *u = rec_unwind_new(NULL);
	struct sp_modtab *t = self_modules(NULL);
	uint64_t pcs[REC_UNWIND_MAX_FRAMES], read;
	bool trunc;
	size_t n;

	ck_assert_ptr_nonnull(u);
	level(DEPTH);
	n = unwind_self(u, t, cap_len, pcs, &trunc);
	check_chain(pcs, n);
	read = counter(u, "unwind.own_cfi_rules_read");
	ck_assert_uint_gt(read, 0);
	ck_assert_uint_eq(counter(u, "unwind.own_cfi_samples"), 1);
	rec_unwind_forget_process(u, getpid());
	n = unwind_self(u, t, cap_len, pcs, &trunc);
	check_chain(pcs, n);
	ck_assert(!trunc);
	ck_assert_uint_eq(counter(u, "unwind.own_cfi_rules_read"), read);
	ck_assert_uint_eq(counter(u, "unwind.own_cfi_samples"), 2);
	rec_unwind_free(u);
	sp_modtab_free(t);
}
END_TEST

/* ------------------------------------------------------------ elfcfi */

START_TEST(test_elfcfi_self)
{
	struct rec_mapped_cache *c = rec_mapped_cache_new(NULL);
	struct sp_modtab *t = self_modules(NULL);
	const struct rec_mapped *f, *again;
	const struct sp_module *m;
	struct sp_frame fr;
	uint64_t pc = (uint64_t)(uintptr_t)level, bias, word, code;

	sp_modtab_resolve(t, getpid(), pc, SP_FRAME_USER, &fr);
	ck_assert_uint_ne(fr.module_id, SP_NONE);
	m = sp_modtab_get(t, fr.module_id);
	f = rec_mapped_get(c, m, getpid());
	ck_assert_ptr_nonnull(f);
	ck_assert(f->has_hdr);
	ck_assert_uint_gt(f->fde_count, 0);
	again = rec_mapped_get(c, m, getpid());
	ck_assert_ptr_eq(f, again);
	bias = rec_mapped_bias(f, m);
	/* the file's bytes at the function equal the code in memory */
	ck_assert_int_eq(rec_mapped_read(f, pc - bias, &word, sizeof(word)), 0);
	memcpy(&code, (const void *)(uintptr_t)pc, sizeof(code));
	ck_assert_uint_eq(word, code);
	ck_assert_int_lt(rec_mapped_read(f, f->max_vaddr + 4096, &word, 8), 0);
	ck_assert_int_lt(rec_mapped_read(f, UINT64_MAX - 3, &word, 8), 0);
	rec_mapped_cache_free(c);
	sp_modtab_free(t);
}
END_TEST

/*
 * A module whose path the recorder cannot open (another mount namespace,
 * a deleted file) is read through /proc/PID/map_files/START-END, which
 * needs CAP_SYS_ADMIN: checked only as root.
 */
START_TEST(test_elfcfi_map_files)
{
	struct rec_mapped_cache *c = rec_mapped_cache_new(NULL);
	struct sp_modtab *t = self_modules(NULL);
	uint64_t pc = (uint64_t)(uintptr_t)level;
	struct sp_module m;
	struct sp_frame fr;

	if (geteuid() != 0) {
		unit_skip("map_files needs root");
	} else {
		sp_modtab_resolve(t, getpid(), pc, SP_FRAME_USER, &fr);
		m = *sp_modtab_get(t, fr.module_id);
		m.path = "/nonexistent/elsewhere/check_record_unwind";
		m.path_len = strlen(m.path);
		ck_assert_ptr_nonnull(rec_mapped_get(c, &m, getpid()));
	}
	rec_mapped_cache_free(c);
	sp_modtab_free(t);
}
END_TEST

START_TEST(test_elfcfi_not_elf)
{
	struct rec_mapped_cache *c = rec_mapped_cache_new(NULL);
	char path[] = "/tmp/sp-unw-XXXXXX";
	int fd = mkstemp(path);
	struct sp_module m;
	struct stat st;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "\177ELF\2\1\1garbage", 15), 15);
	fstat(fd, &st);
	close(fd);
	memset(&m, 0, sizeof(m));
	m.start = 0x1000;
	m.end = 0x2000;
	m.inode = st.st_ino;
	m.path = path;
	m.path_len = strlen(path);
	ck_assert_ptr_null(rec_mapped_get(c, &m, getpid()));
	ck_assert_ptr_null(rec_mapped_get(c, &m, getpid()));
	/* a path that is not there, and a wrong inode */
	m.path = "/nonexistent/file";
	ck_assert_ptr_null(rec_mapped_get(c, &m, 0));
	m.path = "/proc/self/exe";
	m.inode = 1;
	ck_assert_ptr_null(rec_mapped_get(c, &m, 0));
	unlink(path);
	rec_mapped_cache_free(c);
}
END_TEST

/* Truncated copies of a real ELF file: parsed or refused, never overread. */
START_TEST(test_elfcfi_truncated)
{
	static const double cuts[] = { 0.0001, 0.001, 0.01, 0.1,  0.3,
				       0.5,    0.7,   0.9,  0.999 };
	FILE *in = fopen("/proc/self/exe", "rb");
	char path[] = "/tmp/sp-unw-XXXXXX";
	const struct rec_mapped *f;
	struct rec_mapped_cache *c;
	struct sp_module m;
	struct stat st;
	uint8_t *img, word[8];
	size_t size, len, i;
	uint64_t v;
	int fd;

	ck_assert_ptr_nonnull(in);
	fseek(in, 0, SEEK_END);
	size = (size_t)ftell(in);
	rewind(in);
	ck_assert_ptr_nonnull(img = malloc(size));
	ck_assert_uint_eq(fread(img, 1, size, in), size);
	fclose(in);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		len = (size_t)((double)size * cuts[i]);
		ck_assert_int_ge(fd = mkstemp(path), 0);
		ck_assert_int_eq(write(fd, img, len), (ssize_t)len);
		fstat(fd, &st);
		close(fd);
		memset(&m, 0, sizeof(m));
		m.end = 0x1000;
		m.inode = st.st_ino;
		m.path = path;
		m.path_len = strlen(path);
		c = rec_mapped_cache_new(NULL);
		if ((f = rec_mapped_get(c, &m, 0))) {
			for (v = f->min_vaddr; v < f->max_vaddr; v += 4093)
				rec_mapped_read(f, v, word, sizeof(word));
			/* the search table lies wholly inside the file */
			if (f->has_hdr)
				ck_assert(f->table >= f->img &&
					  f->fde_count * 8 <=
					      f->size -
						  (size_t)(f->table - f->img));
		}
		rec_mapped_cache_free(c);
		unlink(path);
		memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	}
	free(img);
}
END_TEST

/*
 * An .eh_frame of one CIE ("zR", FDE pointers in encoding `enc`) and one
 * FDE whose initial location is the `n` bytes `loc`; its length.
 */
static size_t
eh_section(uint8_t *b, uint8_t enc, const uint8_t *loc, size_t n)
{
	static const uint8_t cie[] = {
		0x10, 0,   0,   0,                   /* length */
		0,    0,   0,   0,                   /* CIE id */
		1,    'z', 'R', 0, 1, 0x78, 0x10, 1, /* ... augmentation 1 */
	};
	uint32_t len = (uint32_t)(4 + n + 1), ptr = 0x18;
	size_t at = sizeof(cie) + 4;

	memcpy(b, cie, sizeof(cie));
	b[sizeof(cie)] = enc;
	b[sizeof(cie) + 1] = b[sizeof(cie) + 2] = b[sizeof(cie) + 3] = 0;
	memcpy(b + at, &len, 4);
	memcpy(b + at + 4, &ptr, 4); /* back to the CIE at 0 */
	memcpy(b + at + 8, loc, n);
	b[at + 8 + n] = 0;            /* address range */
	memset(b + at + 9 + n, 0, 4); /* terminator */
	return at + 13 + n;
}

/*
 * Issue 25: FDE locations as LEB128, read by varint.h's reader: ten bytes
 * that do not fit 64 bits are refused (ehframe.c took them as all ones),
 * padding past ten bytes is accepted, DW_EH_PE_sleb128 is signed (it was
 * read as unsigned).
 */
START_TEST(test_ehframe_leb_locations)
{
	static const uint8_t ten[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0x7f };
	static const uint8_t padded[] = { 0x90, 0xa0, 0x80, 0x80, 0x80, 0x80,
					  0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
	static const uint8_t minus16[] = { 0x70 };
	uint8_t b[64];
	int32_t *t = NULL;
	size_t len, n;

	len = eh_section(b, 0x01, ten, sizeof(ten));
	ck_assert_int_eq(rec_ehframe_index(b, len, 0x1000, &t, &n), -ENOENT);
	len = eh_section(b, 0x01, padded, sizeof(padded));
	ck_assert_int_eq(rec_ehframe_index(b, len, 0x1000, &t, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(t[0], 0x1010 - 0x1000);
	ck_assert_int_eq(t[1], 0x14);
	free(t);
	/* pc-relative sleb128: -16 from the field at offset 0x1c */
	len = eh_section(b, 0x19, minus16, sizeof(minus16));
	ck_assert_int_eq(rec_ehframe_index(b, len, 0x1000, &t, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(t[0], 0x1c - 16);
	free(t);
}
END_TEST

/* A module of the file at `path`, with its inode. */
static void
module_at(const char *path, struct sp_module *m)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	memset(m, 0, sizeof(*m));
	m->end = 0x1000;
	m->inode = st.st_ino;
	m->path = path;
	m->path_len = strlen(path);
}

/* Writes the smallest ELF file the cache accepts: one PT_LOAD. */
static void
tiny_elf(const char *path)
{
	struct {
		Elf64_Ehdr eh;
		Elf64_Phdr ph;
	} img;
	FILE *f = fopen(path, "wb");

	memset(&img, 0, sizeof(img));
	memcpy(img.eh.e_ident, ELFMAG, SELFMAG);
	img.eh.e_ident[EI_CLASS] = ELFCLASS64;
	img.eh.e_ident[EI_DATA] = ELFDATA2LSB;
	img.eh.e_phoff = sizeof(img.eh);
	img.eh.e_phentsize = sizeof(img.ph);
	img.eh.e_phnum = 1;
	img.ph.p_type = PT_LOAD;
	img.ph.p_flags = PF_R | PF_X;
	img.ph.p_filesz = img.ph.p_memsz = sizeof(img);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(&img, sizeof(img), 1, f), 1);
	fclose(f);
}

/*
 * Files are held while a process holds them, then wait on a bounded idle
 * list; a file deleted meanwhile is unmapped as soon as it is given back
 * (issue 24: sp-record -f kept every binary that ever ran mapped, deleted
 * ones too).
 */
START_TEST(test_elfcfi_bounded)
{
	enum { N = REC_MAPPED_IDLE_MAX + 8 };
	struct rec_mapped_cache *c = rec_mapped_cache_new(NULL);
	const struct rec_mapped *f[N], *again;
	char dir[] = "/tmp/sp-unw-XXXXXX", path[N][64];
	struct sp_module m;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (i = 0; i < N; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/bin%zu", dir, i);
		tiny_elf(path[i]);
		module_at(path[i], &m);
		ck_assert_ptr_nonnull(f[i] = rec_mapped_get(c, &m, 0));
		ck_assert_uint_eq(rec_mapped_mapped(c), i + 1);
	}
	/* Two holders: the first put keeps it. */
	module_at(path[0], &m);
	ck_assert_ptr_eq(rec_mapped_get(c, &m, 0), f[0]);
	rec_mapped_put(c, f[0]);
	for (i = 0; i < N; i++)
		rec_mapped_put(c, f[i]);
	ck_assert_uint_eq(rec_mapped_mapped(c), REC_MAPPED_IDLE_MAX);
	/* The most recent is still mapped on the idle list: found, not mapped
	 * anew. */
	module_at(path[N - 1], &m);
	ck_assert_ptr_nonnull(again = rec_mapped_get(c, &m, 0));
	ck_assert_uint_eq(rec_mapped_mapped(c), REC_MAPPED_IDLE_MAX);
	/* Deleted while held: unmapped when given back. */
	ck_assert_int_eq(unlink(path[N - 1]), 0);
	rec_mapped_put(c, again);
	ck_assert_uint_eq(rec_mapped_mapped(c), REC_MAPPED_IDLE_MAX - 1);
	for (i = 0; i < N - 1; i++)
		unlink(path[i]);
	rmdir(dir);
	rec_mapped_cache_free(c);
}
END_TEST

static Suite *
unwind_suite(void)
{
	Suite *s = suite_create("record_unwind");
	TCase *tc = tcase_create("self");
	TCase *te = tcase_create("elfcfi");

	tcase_add_test(tc, test_self_unwind);
	tcase_add_test(tc, test_signal_frame);
	tcase_add_test(tc, test_short_copy_is_truncated);
	tcase_add_test(tc, test_reads_past_the_copy);
	tcase_add_test(tc, test_cached_outer_frames);
	tcase_add_test(tc, test_max_frames);
	tcase_add_test(tc, test_fallback_counted);
	tcase_add_test(tc, test_missing_input);
	tcase_add_test(tc, test_garbage_stack);
	tcase_add_test(tc, test_random_stacks);
	tcase_add_test(tc, test_own_cfi_matches_libunwind);
	tcase_add_test(tc, test_own_cfi_rules_per_file);
	tcase_add_test(tc, test_jit_frames);
	suite_add_tcase(s, tc);
	tcase_add_test(te, test_elfcfi_self);
	tcase_add_test(te, test_elfcfi_map_files);
	tcase_add_test(te, test_elfcfi_not_elf);
	tcase_add_test(te, test_elfcfi_truncated);
	tcase_add_test(te, test_ehframe_leb_locations);
	tcase_add_test(te, test_elfcfi_bounded);
	suite_add_tcase(s, te);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(unwind_suite());

	return unit_run(sr);
}
