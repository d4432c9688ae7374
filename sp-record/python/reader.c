/* reader.c: Python stacks read at the sample and tied to it (reader.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/ext_py.h"
#include "common/grow.h"
#include "common/htab.h"
#include "sp-record/python/reader.h"
#include "sp-record/python/pybpf.h"
#include "sp-record/python/pyfind.h"
#include "sp-record/python/pyids.h"
#include "sp-record/python/pymem.h"
#include "sp-record/python/pystack.h"
#include "sp-record/python/pytie.h"
#include "common/banned.h"

/* Kept stacks never taken (samples dropped) are let go past this many. */
#define PENDING_MAX 65536

/*
 * A process whose reads meet a bad pointer (an address outside its
 * writable mappings, a short read) this many times in a row, and still
 * after its maps were read again, is given up: its samples go out with
 * an empty truncated Python stack, unread, but one in RETRY_EVERY is
 * read again, and one read without a fault takes it back (a chain that
 * healed).  An exec makes a new reader.
 */
#define GIVE_UP_AFTER 64
#define RETRY_EVERY 1024

/* A CPython process and the map from its reader's code ids to ours. */
struct pyproc {
	struct rec_pystack *py;
	uint64_t serial; /* which process this is, for the memo */
	int32_t pid;
	bool bpf;      /* its stacks are read at the sample (pybpf.h) */
	uint32_t *map; /* reader's code id -> pycode id + 1; 0: none yet */
	size_t amap;
	uint32_t fails;   /* reads in a row that met a bad pointer */
	bool fresh;       /* ... its maps were read again since the first */
	uint32_t skipped; /* samples not read since given up or retried */
	bool gave_up;     /* GIVE_UP_AFTER fails: its samples are not read */
	bool counted;     /* ... counted in st.gave_up once */
};

/*
 * A thread's last stack read by the BPF program, and the node of each
 * suffix of its frames (node[i]: frames i..n-1, node[n] none), kept per
 * thread slot: a thread's next stack mostly shares its outer frames.
 */
#define MEMO_SLOTS 16
struct pymemo {
	uint64_t serial; /* the pyproc's, 0: empty */
	int32_t tid;
	size_t n;
	bool root; /* its outermost frame ends a thread's chain */
	struct pybpf_frame f[PYBPF_MAX_FRAMES];
	uint32_t node[PYBPF_MAX_FRAMES + 1], entries[PYBPF_MAX_FRAMES + 1];
};

/* What procs holds for a process without a reader. */
#define NOT_PYTHON 0     /* refused: a version outside the list, ... */
#define NOT_PYTHON_YET 1 /* no interpreter mapped (yet) */
#define EXECED 2 /* seen to exec, nothing named as Python mapped since */
#define MAPPED 3 /* an interpreter mapped: probed at its next sample */
#define READER(v) ((v) > MAPPED ? (struct pyproc *)(uintptr_t)(v) : NULL)

/* Executables kept in rec_reader's `plain`, at most (then it starts over). */
#define PLAIN_MAX 256

struct pending_key {
	int32_t tid;
	uint32_t pad;
	uint64_t ts;
};

/* A kept stack, packed into a table value. */
#define P_LEAF(v) ((uint32_t)(v))
#define P_ENTRIES(v) ((uint32_t)((v) >> 32) & 0xffffu)
#define P_FLAGS(v) ((uint8_t)((v) >> 48))
#define P_PACK(leaf, entries, flags)                                           \
	((uint64_t)(leaf) | (uint64_t)(entries) << 32 | (uint64_t)(flags) << 48)
/* A flag of ours beside the spool's: the chain was read at the sample. */
#define P_AT_SAMPLE 0x80

struct rec_reader {
	struct rec_spoolout *out;
	struct rec_pyids *ids;
	struct rec_pyfind_files *files; /* module files read, by identity */
	struct rec_pybpf *bpf;          /* borrowed, or NULL */
	struct pymemo *memo;            /* MEMO_SLOTS, with bpf */
	uint64_t serials;               /* pyprocs made */
	struct sp_htab *procs; /* pid -> struct pyproc *, or a marker */
	/*
	 * Executables by identity (device, inode, size, mtime) -> 1 when a
	 * process of it, probed at its first sample after its exec, was
	 * found neither CPython nor with an interpreter mapped, 2 otherwise:
	 * a build's thousand cc1s are then not probed each (reading
	 * /proc/PID/maps and the exe link was 7.5% of the recorder's CPU on
	 * one).  One that maps an interpreter later is probed then.
	 */
	struct sp_htab *plain;
	struct sp_htab *pending;          /* struct pending_key -> P_PACK */
	struct sp_htab *why;              /* reason -> processes */
	struct rec_pystack_frame *frames; /* REC_PYSTACK_MAX_DEPTH */
	struct rec_reader_stats st;
	struct sp_buf notes;
};

struct rec_reader *
rec_reader_new(struct rec_spoolout *out)
{
	struct rec_reader *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->out = out;
	a->ids = rec_pyids_new(out);
	a->files = rec_pyfind_files_new();
	a->procs = sp_htab_new();
	a->pending = sp_htab_new();
	a->why = sp_htab_new();
	a->frames = calloc(REC_PYSTACK_MAX_DEPTH, sizeof(*a->frames));
	if (!a->ids || !a->files || !a->procs || !a->pending || !a->why ||
	    !a->frames) {
		rec_reader_free(a);
		errno = ENOMEM;
		return NULL;
	}
	return a;
}

static void
free_proc(struct rec_reader *a, struct pyproc *pp)
{
	if (!pp)
		return;
	if (pp->bpf)
		rec_pybpf_remove(a->bpf, pp->pid);
	rec_pystack_free(pp->py);
	free(pp->map);
	free(pp);
}

void
rec_reader_free(struct rec_reader *a)
{
	const void *k;
	size_t pos = 0, len;
	uint64_t v;

	if (!a)
		return;
	while (a->procs && sp_htab_next(a->procs, &pos, &k, &len, &v))
		free_proc(a, READER(v));
	sp_htab_free(a->procs);
	sp_htab_free(a->plain);
	sp_htab_free(a->pending);
	sp_htab_free(a->why);
	rec_pyids_free(a->ids);
	rec_pyfind_files_free(a->files);
	sp_buf_release(&a->notes);
	free(a->frames);
	free(a->memo);
	free(a);
}

/* Counts a reason a Python-looking process has no Python frames. */
static void
note(struct rec_reader *a, const char *why)
{
	uint64_t *n;

	if (!*why)
		why = "unknown reason";
	n = sp_htab_slot(a->why, why, strlen(why), 0, NULL);
	if (n)
		(*n)++;
}

/* Has the BPF program read process pp's stacks from now on. */
static void
bpf_add(struct rec_reader *a, struct pyproc *pp)
{
	struct pybpf_proc p;

	pp->bpf = a->bpf && rec_pystack_bpf_proc(pp->py, &p) == 0 &&
		  rec_pybpf_add(a->bpf, pp->pid, &p) == 0;
}

/* Keeps a code the BPF program met, with its strings as they were. */
static int
seed_code(void *ctx, const struct pybpf_code *c)
{
	struct rec_reader *a = ctx;
	int32_t pid = (int32_t)c->pid;
	uint64_t v;

	if (!sp_htab_get(a->procs, &pid, sizeof(pid), &v) || !READER(v))
		return 0;
	return rec_pystack_bpf_seed(READER(v)->py, c);
}

void
rec_reader_set_bpf(struct rec_reader *a, struct rec_pybpf *b)
{
	const void *k;
	size_t pos = 0, len;
	uint64_t v;

	if (!a->memo && !(a->memo = calloc(MEMO_SLOTS, sizeof(*a->memo))))
		return; /* stacks read late, as without BPF */
	a->bpf = b;
	if (b)
		rec_pybpf_on_code(b, seed_code, a);
	while (sp_htab_next(a->procs, &pos, &k, &len, &v))
		if (READER(v))
			bpf_add(a, READER(v));
}

/* The identity of `pid`'s executable; false when it cannot be read. */
static bool
exe_key(int32_t pid, uint64_t key[4])
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st) < 0)
		return false;
	key[0] = (uint64_t)st.st_dev;
	key[1] = (uint64_t)st.st_ino;
	key[2] = (uint64_t)st.st_size;
	key[3] =
	    (uint64_t)st.st_mtim.tv_sec << 30 ^ (uint64_t)st.st_mtim.tv_nsec;
	return true;
}

/*
 * Whether a process seen to exec, with nothing named as Python mapped
 * since, runs an executable whose processes were found plain: it has
 * no interpreter unless it maps one later (rec_reader_mapped).
 */
static bool
known_plain(struct rec_reader *a, int32_t pid, uint64_t v)
{
	uint64_t key[4], plain;

	return v == EXECED && a->plain && exe_key(pid, key) &&
	       sp_htab_get(a->plain, key, sizeof(key), &plain) && plain == 1;
}

/* Notes what probing `pid` found of its executable. */
static void
note_plain(struct rec_reader *a, int32_t pid, bool plain)
{
	uint64_t key[4];

	if (!a->plain && !(a->plain = sp_htab_new()))
		return;
	if (sp_htab_count(a->plain) >= PLAIN_MAX) {
		sp_htab_free(a->plain);
		if (!(a->plain = sp_htab_new()))
			return;
	}
	if (exe_key(pid, key))
		(void)sp_htab_put(a->plain, key, sizeof(key), plain ? 1 : 2);
}

/*
 * The reader of `pid`, attached at its first call; NULL when the process
 * is not CPython, is refused, or memory ran out.
 */
static struct pyproc *
proc(struct rec_reader *a, int32_t pid)
{
	struct sp_buf why = SP_BUF_INIT;
	struct pyproc *pp;
	uint64_t v = MAPPED, not = NOT_PYTHON; /* no entry: probe, as MAPPED */
	int err;

	if (sp_htab_get(a->procs, &pid, sizeof(pid), &v) && v != EXECED &&
	    v != MAPPED)
		return READER(v);
	if (known_plain(a, pid, v)) {
		a->st.known_plain++;
		(void)sp_htab_put(a->procs, &pid, sizeof(pid), NOT_PYTHON_YET);
		return NULL;
	}
	pp = calloc(1, sizeof(*pp));
	if (pp && !(pp->py = rec_pystack_attach(a->files, pid, &why))) {
		err = errno;
		free(pp);
		pp = NULL;
		/* Gone: its pid may come back as another process. */
		if (err == ESRCH || err == ENOMEM) {
			sp_buf_release(&why);
			return NULL;
		}
		/* Quiet for what is plainly not Python (yet). */
		if (err == ENOENT)
			not = NOT_PYTHON_YET;
		else if (sp_buf_addc(&why, 0) == 0)
			note(a, (const char *)why.data);
	}
	sp_buf_release(&why);
	/* What its executable brings, not what it mapped since. */
	if (v == EXECED)
		note_plain(a, pid, !pp && not == NOT_PYTHON_YET);
	if (pp) {
		a->st.processes++;
		pp->pid = pid;
		pp->fresh = true; /* its maps were read just now */
		pp->serial = ++a->serials;
		bpf_add(a, pp);
	}
	if (sp_htab_put(a->procs, &pid, sizeof(pid),
			pp ? (uintptr_t)pp : not ) < 0) {
		free_proc(a, pp);
		return NULL;
	}
	return pp;
}

void
rec_reader_forget(struct rec_reader *a, int32_t pid)
{
	uint64_t v;

	if (!sp_htab_get(a->procs, &pid, sizeof(pid), &v))
		return;
	free_proc(a, READER(v));
	sp_htab_del(a->procs, &pid, sizeof(pid));
}

void
rec_reader_exec(struct rec_reader *a, int32_t pid)
{
	uint64_t v;

	/* An interpreter mapped since (in ring order) still counts. */
	if (sp_htab_get(a->procs, &pid, sizeof(pid), &v) && v == MAPPED)
		return;
	rec_reader_forget(a, pid);
	(void)sp_htab_put(a->procs, &pid, sizeof(pid), EXECED);
}

void
rec_reader_maps_changed(struct rec_reader *a, int32_t pid)
{
	uint64_t v;

	if (sp_htab_get(a->procs, &pid, sizeof(pid), &v) && READER(v))
		rec_pymem_changed(rec_pystack_mem(READER(v)->py));
}

void
rec_reader_mapped(struct rec_reader *a, int32_t pid)
{
	uint64_t v = NOT_PYTHON_YET;

	if (!sp_htab_get(a->procs, &pid, sizeof(pid), &v) ||
	    v == NOT_PYTHON_YET || v == EXECED)
		(void)sp_htab_put(a->procs, &pid, sizeof(pid), MAPPED);
}

/* Our pycode id of the reader's code `c`; 0 or the output's errno. */
static int
code_id(struct rec_reader *a, struct pyproc *pp, const struct rec_pycode *c,
	uint32_t *id)
{
	size_t old = pp->amap;
	int rc;

	if (c->id < pp->amap && pp->map[c->id]) {
		*id = pp->map[c->id] - 1;
		return 0;
	}
	if (SP_GROW(pp->map, pp->amap, (size_t)c->id + 1))
		return rec_spoolout_wr(a->out, -ENOMEM);
	if (pp->amap > old)
		memset(pp->map + old, 0, (pp->amap - old) * sizeof(*pp->map));
	rc = rec_pyids_code(a->ids, c, id);
	if (rc == 0)
		pp->map[c->id] = *id + 1;
	return rc;
}

/*
 * Interns frame `f` (its entry flag `entry`) over *node, which becomes
 * its node.  Returns 0 or the output's errno.
 */
static int
intern_frame(struct rec_reader *a, struct pyproc *pp,
	     const struct rec_pystack_frame *f, bool entry, uint32_t *node)
{
	uint32_t code;
	int rc = code_id(a, pp, f->code, &code);

	return rc < 0
		   ? rc
		   : rec_pyids_node(a->ids, *node, code, f->line, entry, node);
}

/*
 * Interns frames[0..n) (innermost first) root first; sets *leaf and the
 * number of entry frames.  Returns 0 or the output's errno.
 */
static int
intern_stack(struct rec_reader *a, struct pyproc *pp, size_t n, uint32_t *leaf,
	     uint32_t *entries)
{
	uint32_t node = SP_NONE;
	size_t i;
	int rc;

	*entries = 0;
	for (i = n; i-- > 0;) {
		rc = intern_frame(a, pp, &a->frames[i], a->frames[i].entry,
				  &node);
		if (rc < 0)
			return rc;
		*entries += a->frames[i].entry;
	}
	*leaf = node;
	return 0;
}

static void
keep(struct rec_reader *a, int32_t tid, uint64_t ts, uint64_t packed)
{
	struct pending_key k;

	if (sp_htab_count(a->pending) >= PENDING_MAX) {
		sp_htab_free(a->pending);
		a->pending = sp_htab_new();
		if (!a->pending) /* retried at the next call */
			return;
	}
	memset(&k, 0, sizeof(k));
	k.tid = tid;
	k.ts = ts;
	/* Out of memory, the sample goes out without its Python frames. */
	(void)sp_htab_put(a->pending, &k, sizeof(k), packed);
}

/*
 * Interns the frames s->f[i..0] over `node` (the suffix past i), from the
 * outside in, into m's node[] and entries[]; *outer is the outermost
 * function met.  A frame whose function cannot be read (a module's body
 * freed since, a name that is not a str) cuts the chain there: the
 * frames inside it are interned from the root, and *cut is set (a chain
 * read late would be another moment's, often another function's).
 * Returns 0 or the output's errno.
 */
static int
memo_intern(struct rec_reader *a, struct pyproc *pp,
	    const struct pybpf_stack *s, struct pymemo *m, size_t i,
	    const struct rec_pycode **outer, bool *cut)
{
	uint32_t node = m->node[i + 1], entries = m->entries[i + 1];
	struct rec_pystack_frame fr;
	bool entry;
	int rc;

	for (; i != (size_t)-1; i--) {
		if (rec_pystack_bpf_shim(pp->py, &s->f[i])) {
			m->node[i] = node;
			m->entries[i] = entries;
			continue;
		}
		if (rec_pystack_bpf_frame(pp->py, &s->f[i], &fr) < 0) {
			node = m->node[i] = SP_NONE;
			entries = m->entries[i] = 0;
			*cut = true;
			continue;
		}
		/* the shim an evaluator call starts with is just outside */
		entry = fr.entry || (i + 1 < s->n && rec_pystack_bpf_shim(
							 pp->py, &s->f[i + 1]));
		rc = intern_frame(a, pp, &fr, entry, &node);
		if (rc < 0)
			return rc;
		entries += entry;
		m->node[i] = node;
		m->entries[i] = entries;
		if (!*outer)
			*outer = fr.code;
	}
	return 0;
}

/*
 * Interns the stack the BPF program read at sample (tid, ts) into *packed
 * (as keep() takes it).  The frames a thread's stack shares with its last
 * one, from the root in, are the same frames at the same instructions:
 * their nodes are taken from the memo, and only the frames inside them
 * are turned into functions and interned.  *fault says whether the
 * program met a bad pointer on the chain.  Returns 0; -EAGAIN when the
 * program has no stack for the sample (read it now instead); -ENOENT
 * when the thread had no Python thread state then; or the output's
 * errno.
 */
static int
read_at_sample(struct rec_reader *a, struct pyproc *pp, int32_t tid,
	       uint64_t ts, uint64_t *packed, bool *fault)
{
	const struct pybpf_stack *s = rec_pybpf_take(a->bpf, tid, ts);
	struct pymemo *m = &a->memo[(uint32_t)tid % MEMO_SLOTS];
	const struct rec_pycode *outer = NULL;
	size_t n, k = 0, same;
	bool root, trunc, cut = false;
	int rc;

	if (!s)
		return -EAGAIN;
	if (s->status == PYBPF_NO_TSTATE)
		return -ENOENT;
	a->st.at_sample++;
	if (s->status == PYBPF_AMBIGUOUS) {
		/* no frames: tied, inconsistent if it ran Python */
		*packed = P_PACK(SP_NONE, 0, P_AT_SAMPLE);
		return 0;
	}
	*fault = PYBPF_STATUS(s->status) == PYBPF_FAULT;
	n = s->n < PYBPF_MAX_FRAMES ? s->n : PYBPF_MAX_FRAMES;
	same = m->serial == pp->serial && m->tid == tid ? m->n : 0;
	while (k < n && k < same &&
	       memcmp(&s->f[n - 1 - k], &m->f[same - 1 - k], sizeof(s->f[0])) ==
		   0)
		k++;
	/* the suffix's nodes move to where the new stack has them */
	if (k > 0 && same != n) {
		memmove(m->node + n - k, m->node + same - k,
			(k + 1) * sizeof(m->node[0]));
		memmove(m->entries + n - k, m->entries + same - k,
			(k + 1) * sizeof(m->entries[0]));
	}
	m->node[n] = SP_NONE;
	m->entries[n] = 0;
	root = k > 0 && m->root;
	rec_pystack_bpf_begin(pp->py);
	rc = n > k ? memo_intern(a, pp, s, m, n - k - 1, &outer, &cut) : 0;
	if (rc < 0) {
		m->serial = 0; /* half updated: of no use */
		return rc;
	}
	if (k == 0 && outer)
		root = rec_pystack_bpf_root(pp->py, &s->f[n - 1], outer);
	memcpy(m->f, s->f, n * sizeof(s->f[0]));
	/* a cut chain's nodes are not those of its frames' suffixes */
	m->serial = cut ? 0 : pp->serial;
	m->tid = tid;
	m->n = n;
	m->root = root;
	trunc = PYBPF_STATUS(s->status) != PYBPF_OK || cut ||
		(s->status & PYBPF_NESTED) ||
		(n > 0 && !root && m->node[0] != SP_NONE);
	/* a state that may not run is tied as one read late: exactly */
	*packed = P_PACK(m->node[0], m->entries[0],
			 (s->status & PYBPF_IDLE ? 0 : P_AT_SAMPLE) |
			     (trunc ? SP_PYSTACK_TRUNCATED : 0));
	return 0;
}

/*
 * Reads thread tid's stack for sample ts of process pp and keeps it;
 * *kept says whether a stack was kept, *bpf_fault whether the BPF
 * program's read of it met a bad pointer (the kernel read the live
 * memory: no maps of ours to be stale).  Returns 0, the output's errno,
 * or -ESRCH or -ENOTSUP when the process is to be dropped.
 */
static int
read_stack(struct rec_reader *a, struct pyproc *pp, int32_t tid, uint64_t ts,
	   bool *kept, bool *bpf_fault)
{
	uint32_t leaf, entries;
	uint64_t packed;
	bool trunc = false;
	int n, rc;

	if (pp->bpf && ts) {
		rc = read_at_sample(a, pp, tid, ts, &packed, bpf_fault);
		if (rc == 0)
			keep(a, tid, ts, packed);
		*kept = rc == 0;
		if (rc != -EAGAIN && rc != -ENOENT)
			return rc;
		if (rc == -ENOENT) {
			a->st.failed++;
			return 0;
		}
	}
	n = rec_pystack_read(pp->py, tid, a->frames, REC_PYSTACK_MAX_DEPTH,
			     &trunc);
	if (n == -ESRCH || n == -ENOTSUP)
		return n;
	if (n < 0) {
		a->st.failed++;
		return 0;
	}
	rc = intern_stack(a, pp, (size_t)n, &leaf, &entries);
	if (rc < 0)
		return rc;
	/* ts 0: read while the thread is stopped at its sample (--ptrace) */
	keep(a, tid, ts,
	     P_PACK(leaf, entries,
		    (ts ? 0 : P_AT_SAMPLE) |
			(trunc ? SP_PYSTACK_TRUNCATED : 0)));
	*kept = true;
	return 0;
}

/*
 * Whether process pp, given up, has sample (tid, ts) go out unread,
 * with an empty truncated stack; one in RETRY_EVERY is read.
 */
static bool
skip_given_up(struct rec_reader *a, struct pyproc *pp, int32_t tid, uint64_t ts)
{
	if (!pp->gave_up || ++pp->skipped >= RETRY_EVERY) {
		pp->skipped = 0;
		return false;
	}
	keep(a, tid, ts,
	     P_PACK(SP_NONE, 0, (ts ? 0 : P_AT_SAMPLE) | SP_PYSTACK_TRUNCATED));
	a->st.gave_up_samples++;
	return true;
}

/*
 * Counts a read of pp that met a bad pointer (`fault`; `reread`: the
 * maps were read again during it), else one that kept a stack clears
 * the count.  GIVE_UP_AFTER in a row give the process up (the BPF
 * program no longer reads it either), once its maps were read again
 * since the first: a heap grown since they were read, which no event
 * tells (pymem.h), is not taken for a broken chain.  A read without a
 * fault takes it back.
 */
static void
budget(struct rec_reader *a, struct pyproc *pp, bool fault, bool kept,
       bool reread)
{
	if (!fault && kept) {
		pp->fails = 0;
		pp->fresh = false;
		if (pp->gave_up)
			bpf_add(a, pp);
		pp->gave_up = false;
		return;
	}
	if (!fault || pp->gave_up)
		return;
	pp->fresh |= reread;
	if (++pp->fails < GIVE_UP_AFTER)
		return;
	if (!pp->fresh) { /* its next miss reads them */
		rec_pymem_changed(rec_pystack_mem(pp->py));
		return;
	}
	pp->gave_up = true;
	pp->skipped = 0;
	a->st.gave_up += !pp->counted;
	pp->counted = true;
	if (pp->bpf)
		rec_pybpf_remove(a->bpf, pp->pid);
	pp->bpf = false;
}

int
rec_reader_read(struct rec_reader *a, int32_t pid, int32_t tid, uint64_t ts)
{
	struct rec_pymem *m;
	struct pyproc *pp;
	uint64_t faults, maps;
	bool kept = false, bpf_fault = false;
	int rc;

	if (!a->pending && !(a->pending = sp_htab_new()))
		return 0;
	if (!(pp = proc(a, pid)))
		return 0;
	m = rec_pystack_mem(pp->py);
	rec_pymem_tick(m);
	if (skip_given_up(a, pp, tid, ts))
		return 0;
	faults = m->faults;
	maps = m->maps_reads;
	rc = read_stack(a, pp, tid, ts, &kept, &bpf_fault);
	if (rc == -ESRCH || rc == -ENOTSUP) {
		if (rc == -ENOTSUP)
			note(a, rec_pystack_why(pp->py));
		free_proc(a, pp);
		/* Its samples go out as a process without Python. */
		sp_htab_put(a->procs, &pid, sizeof(pid), NOT_PYTHON);
		return 0;
	}
	a->st.maps_rereads += m->maps_reads - maps;
	budget(a, pp, m->faults != faults || bpf_fault, kept,
	       m->maps_reads != maps || bpf_fault);
	return rc;
}

/* Takes the stack kept for (tid, ts), else for (tid, 0). */
static bool
take(struct rec_reader *a, int32_t tid, uint64_t ts, uint64_t *packed)
{
	struct pending_key k;

	if (!a->pending)
		return false;
	memset(&k, 0, sizeof(k));
	k.tid = tid;
	k.ts = ts;
	if (!sp_htab_get(a->pending, &k, sizeof(k), packed)) {
		k.ts = 0;
		if (!sp_htab_get(a->pending, &k, sizeof(k), packed))
			return false;
	}
	sp_htab_del(a->pending, &k, sizeof(k));
	return true;
}

int
rec_reader_write(struct rec_reader *a, int32_t pid, int32_t tid, uint64_t ts,
		 const struct sp_frame *frames, size_t n)
{
	struct sp_ext_pystack s;
	struct pyproc *pp;
	uint64_t v, pv;
	bool entering;
	int rc;

	if (!take(a, tid, ts, &v))
		return 0;
	if (!sp_htab_get(a->procs, &pid, sizeof(pid), &pv) ||
	    !(pp = READER(pv)))
		return 0;
	s.leaf = P_LEAF(v);
	s.flags = P_FLAGS(v) & ~P_AT_SAMPLE;
	entering = rec_pytie(rec_pystack_target(pp->py), frames, n,
			     P_ENTRIES(v), (P_FLAGS(v) & P_AT_SAMPLE) != 0, &s);
	rc = sp_ext_pystack_encode(rec_spoolout_scratch(a->out), &s);
	if (rc < 0)
		return rec_spoolout_wr(a->out, rc);
	rc = rec_spoolout_ext(a->out, SP_EXT_PYSTACK);
	if (rc < 0)
		return rc;
	a->st.stacks++;
	a->st.truncated += (s.flags & SP_PYSTACK_TRUNCATED) != 0;
	a->st.inconsistent += (s.flags & SP_PYSTACK_INCONSISTENT) != 0;
	a->st.entering += entering;
	return 0;
}

const struct rec_reader_stats *
rec_reader_stats(const struct rec_reader *a)
{
	return &a->st;
}

const char *
rec_reader_notes(struct rec_reader *a)
{
	const void *k;
	size_t pos = 0, len;
	uint64_t v;

	sp_buf_reset(&a->notes);
	while (sp_htab_next(a->why, &pos, &k, &len, &v))
		sp_buf_addf(&a->notes, "%.*s (%" PRIu64 " process%s)\n",
			    (int)len, (const char *)k, v, v == 1 ? "" : "es");
	sp_buf_addc(&a->notes, 0);
	return (const char *)a->notes.data;
}
