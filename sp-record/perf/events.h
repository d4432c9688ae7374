/*
 * events.h: opening the sampling events and their rings.
 *
 * Layouts (see docs/sp-record.1 and the unwinding feasibility notes):
 *   launch  one event per CPU on the launched child, inherit=1 and
 *           enable_on_exec=1, each with its own ring;
 *   attach  one event per (thread, CPU) with inherit=1, so threads and
 *           processes created later are sampled too; every event of a CPU
 *           is redirected with PERF_EVENT_IOC_SET_OUTPUT into that CPU's
 *           ring (inherit with cpu=-1 cannot be mmapped).
 * Each open adapts the shared attributes once and for all: hardware
 * cycles fall back to cpu-clock where the PMU has none, kernel sampling
 * is dropped where it is not permitted, and so on; the notes say what
 * changed so the caller can tell the user once.
 */
#ifndef SP_RECORD_PERF_EVENTS_H
#define SP_RECORD_PERF_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "common/buf.h"
#include "sp-record/perf/evname.h"
#include "sp-record/perf/ring.h"

#define REC_EVENTS_MAX 8

struct rec_events_opts {
	struct rec_evname_spec
	    events[REC_EVENTS_MAX]; /* cycles unless -e says */
	size_t nevents;             /* at least 1 */
	bool source_explicit;       /* -e given: no fallback to cpu-clock */
	bool switches;              /* --off-cpu: context-switch records too */
	uint64_t freq;              /* samples per second, unless period */
	uint64_t period;            /* -c: one sample every `period` events */
	bool kernel;                /* -k: kernel callchains */
	bool dwarf;                 /* ask for user registers and stack */
	uint64_t regs_mask;
	uint32_t stack_size; /* bytes of user stack per sample */
	size_t pages;        /* ring data pages per CPU, 2^n */
	/*
	 * Wake the reader at every record, not at a quarter of the ring:
	 * a Python stack is read the sooner after its sample.
	 */
	bool wake_each;
};

struct rec_events {
	struct perf_event_attr attr;
	struct rec_events_opts opts;
	int *cpus; /* online CPU numbers */
	int ncpus;
	struct rec_ring *rings; /* one per CPU; fd -1 until opened */
	int *fds;               /* every event, ring owners included */
	size_t nfds, afds;
	struct sp_htab *tids; /* threads already opened (attach) */
	struct sp_htab *ids;  /* several events: kernel event id -> index */
	size_t failed;        /* the event whose open failed last */
	bool kernel_sampling; /* exclude_kernel is off */
	bool kernel_stacks;   /* kernel callchains are recorded */
	bool fell_back;       /* cycles -> cpu-clock happened */
	bool kernel_denied;   /* kernel sampling refused by the kernel */
	bool offcpu_denied;   /* ... where --off-cpu needs it */
	struct sp_buf msg;    /* see rec_events_errmsg() */
	int bpf_fd;           /* a program for every sampling event, or 0 */
};

/*
 * The default data pages of each per-CPU ring for these options (pages
 * left 0): enough for a quarter second of samples at the requested rate
 * (each with its stack copy), so a recorder kept off the CPU that long by
 * a loaded machine loses nothing: 1024 pages (4 MiB) for DWARF stacks at
 * 999 Hz.  At least 128, at most 2048 pages, a power of two, and at most
 * 256 MiB over `ncpus` CPUs.
 */
size_t rec_events_default_pages(const struct rec_events_opts *o, long ncpus,
				long pagesize);

/*
 * Attaches BPF program `fd` to the sampling events open and to be opened
 * (pybpf.h); an event that refuses it samples without it.
 */
void rec_events_attach_bpf(struct rec_events *ev, int fd);

/* Fills the attributes; returns 0 or a negative errno. */
int rec_events_init(struct rec_events *ev, const struct rec_events_opts *o);
/* Disables and closes every event and unmaps the rings. */
void rec_events_release(struct rec_events *ev);

/*
 * Why the last failed open or CPU selection failed, naming what to
 * change; "" when it said nothing (then the errno is the message).  Each
 * open and selection starts with an empty message.  The string stays
 * valid until the next call on `ev`.
 */
const char *rec_events_errmsg(const struct rec_events *ev);

/*
 * With DWARF stacks, whether the events opened next also carry the
 * kernel's frame-pointer walk of the user stack (off by default): the
 * unwinder follows Go's stack switches with it (goexe.h).
 */
void rec_events_user_chain(struct rec_events *ev, bool on);

/*
 * Opens one event per CPU on `pid` (not yet running its command) with
 * enable_on_exec.  Returns 0 or a negative errno (rec_events_errmsg()).
 */
int rec_events_open_launch(struct rec_events *ev, int32_t pid);
/*
 * Opens events on every thread of `pid`, rescanning /proc/PID/task until
 * no thread is missing.  Returns the number of threads opened (>= 1) or a
 * negative errno: -ESRCH when the process is gone.
 */
long rec_events_open_attach(struct rec_events *ev, int32_t pid);

/*
 * Puts in `msg` (emptied first) why opening event ev->failed of `pid`
 * failed with errno `err` (attach: `pid` is an existing process, not one
 * sp-record launched), naming what to change.  For events.c
 * (events_why.c); it reads `ev` and calls nothing of events.c.
 */
void rec_events_why_explain(struct sp_buf *msg, const struct rec_events *ev,
			    int err, int32_t pid, bool attach);

/*
 * -C: keeps only the online CPUs of `list` ("0-3,6").  Returns 0 or
 * -EINVAL (rec_events_errmsg() says why).
 */
int rec_events_select_cpus(struct rec_events *ev, const char *list);
/*
 * -a: opens one event per selected CPU for every task on it, each with
 * its own ring.  Returns 0 or a negative errno (rec_events_errmsg()).
 */
int rec_events_open_cpus(struct rec_events *ev);
/*
 * -t: opens events on thread `tid` alone (threads it creates later are
 * not sampled).  Returns 0 or a negative errno (rec_events_errmsg()).
 */
int rec_events_open_thread(struct rec_events *ev, int32_t tid);

/* Enables or disables every event; returns 0 or the first -errno. */
int rec_events_enable(struct rec_events *ev);
int rec_events_disable(struct rec_events *ev);

/*
 * Sums the kernel's per-event lost-sample counters (PERF_FORMAT_LOST);
 * returns false when the kernel does not keep them.
 */
bool rec_events_lost(struct rec_events *ev, uint64_t *lost);

/* The name of event `i` ("cpu-clock", "sched:sched_switch"...). */
const char *rec_events_name(const struct rec_events *ev, size_t i);
/* Event `i`'s fixed sample period, or 0 when it is sampled at opts.freq. */
uint64_t rec_events_period(const struct rec_events *ev, size_t i);
/* The index of the event a sample's PERF_SAMPLE_IDENTIFIER names (0). */
size_t rec_events_index(const struct rec_events *ev, uint64_t id);

#endif
