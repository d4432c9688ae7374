/*
 * check_record_unwind_perf.c: the DWARF unwinder on real samples.  Builds
 * tests/programs/unw_chains.c with -O2 -fomit-frame-pointer (and its
 * shared library), records it for one second with perf_event_open
 * (REGS_USER and STACK_USER, as sp-record does), unwinds every sample and
 * checks, with the program's own symbol table, that at least 99% reach
 * main or their thread's start function through the expected chain.
 *
 * Without perf_event_open the test is skipped (exit 77), unless CI=true.
 * Environment: SP_UNW_SECONDS (recording length), SP_UNW_STACK (bytes of
 * stack per sample), SP_UNW_BENCH=1 (also time repeated warm passes and
 * print microseconds per sample; see bench/unwind-cost.sh).
 */
#include "tests/unit/ck.h"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/modtab.h"
#include "common/spool.h"
#include "sp-record/unwind/mapped.h"
#include "sp-record/unwind/unwind.h"
#include "tests/unit/skip.h"

#define RING_PAGES 512
#define MAX_CPUS 64
#define MAX_SAMPLES 200000

struct sample {
	int32_t pid;
	uint64_t regs[24];
	uint8_t *stack;
	size_t len;
};

struct ring {
	int fd;
	uint8_t *base;
	size_t size; /* data bytes, a power of two */
};

struct rec {
	char dir[64], exe[128], lib[128];
	pid_t child;
	struct ring rings[MAX_CPUS];
	int nrings;
	struct sp_modtab *mods;
	struct sample *samples;
	size_t nsamples;
	uint8_t tmp[65536];
};

static const char *
env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

static bool
build_programs(struct rec *r)
{
	char cmd[1024];
	const char *top = env_or("SP_TOP", ".");

	snprintf(r->dir, sizeof(r->dir), "/tmp/sp-unw.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(r->dir));
	snprintf(r->exe, sizeof(r->exe), "%s/unw_chains", r->dir);
	snprintf(r->lib, sizeof(r->lib), "%s/libunw_lib.so", r->dir);
	snprintf(cmd, sizeof(cmd),
		 "cc -O2 -g -fomit-frame-pointer -fPIC -shared -o %s "
		 "%s/tests/programs/unw_lib.c && "
		 "cc -O2 -g -fomit-frame-pointer -pthread -o %s "
		 "%s/tests/programs/unw_chains.c -L%s -lunw_lib "
		 "-Wl,-rpath,%s",
		 r->lib, top, r->exe, top, r->dir, r->dir);
	return system(cmd) == 0;
}

/*
 * Opens the sampling event of `cpu`, sampling kernel time too where that
 * is allowed (its samples carry user registers from the kernel entry, the
 * harder case for the unwinder).
 */
static int
perf_open(pid_t pid, int cpu, size_t stack_size)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	a.sample_regs_user = REC_UNWIND_REGS_MASK;
	a.sample_stack_user = (uint32_t)stack_size;
	a.exclude_kernel = 0;
	a.exclude_hv = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.sample_id_all = 1;
	a.inherit = 1;
	a.disabled = 1;
	a.enable_on_exec = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		a.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &a, pid, cpu, -1,
				  PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

/* Forks the program, stopped on a pipe until the events are open. */
static pid_t
spawn(struct rec *r, int *go)
{
	int p[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(p), 0);
	if ((pid = fork()) == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[1]);
		if (read(p[0], &c, 1) == 1)
			execl(r->exe, r->exe, "30", (char *)NULL);
		_exit(127);
	}
	ck_assert_int_gt(pid, 0);
	close(p[0]);
	*go = p[1];
	return pid;
}

static void
add_mmap2(struct rec *r, const uint8_t *p, size_t len)
{
	struct sp_module m;
	uint32_t pid, prot, id;
	uint64_t addr, mlen, pgoff, ino;
	const char *name;

	if (len < 8 + 8 + 24 + 8 + 16 + 8 + 1)
		return;
	memcpy(&pid, p + 8, 4);
	memcpy(&addr, p + 16, 8);
	memcpy(&mlen, p + 24, 8);
	memcpy(&pgoff, p + 32, 8);
	memcpy(&ino, p + 48, 8);
	memcpy(&prot, p + 64, 4);
	name = (const char *)p + 72;
	if (!(prot & PROT_EXEC) || !memchr(name, 0, len - 72))
		return;
	memset(&m, 0, sizeof(m));
	m.pid = (int32_t)pid;
	m.start = addr;
	m.end = addr + mlen;
	m.file_offset = pgoff;
	m.inode = ino;
	m.path = name;
	m.path_len = strlen(name);
	ck_assert_int_eq(sp_modtab_intern(r->mods, &m, NULL, &id), 0);
}

static void
add_sample(struct rec *r, const uint8_t *p, size_t len)
{
	const uint8_t *q = p + 8 + 8, *end = p + len;
	struct sample *s;
	uint64_t abi, size, dyn;
	uint32_t pid;
	size_t nregs = (size_t)__builtin_popcountll(REC_UNWIND_REGS_MASK);

	if (r->nsamples == MAX_SAMPLES || len < 48)
		return;
	memcpy(&pid, q, 4);
	q += 8 + 8; /* pid tid, time */
	memcpy(&abi, q, 8);
	q += 8;
	if (abi != PERF_SAMPLE_REGS_ABI_64 || (size_t)(end - q) < nregs * 8 + 8)
		return;
	s = &r->samples[r->nsamples];
	memcpy(s->regs, q, nregs * 8);
	q += nregs * 8;
	memcpy(&size, q, 8);
	q += 8;
	if (size == 0 || (size_t)(end - q) < size + 8)
		return;
	memcpy(&dyn, q + size, 8);
	if (dyn > size)
		return;
	s->pid = (int32_t)pid;
	s->len = dyn;
	s->stack = malloc(dyn ? dyn : 1);
	ck_assert_ptr_nonnull(s->stack);
	memcpy(s->stack, q, dyn);
	r->nsamples++;
}

static void
drain(struct rec *r, struct ring *g)
{
	struct perf_event_mmap_page *pc = (void *)g->base;
	uint8_t *data = g->base + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pc->data_tail;
	struct perf_event_header h;
	size_t off, first;

	while (tail < head) {
		off = tail & (g->size - 1);
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h))
			break;
		first = g->size - off < h.size ? g->size - off : h.size;
		memcpy(r->tmp, data + off, first);
		memcpy(r->tmp + first, data, h.size - first);
		if (h.type == PERF_RECORD_MMAP2)
			add_mmap2(r, r->tmp, h.size);
		else if (h.type == PERF_RECORD_SAMPLE)
			add_sample(r, r->tmp, h.size);
		tail += h.size;
	}
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
}

static void
drain_all(struct rec *r)
{
	int i;

	for (i = 0; i < r->nrings; i++)
		drain(r, &r->rings[i]);
}

/*
 * Records the program; returns false (after saying why) when
 * perf_event_open is not available.
 */
static bool
record(struct rec *r, double seconds, size_t stack_size)
{
	long pg = sysconf(_SC_PAGESIZE);
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), go, i, st;
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	double waited;

	r->child = spawn(r, &go);
	for (i = 0; i < ncpu && i < MAX_CPUS; i++) {
		struct ring *g = &r->rings[r->nrings];

		if ((g->fd = perf_open(r->child, i, stack_size)) < 0) {
			unit_skip("perf_event_open: %s", strerror(errno));
			kill(r->child, SIGKILL);
			waitpid(r->child, &st, 0);
			return false;
		}
		g->size = (size_t)RING_PAGES * (size_t)pg;
		g->base = mmap(NULL, g->size + (size_t)pg,
			       PROT_READ | PROT_WRITE, MAP_SHARED, g->fd, 0);
		ck_assert_ptr_ne(g->base, MAP_FAILED);
		r->nrings++;
	}
	ck_assert_int_eq(write(go, "g", 1), 1);
	close(go);
	for (waited = 0; waited < seconds; waited += 0.01) {
		nanosleep(&nap, NULL);
		drain_all(r);
	}
	/* Stopped, not exited: [vdso] and map_files stay readable. */
	kill(r->child, SIGSTOP);
	waitpid(r->child, &st, WUNTRACED);
	drain_all(r);
	return true;
}

static void
rec_release(struct rec *r)
{
	char cmd[128];
	size_t i;
	int st;

	if (r->child > 0) {
		kill(r->child, SIGKILL);
		waitpid(r->child, &st, 0);
	}
	for (i = 0; i < (size_t)r->nrings; i++) {
		munmap(r->rings[i].base,
		       r->rings[i].size + (size_t)sysconf(_SC_PAGESIZE));
		close(r->rings[i].fd);
	}
	for (i = 0; i < r->nsamples; i++)
		free(r->samples[i].stack);
	free(r->samples);
	sp_modtab_free(r->mods);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", r->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", r->dir);
}

/* ------------------------------------------------------------ symbols */

struct sym {
	uint64_t addr, size;
	char *name;
};

struct symtab {
	char path[128];
	struct sym *v;
	size_t n;
};

static int
sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void
symtab_load(struct symtab *t, const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym s;
	Elf_Data *d;
	size_t i, n, cap = 0;

	snprintf(t->path, sizeof(t->path), "%s", path);
	elf_version(EV_CURRENT);
	ck_assert_int_ge(fd, 0);
	e = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(e);
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (i = 0; i < n; i++) {
			if (!gelf_getsym(d, (int)i, &s) ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
				continue;
			if (t->n == cap) {
				cap = cap ? 2 * cap : 64;
				t->v = realloc(t->v, cap * sizeof(*t->v));
				ck_assert_ptr_nonnull(t->v);
			}
			t->v[t->n].addr = s.st_value;
			t->v[t->n].size = s.st_size;
			t->v[t->n++].name =
			    strdup(elf_strptr(e, sh.sh_link, s.st_name));
		}
	}
	qsort(t->v, t->n, sizeof(*t->v), sym_cmp);
	elf_end(e);
	close(fd);
}

static void
symtab_release(struct symtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
}

static const char *
symtab_find(const struct symtab *t, uint64_t vaddr)
{
	size_t lo = 0, hi = t->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (t->v[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && vaddr < t->v[lo - 1].addr + t->v[lo - 1].size)
		return t->v[lo - 1].name;
	return NULL;
}

/* ------------------------------------------------------------ judging */

struct judge {
	struct sp_modtab *mods;
	struct rec_mapped_cache *files;
	struct symtab syms[2]; /* the program, its library */
};

/* The test's own function at `pc`, or NULL for any other code. */
static const char *
name_of(struct judge *j, int32_t pid, uint64_t pc)
{
	const struct sp_module *m;
	const struct rec_mapped *f;
	struct sp_frame fr;
	int i;

	sp_modtab_resolve(j->mods, pid, pc, SP_FRAME_USER, &fr);
	if (fr.module_id == SP_NONE)
		return NULL;
	m = sp_modtab_get(j->mods, fr.module_id);
	for (i = 0; i < 2; i++) {
		if (strcmp(m->path, j->syms[i].path) != 0)
			continue;
		if (!(f = rec_mapped_get(j->files, m, pid)))
			return NULL;
		return symtab_find(&j->syms[i], pc - rec_mapped_bias(f, m));
	}
	return NULL;
}

/* The chains the program runs, root first; "recurse" stands for 121. */
static const char *const chains[] = {
	"qsort_thread run_qsort cmp_ints cmp_key",
	"deep_thread recurse leaf_work",
	"shlib_thread lib_work lib_inner shlib_cb",
	"_start main sig_loop on_signal handler_work",
	"_start main sig_loop sig_spin",
};
#define NCHAINS (sizeof(chains) / sizeof(chains[0]))
#define RECURSIONS 121

/*
 * Writes the sample's named frames root first into out, runs of recurse
 * as one "recurse" (their count in *nrec), and returns how many.
 */
static size_t
named_chain(struct judge *j, const struct sample *s, const uint64_t *pcs,
	    size_t n, const char **out, size_t max, size_t *nrec)
{
	const char *name;
	size_t k = 0, i;

	*nrec = 0;
	for (i = n; i-- > 0;) {
		if (!(name = name_of(j, s->pid, pcs[i])))
			continue;
		if (strcmp(name, "recurse") == 0 && (*nrec)++ > 0)
			continue;
		if (k < max)
			out[k++] = name;
	}
	return k;
}

/* Prints " module+offset" (module basename, file offset) for a pc. */
static void
print_pc(struct judge *j, int32_t pid, uint64_t pc)
{
	const struct sp_module *m;
	const char *base;
	struct sp_frame fr;

	sp_modtab_resolve(j->mods, pid, pc, SP_FRAME_USER, &fr);
	if (fr.module_id == SP_NONE) {
		printf(" %#" PRIx64, pc);
		return;
	}
	m = sp_modtab_get(j->mods, fr.module_id);
	base = strrchr(m->path, '/');
	printf(" %s+%#" PRIx64, base ? base + 1 : m->path, fr.rel_ip);
}

/*
 * Returns 1 + the index of the chain the frames follow (a prefix of it,
 * with the full 121 recursions unless they end the sample), 0 if none;
 * *full tells whether the whole chain is there.
 */
static size_t
match_chain(const char **names, size_t k, size_t nrec, bool *full)
{
	char buf[256];
	const char *tok;
	size_t c, i;
	char *save, *p;
	bool ok;

	for (c = 0; c < NCHAINS; c++) {
		snprintf(buf, sizeof(buf), "%s", chains[c]);
		ok = k > 0;
		for (i = 0, p = buf; ok && i < k; i++, p = NULL) {
			tok = strtok_r(p, " ", &save);
			ok = tok && strcmp(tok, names[i]) == 0;
			if (ok && strcmp(tok, "recurse") == 0)
				ok = nrec == RECURSIONS || i == k - 1;
		}
		if (ok) {
			*full = strtok_r(NULL, " ", &save) == NULL;
			return c + 1;
		}
	}
	return 0;
}

struct verdict {
	size_t total, ok, full[NCHAINS], shown;
};

static void
judge_sample(struct judge *j, const struct sample *s, const uint64_t *pcs,
	     size_t n, bool trunc, struct verdict *v)
{
	const char *names[64];
	size_t k, nrec, c, i;
	bool full = false;

	v->total++;
	k = named_chain(j, s, pcs, n, names, 64, &nrec);
	c = match_chain(names, k, nrec, &full);
	if (c && !trunc) {
		v->ok++;
		if (full)
			v->full[c - 1]++;
		return;
	}
	if (v->shown++ >= 5)
		return;
	printf("bad sample (%zu pcs%s, %zu recurse):", n,
	       trunc ? ", truncated" : "", nrec);
	for (i = 0; i < k; i++)
		printf(" %s", names[i]);
	printf("\n   pcs:");
	for (i = 0; i < n && i < 12; i++)
		print_pc(j, s->pid, pcs[i]);
	printf("\n");
}

static void
print_counter(const char *key, uint64_t value, void *arg)
{
	(void)arg;
	printf("  %s %" PRIu64 "\n", key, value);
}

static double
cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Unwinds every sample once and judges it when v is not NULL; returns the
 * CPU time the whole pass took.
 */
static double
unwind_pass(struct rec *r, struct rec_unwind *u, struct judge *j,
	    struct verdict *v, size_t *frames)
{
	static uint64_t pcs[REC_UNWIND_MAX_FRAMES];
	double t0 = cpu_seconds();
	bool trunc;
	size_t i, n;

	*frames = 0;
	for (i = 0; i < r->nsamples; i++) {
		const struct sample *s = &r->samples[i];

		n = rec_unwind_unwind(u, r->mods, s->pid, s->regs,
				      REC_UNWIND_REGS_MASK, s->stack, s->len,
				      pcs, REC_UNWIND_MAX_FRAMES, &trunc);
		*frames += n;
		if (v)
			judge_sample(j, s, pcs, n, trunc, v);
	}
	return cpu_seconds() - t0;
}

/* Best of five warm passes over the samples of `lo` to `hi` frames. */
static void
bench_range(struct rec *r, struct rec_unwind *u, const size_t *nf, size_t lo,
	    size_t hi)
{
	static uint64_t pcs[REC_UNWIND_MAX_FRAMES];
	double best = 1e9, t;
	size_t pass, i, count = 0, frames = 0;
	bool trunc;

	for (pass = 0; pass < 5; pass++) {
		count = frames = 0;
		t = cpu_seconds();
		for (i = 0; i < r->nsamples; i++) {
			const struct sample *s = &r->samples[i];

			if (nf[i] < lo || nf[i] > hi)
				continue;
			frames += rec_unwind_unwind(
			    u, r->mods, s->pid, s->regs, REC_UNWIND_REGS_MASK,
			    s->stack, s->len, pcs, REC_UNWIND_MAX_FRAMES,
			    &trunc);
			count++;
		}
		t = cpu_seconds() - t;
		if (t < best)
			best = t;
	}
	if (count)
		printf("warm %zu-%zu frames: %zu samples, %.1f frames/sample, "
		       "%.2f us/sample, %.3f us/frame\n",
		       lo, hi, count, (double)frames / (double)count,
		       best * 1e6 / (double)count, best * 1e6 / (double)frames);
}

static void
bench(struct rec *r, struct rec_unwind *u)
{
	static uint64_t pcs[REC_UNWIND_MAX_FRAMES];
	size_t *nf = calloc(r->nsamples + 1, sizeof(*nf)), i;
	bool trunc;

	ck_assert_ptr_nonnull(nf);
	for (i = 0; i < r->nsamples; i++)
		nf[i] = rec_unwind_unwind(
		    u, r->mods, r->samples[i].pid, r->samples[i].regs,
		    REC_UNWIND_REGS_MASK, r->samples[i].stack,
		    r->samples[i].len, pcs, REC_UNWIND_MAX_FRAMES, &trunc);
	bench_range(r, u, nf, 0, REC_UNWIND_MAX_FRAMES);
	bench_range(r, u, nf, 0, 24);
	bench_range(r, u, nf, 15, 24);
	bench_range(r, u, nf, 25, REC_UNWIND_MAX_FRAMES);
	free(nf);
}

START_TEST(test_chains_unwind_to_root)
{
	struct rec *r = calloc(1, sizeof(*r));
	struct judge j;
	struct verdict v;
	struct rec_unwind *u = rec_unwind_new(NULL);
	double secs = atof(env_or("SP_UNW_SECONDS", "1")), cold;
	size_t stack = (size_t)atol(env_or("SP_UNW_STACK", "32768"));
	size_t frames, c;

	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_nonnull(u);
	r->mods = sp_modtab_new();
	r->samples = calloc(MAX_SAMPLES, sizeof(*r->samples));
	ck_assert_ptr_nonnull(r->samples);
	ck_assert_msg(build_programs(r), "cannot build unw_chains");
	if (!record(r, secs, stack)) {
		ck_assert_msg(strcmp(env_or("CI", ""), "true") != 0,
			      "perf_event_open must work when CI=true");
		rec_release(r);
		free(r);
		rec_unwind_free(u);
		return;
	}
	memset(&j, 0, sizeof(j));
	memset(&v, 0, sizeof(v));
	j.mods = r->mods;
	j.files = rec_mapped_cache_new(NULL);
	symtab_load(&j.syms[0], r->exe);
	symtab_load(&j.syms[1], r->lib);
	cold = unwind_pass(r, u, &j, &v, &frames);
	printf("%zu samples, %zu (%.2f%%) unwound to their root; cold %.2f "
	       "us/sample incl. judging\n",
	       v.total, v.ok,
	       v.total ? 100.0 * (double)v.ok / (double)v.total : 0.0,
	       v.total ? cold * 1e6 / (double)v.total : 0.0);
	for (c = 0; c < NCHAINS; c++)
		printf("  %4zu complete: %s\n", v.full[c], chains[c]);
	rec_unwind_counters(u, print_counter, NULL);
	if (getenv("SP_UNW_BENCH"))
		bench(r, u);
	fflush(stdout);
	ck_assert_uint_ge(v.total, 100);
	ck_assert_uint_ge(v.ok * 100, v.total * 99);
	for (c = 0; c < NCHAINS; c++)
		ck_assert_msg(v.full[c] >= 3, "too few samples of '%s'",
			      chains[c]);
	symtab_release(&j.syms[0]);
	symtab_release(&j.syms[1]);
	rec_mapped_cache_free(j.files);
	rec_unwind_free(u);
	rec_release(r);
	free(r);
}
END_TEST

static Suite *
unwind_perf_suite(void)
{
	Suite *s = suite_create("record_unwind_perf");
	TCase *tc = tcase_create("perf");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_chains_unwind_to_root);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(unwind_perf_suite());

	return unit_run(sr);
}
