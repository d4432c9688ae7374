/*
 * bpf/pyframes.c: a BPF program run by the kernel at each sample of a
 * CPython process, before the sample is written: it reads the sampled
 * thread's Python frame chain at that very moment and puts it in a ring
 * buffer for sp-record (pybpf.h), so that the chain and the native stack
 * copied with the sample are of one instant.
 *
 * Built with clang -target bpf; the layout of each process comes from
 * sp-record through the `procs` map (pybpf_abi.h).  Every read is of the
 * sampled process's memory, may fail (a page not in memory: the read
 * never faults it in) and is bounded; the program always lets the sample
 * through.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

#include "sp-record/bpf/pybpf_abi.h"

/* Interpreters and thread states looked through for a thread. */
#define MAX_INTERPS 4
#define MAX_THREADS 64

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32); /* tgid */
	__type(value, struct pybpf_proc);
} procs SEC(".maps");

/* A thread's state, as last found: checked at each use. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32); /* tid */
	__type(value, __u64);
} tstates SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pybpf_stack);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 2 << 20);
} stacks SEC(".maps");

/* A code object of a process. */
struct codekey {
	__u32 pid, pad;
	__u64 addr;
};

/* The code objects whose strings were sent, by their fingerprint's hash. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct codekey);
	__type(value, __u64);
} codes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pybpf_code);
} codescratch SEC(".maps");

/*
 * Reads `size` bytes (8 or 4, little-endian) at addr + off.  A failure
 * is noted in *bad without a branch: a branch that sets a constant makes
 * two verifier states of every read, and the states of a frame's dozen
 * reads multiply.
 */
static __always_inline __u64
read_n(__u64 addr, __u32 off, __u32 size, int *bad)
{
	__u64 v = 0;

	*bad |= off == PYBPF_NONE;
	*bad |= bpf_probe_read_user(&v, size, (void *)(addr + off)) != 0;
	return v;
}

#define read_u64(addr, off, bad) read_n(addr, off, 8, bad)
#define read_u32(addr, off, bad) ((__u32)read_n(addr, off, 4, bad))

/* Whether thread state `ts` is thread `tid`'s. */
static __always_inline int
tstate_is(const struct pybpf_proc *p, __u64 ts, __u32 tid)
{
	int bad = 0;
	__u64 pt;

	if (p->ts_native_tid != PYBPF_NONE)
		return read_u64(ts, p->ts_native_tid, &bad) == tid && !bad;
	if (p->pthread_tid < 0)
		return 0;
	pt = read_u64(ts, p->ts_thread_id, &bad);
	return !bad && read_u32(pt, (__u32)p->pthread_tid, &bad) == tid && !bad;
}

/* The walk of an interpreter's thread states (a bpf_loop callback). */
struct tswalk {
	const struct pybpf_proc *p;
	__u64 ts, found;
	__u32 tid;
	int bad;
};

static long
tstate_step(__u32 i, void *arg)
{
	struct tswalk *w = arg;

	if (!w->ts || w->bad)
		return 1;
	if (tstate_is(w->p, w->ts, w->tid)) {
		w->found = w->ts;
		return 1;
	}
	w->ts = read_u64(w->ts, w->p->ts_next, &w->bad);
	return 0;
}

/*
 * The scan of every interpreter's states for a thread's (a bpf_loop
 * callback), in a process with subinterpreters: a thread that ran one
 * has a state in each, and only one runs (find_among).  One loop walks
 * the states of each interpreter in turn, so the verifier sees one step;
 * and the step has no branch but its loop's: the verifier checks a
 * callback again for each distinct state it may leave, and flags set by
 * branches (or counts) made it check half a million instructions.
 */
struct tsscan {
	const struct pybpf_proc *p;
	__u64 is, ts, cur;
	__u64 first, found, main;             /* of tid's states: 0 none yet */
	__u64 many, runs_many, busy, in_main; /* 0 or 1 */
	__u32 tid;
	int bad;
};

/* 1 when x is not 0, else 0; the barrier keeps the compiler from making
 * it a branch again. */
static __always_inline __u64
nz(__u64 x)
{
	__u64 m = 0 - x;

	asm volatile("" : "+r"(m));
	return (x | m) >> 63;
}

/* a when c is 1, b when c is 0. */
static __always_inline __u64
pick(__u64 c, __u64 a, __u64 b)
{
	__u64 m = 0 - c;

	asm volatile("" : "+r"(m));
	return b ^ ((a ^ b) & m);
}

/* tstate_is without a branch: 1 when state `ts` is thread `tid`'s. */
static __always_inline __u64
tstate_match(const struct pybpf_proc *p, __u64 ts, __u32 tid)
{
	int bad = 0, bad_pt = 0;
	__u64 native = read_u64(ts, p->ts_native_tid, &bad);
	__u64 pt = read_u64(ts, p->ts_thread_id, &bad_pt);
	__u64 t = read_u32(pt, (__u32)p->pthread_tid, &bad_pt);
	__u64 has_native = nz(p->ts_native_tid ^ PYBPF_NONE);

	/* no tid offset, or a read failed: never a tid */
	t |= ((__u64)(__u32)p->pthread_tid >> 31 | (__u64)(bad_pt & 1)) << 32;
	return pick(has_native, (1 - nz(native ^ tid)) & (1 - (__u64)(bad & 1)),
		    1 - nz(t ^ tid));
}

/* 1 when state `ts` runs now: it holds the GIL, or is marked active. */
static __always_inline __u64
tstate_runs(const struct pybpf_proc *p, __u64 ts, __u64 cur)
{
	int bad = 0;
	__u64 st = read_u32(ts, p->ts_status, &bad);

	return pick(nz(p->ts_status ^ PYBPF_NONE), nz(st & p->ts_active),
		    (1 - nz(ts ^ cur)) & nz(cur));
}

/* 1 when state `ts` has a frame. */
static __always_inline __u64
tstate_busy(const struct pybpf_proc *p, __u64 ts)
{
	int bad = 0;
	__u64 v = read_u64(ts, p->ts_frame, &bad), in;

	in = read_u64(v, p->cf_current_frame, &bad);
	return nz(pick(nz(p->cf_current_frame ^ PYBPF_NONE), in, v));
}

static long
scan_step(__u32 i, void *arg)
{
	struct tsscan *w = arg;
	__u64 ts = w->ts, m, r;

	if (w->bad || (!ts && !w->is))
		return 1;
	if (!ts) { /* the next interpreter's states */
		w->ts = read_u64(w->is, w->p->is_threads_head, &w->bad);
		w->is = read_u64(w->is, w->p->is_next, &w->bad);
		w->in_main = 1 - nz(w->is); /* the main interpreter is last */
		return 0;
	}
	m = tstate_match(w->p, ts, w->tid);
	r = m & tstate_runs(w->p, ts, w->cur);
	w->many |= m & nz(w->first);
	w->first = pick(m & (1 - nz(w->first)), ts, w->first);
	w->runs_many |= r & nz(w->found);
	w->found = pick(r, ts, w->found);
	w->main = pick(r & w->in_main, ts, w->main);
	w->busy |= m & (1 - r) & tstate_busy(w->p, ts);
	w->ts = read_u64(ts, w->p->ts_next, &w->bad);
	return 0;
}

/*
 * The state of `tid` among the interpreters from `is` on: the only one,
 * or the one running (of two, the main interpreter's: the other is a
 * subinterpreter's run by another thread in a state this one made; 3.12+
 * mark it, and one not marked is not this thread's now), with
 * *status PYBPF_NESTED when another holds frames (PYBPF_IDLE: the one
 * state found does not run); 0 with *status
 * PYBPF_AMBIGUOUS when which runs cannot be told (none, or several
 * outside the main interpreter, or states left unread past the bounds).
 * As pystack.c's find_among.
 */
static __always_inline __u64
find_among(const struct pybpf_proc *p, __u64 is, __u32 tid, __u32 *status)
{
	struct tsscan w = { .p = p, .is = is, .tid = tid };
	int cut;

	if (p->rt_tstate_current != PYBPF_NONE)
		w.cur = read_u64(p->runtime, p->rt_tstate_current, &w.bad);
	bpf_loop(MAX_INTERPS * MAX_THREADS, scan_step, &w, 0);
	cut = w.ts || w.is || w.bad;
	if (!w.first && !cut)
		return 0;
	if (w.runs_many && w.main)
		w.found = w.main;
	else if (w.runs_many || (!w.found && (w.many || cut)))
		w.found = 0;
	else if (!w.found && p->ts_status == PYBPF_NONE) {
		w.found = w.first;
		*status |= PYBPF_IDLE;
	}
	if (w.found && w.many && w.busy)
		*status |= PYBPF_NESTED;
	if (!w.found)
		*status = PYBPF_AMBIGUOUS;
	return w.found;
	*status = PYBPF_AMBIGUOUS;
	return 0;
}

/*
 * The state of `tid`: kept by tid in a process of one interpreter, where
 * a thread has one; else found_among every interpreter's.
 */
static __always_inline __u64
find_tstate(const struct pybpf_proc *p, __u32 tid, __u32 *status)
{
	__u64 *known = bpf_map_lookup_elem(&tstates, &tid);
	struct tswalk w = { .p = p, .tid = tid };
	__u64 is, next;
	int bad = 0;

	is = read_u64(p->runtime, p->rt_interp_head, &bad);
	next = read_u64(is, p->is_next, &bad);
	if (!is || bad)
		return 0;
	if (next)
		return find_among(p, is, tid, status);
	if (known && tstate_is(p, *known, tid))
		return *known;
	w.ts = read_u64(is, p->is_threads_head, &bad);
	w.bad = bad;
	bpf_loop(MAX_THREADS, tstate_step, &w, 0);
	if (w.found)
		bpf_map_update_elem(&tstates, &tid, &w.found, BPF_ANY);
	return w.found;
}

/* Reads frame `f` into *o; returns the next frame out, 0 on a fault. */
/*
 * Reads frame `f` into *o; returns the next frame out.  Without a branch:
 * a field the version lacks comes at offset 0 (pybpf_abi.h) and is read
 * and ignored, and f_lasti (3.8-3.10) is the low half of what is read.
 */
static __always_inline __u64
read_frame(const struct pybpf_proc *p, __u64 f, struct pybpf_frame *o, int *bad)
{
	__u64 back = read_u64(f, p->fr_back, bad), c;

	c = o->code = read_u64(f, p->fr_code, bad);
	o->instr = read_u64(f, p->fr_instr, bad);
	o->owner = (__u8)read_u32(f, p->fr_owner, bad);
	o->entry = (__u8)read_u32(f, p->fr_is_entry, bad);
	o->type = read_u64(c, 8, bad);
	o->name = read_u64(c, p->co_name, bad);
	o->qualname = read_u64(c, p->co_qualname, bad);
	o->filename = read_u64(c, p->co_filename, bad);
	o->lines = read_u64(c, p->co_lines, bad);
	o->shape = read_u64(c, p->co_shape, bad);
	o->firstlineno = (__s32)read_u32(c, p->co_firstlineno, bad);
	o->flags = read_u32(c, p->co_flags, bad);
	return back;
}

/* Copies the object at `src` into dst (n bytes); returns the count. */
static __always_inline __u32
copy_obj(__u8 *dst, __u32 n, __u64 src)
{
	if (bpf_probe_read_user(dst, n, (void *)src) == 0)
		return n;
	if (bpf_probe_read_user(dst, PYBPF_STR_MIN, (void *)src) == 0)
		return PYBPF_STR_MIN;
	return 0;
}

/*
 * Sends the strings of frame o's code unless they were sent for this
 * code (address and fingerprint) already; a full ring buffer leaves it
 * unsent, for the next sample to try.
 */
static __always_inline void
note_code(const struct pybpf_proc *p, const struct pybpf_stack *s,
	  const struct pybpf_frame *o)
{
	struct codekey k = { .pid = s->pid, .addr = o->code };
	__u64 fp = o->type ^ o->name ^ (o->qualname << 1) ^ (o->filename << 2) ^
		   (o->lines << 3) ^ ((__u64)(__u32)o->firstlineno << 32) ^
		   o->flags ^ (o->shape << 5);
	__u64 *sent = bpf_map_lookup_elem(&codes, &k);
	struct pybpf_code *c;
	__u32 zero = 0;

	if (sent && *sent == fp)
		return;
	if (!(c = bpf_map_lookup_elem(&codescratch, &zero)))
		return;
	c->ts = s->ts;
	c->pid = s->pid;
	c->tid = s->tid;
	c->n = 0;
	c->status = PYBPF_CODE;
	c->f = *o;
	c->name_len = copy_obj(c->name, PYBPF_NAME_RAW,
			       p->co_qualname ? o->qualname : o->name);
	c->file_len = copy_obj(c->file, PYBPF_FILE_RAW, o->filename);
	c->lines_len = copy_obj(c->lines, PYBPF_LINES_RAW, o->lines);
	if (bpf_ringbuf_output(&stacks, c, sizeof(*c), 0) == 0)
		bpf_map_update_elem(&codes, &k, &fp, BPF_ANY);
}

/* The walk of a frame chain (a bpf_loop callback). */
struct fwalk {
	const struct pybpf_proc *p;
	struct pybpf_stack *s;
	__u64 f;
	__u32 n;
	int bad;
};

static long
frame_step(__u32 i, void *arg)
{
	struct fwalk *w = arg;
	__u64 k = i;

	if (!w->f || w->bad)
		return 1;
	/* i < PYBPF_MAX_FRAMES (bpf_loop's count); the mask, kept from the
	 * compiler, shows the verifier */
	asm volatile("%0 &= %1" : "+r"(k) : "i"(PYBPF_MAX_FRAMES - 1));
	w->f = read_frame(w->p, w->f, &w->s->f[k], &w->bad);
	if (!w->bad)
		note_code(w->p, w->s, &w->s->f[k]);
	w->n = i + 1;
	return 0;
}

SEC("perf_event")
int
pyframes(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), ts;
	__u32 pid = id >> 32, tid = (__u32)id, zero = 0;
	const struct pybpf_proc *p = bpf_map_lookup_elem(&procs, &pid);
	struct fwalk w = { .p = p };
	struct pybpf_stack *s;
	__u32 n;

	if (!p || !(s = bpf_map_lookup_elem(&scratch, &zero)))
		return 1;
	s->ts = bpf_ktime_get_ns();
	s->pid = pid;
	s->tid = tid;
	s->status = PYBPF_OK;
	s->n = 0;
	ts = find_tstate(p, tid, &s->status);
	if (!ts) {
		if (s->status != PYBPF_AMBIGUOUS)
			s->status = PYBPF_NO_TSTATE;
		bpf_ringbuf_output(&stacks, s, PYBPF_HEAD_SIZE, 0);
		return 1;
	}
	w.s = s;
	w.f = read_u64(ts, p->ts_frame, &w.bad);
	if (w.f && !w.bad && p->cf_current_frame != PYBPF_NONE)
		w.f = read_u64(w.f, p->cf_current_frame, &w.bad);
	bpf_loop(PYBPF_MAX_FRAMES, frame_step, &w, 0);
	if (w.bad)
		s->status = PYBPF_FAULT | (s->status & ~0xff);
	else if (w.f)
		s->status = PYBPF_DEEP | (s->status & ~0xff);
	n = w.n;
	if (n > PYBPF_MAX_FRAMES)
		return 1;
	s->n = n;
	bpf_ringbuf_output(&stacks, s,
			   PYBPF_HEAD_SIZE + n * sizeof(struct pybpf_frame), 0);
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
