/*
 * bpf/deepcopy.c: the BPF program attached to every sampling event (by
 * deepbpf.c): for a thread whose stack goes on past the copy the sample
 * takes, it copies up to DEEPBPF_MAX bytes more at the same instant into
 * a ring buffer (deepbpf.h); then it hands the sample to the Python
 * stack reader (bpf/pyframes.c), once that is loaded, by a tail call.
 *
 * Built with clang -target bpf; which threads and how much come from
 * sp-record through the `deep` map (deepbpf_abi.h).  Every read may fail
 * (a page not in memory: the read never faults it in) and is bounded; the
 * program always lets the sample through.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>

#include "sp-record/bpf/deepbpf_abi.h"

/*
 * Threads whose stacks go past the sample's copy (deepbpf.h), kept by
 * sp-record (an LRU map would drop some the recorder still counts on).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DEEPBPF_THREADS);
	__type(key, __u32); /* tid */
	__type(value, struct deepbpf_want);
} deep SEC(".maps");

/*
 * A copy is made here first, one per CPU (sp-record sets the entries to
 * the CPUs' number), then sent at its length: reserving the largest size
 * in the ring for each would fill it with room mostly unused.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct deepbpf_copy);
} deepscratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} deepring SEC(".maps");

/* The Python stack reader, at 0 once loaded (pybpf.c). */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} next SEC(".maps");

/*
 * The sampled thread's user stack pointer: the interrupted registers when
 * it was in user mode, else those it entered the kernel with.
 */
static __always_inline __u64
user_sp(struct bpf_perf_event_data *ctx)
{
	/* both read first: a load after the branch would be of a moved
	 * context pointer, which the verifier refuses */
	__u64 cs = *(volatile __u64 *)&ctx->regs.cs;
	__u64 sp = *(volatile __u64 *)&ctx->regs.rsp;
	long r;

	if ((cs & 3) == 3)
		return sp;
	/*
	 * The registers saved at the kernel's entry, read at the uapi
	 * layout's offset (the kernel's is the same): naming the field for
	 * CO-RE would have libbpf read the kernel's BTF, 40 ms a load.
	 */
	r = bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!r || bpf_probe_read_kernel(
		      &sp, sizeof(sp),
		      (void *)(r + __builtin_offsetof(struct pt_regs, rsp))))
		return 0;
	return sp;
}

/*
 * Copies more of a deep thread's stack than the sample does, at the same
 * instant: from SP + skip up to `max` bytes, below its mapping's end,
 * while the SP lies in the mapping registered; a copy that faults (a
 * page not in memory) is sent empty.
 */
static __always_inline void
deep_copy(struct bpf_perf_event_data *ctx, __u32 tid)
{
	struct deepbpf_want *d = bpf_map_lookup_elem(&deep, &tid);
	struct deepbpf_copy *o;
	__u64 sp, from, len;
	__u32 cpu;

	if (!d)
		return;
	sp = user_sp(ctx);
	if (sp < d->lo || sp >= d->hi)
		return;
	from = sp + d->skip;
	if (from >= d->hi || from < sp)
		return;
	len = d->hi - from;
	if (len > d->max)
		len = d->max;
	if (len > DEEPBPF_MAX)
		len = DEEPBPF_MAX;
	/* shown to the verifier, which lost the bound in the compares */
	asm volatile("%0 &= %1" : "+r"(len) : "i"(2 * DEEPBPF_MAX - 1));
	if (len > DEEPBPF_MAX)
		return;
	cpu = bpf_get_smp_processor_id();
	if (!(o = bpf_map_lookup_elem(&deepscratch, &cpu)))
		return;
	o->ts = bpf_ktime_get_ns();
	o->sp = sp;
	o->tid = tid;
	if (bpf_probe_read_user(o->data, len, (void *)from) != 0)
		len = 0; /* sent empty: counted */
	o->len = (__u32)len;
	/* a full ring loses the copy: the sample reads live instead */
	bpf_ringbuf_output(&deepring, o, DEEPBPF_HEAD + len, 0);
}

SEC("perf_event")
int
atsample(struct bpf_perf_event_data *ctx)
{
	deep_copy(ctx, (__u32)bpf_get_current_pid_tgid());
	bpf_tail_call(ctx, &next, 0);
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
