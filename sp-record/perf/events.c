/*
 * events.c: perf_event_open layouts for launch and attach (see events.h);
 * what a refused open tells the user is events_why.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/htab.h"
#include "sp-record/sys/cpus.h"
#include "sp-record/perf/events.h"
#include "sp-record/sys/proc.h"
#include "sp-record/sys/sysctl.h"
#include "common/banned.h"

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

/* Rings never shrink below this many pages when mmap hits a limit. */
#define MIN_PAGES 8

/* Event `i` and how often it is sampled. */
/*
 * A sample's bytes in the ring, about: header, ids, time, period; a
 * callchain; registers and stack.
 */
static uint64_t
sample_bytes(const struct rec_events_opts *o)
{
	return 64 + 8 * 128 + (o->dwarf ? 8 * 24 + 16 + o->stack_size : 0);
}

static void
set_source(struct perf_event_attr *a, const struct rec_events_opts *o, size_t i)
{
	const struct rec_evname_spec *e = &o->events[i];

	a->type = e->type;
	a->config = e->config;
	a->exclude_user = e->exclude_user;
	a->freq = 0;
	a->sample_period = o->period && !e->every ? o->period : 1;
	if (!o->period && !e->tracepoint && !e->every) {
		a->freq = 1;
		a->sample_freq = o->freq;
	}
}

/*
 * The attributes of event `i`: the shared ones with its source; mapping,
 * comm and task records come from the first event only, so once.
 */
static void
event_attr(const struct rec_events *ev, size_t i, struct perf_event_attr *a)
{
	*a = ev->attr;
	set_source(a, &ev->opts, i);
	if (ev->opts.events[i].exclude_kernel) {
		a->exclude_kernel = 1;
		a->exclude_callchain_kernel = 1;
	}
	if (i > 0)
		a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task =
		    a->context_switch = 0;
}

const char *
rec_events_errmsg(const struct rec_events *ev)
{
	return ev->msg.len ? (const char *)ev->msg.data : "";
}

const char *
rec_events_name(const struct rec_events *ev, size_t i)
{
	return ev->opts.events[i < ev->opts.nevents ? i : 0].name;
}

uint64_t
rec_events_period(const struct rec_events *ev, size_t i)
{
	struct perf_event_attr a;

	set_source(&a, &ev->opts, i);
	return a.freq ? 0 : a.sample_period;
}

size_t
rec_events_index(const struct rec_events *ev, uint64_t id)
{
	uint64_t i;

	return ev->ids && sp_htab_get(ev->ids, &id, sizeof(id), &i) ? i : 0;
}

int
rec_events_init(struct rec_events *ev, const struct rec_events_opts *o)
{
	struct perf_event_attr *a = &ev->attr;
	long max_stack;
	size_t bytes;
	uint64_t wake;
	int i;

	memset(ev, 0, sizeof(*ev));
	ev->opts = *o;
	ev->ncpus = rec_cpus_online(&ev->cpus);
	if (ev->ncpus < 1)
		return -ENOMEM;
	ev->rings = calloc((size_t)ev->ncpus, sizeof(*ev->rings));
	ev->tids = sp_htab_new();
	if (!ev->rings || !ev->tids)
		return -ENOMEM;
	for (i = 0; i < ev->ncpus; i++)
		ev->rings[i].fd = -1;

	a->size = sizeof(*a);
	set_source(a, o, 0);
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CALLCHAIN;
	/* --off-cpu's sched_switch: its raw data says why a thread left. */
	for (i = 0; i < (int)o->nevents; i++)
		if (o->events[i].state_size)
			a->sample_type |= PERF_SAMPLE_RAW;
	if (o->dwarf) {
		a->sample_type |=
		    PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = o->regs_mask;
		a->sample_stack_user = o->stack_size;
		a->exclude_callchain_user = 1;
	}
	/*
	 * Sample in the kernel too when allowed, so time spent in system
	 * calls counts against the user stack that made them; keep kernel
	 * frames only with -k.
	 */
	a->exclude_kernel = 0;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = !o->kernel;
	if (rec_sysctl_long("kernel.perf_event_max_stack", &max_stack) < 0)
		max_stack = 127;
	a->sample_max_stack = (uint16_t)(max_stack < 127 ? max_stack : 127);
	a->read_format = PERF_FORMAT_LOST;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->context_switch = o->switches;
	a->sample_id_all = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->disabled = 1;
	a->inherit = 1;
	/* Wake the reader when a quarter of the ring is used. */
	bytes = o->pages * (size_t)sysconf(_SC_PAGESIZE);
	wake = bytes / 4;
	a->watermark = 1;
	a->wakeup_watermark = o->wake_each ? 1 : (uint32_t)wake;
	/* Several events: each sample says which (IOC_ID ids). */
	if (o->nevents > 1) {
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
		if (!(ev->ids = sp_htab_new()))
			return -ENOMEM;
	}
	ev->kernel_sampling = !o->events[0].exclude_kernel;
	ev->kernel_stacks = o->kernel && !o->events[0].exclude_kernel;
	return 0;
}

size_t
rec_events_default_pages(const struct rec_events_opts *o, long ncpus,
			 long pagesize)
{
	uint64_t want = o->freq * sample_bytes(o) / 4 / (uint64_t)pagesize;
	uint64_t cap = (256ull << 20) / (uint64_t)pagesize /
		       (uint64_t)(ncpus > 0 ? ncpus : 1);
	size_t pages = 128;

	while (pages < want && pages < 2048 && pages * 2 <= cap)
		pages *= 2;
	return pages;
}

void
rec_events_release(struct rec_events *ev)
{
	size_t i;
	int c;

	rec_events_disable(ev);
	sp_buf_release(&ev->msg);
	for (c = 0; ev->rings && c < ev->ncpus; c++)
		rec_ring_release(&ev->rings[c]);
	for (i = 0; i < ev->nfds; i++)
		close(ev->fds[i]);
	free(ev->fds);
	free(ev->rings);
	free(ev->cpus);
	sp_htab_free(ev->tids);
	sp_htab_free(ev->ids);
	ev->ids = NULL;
	ev->fds = NULL;
	ev->rings = NULL;
	ev->cpus = NULL;
	ev->tids = NULL;
	ev->nfds = 0;
}

/* Whether an event (--off-cpu's) only fires in the kernel. */
static bool
wants_kernel(const struct rec_events *ev)
{
	size_t i;

	for (i = 0; i < ev->opts.nevents; i++)
		if (ev->opts.events[i].every)
			return true;
	return false;
}

/*
 * Adapts the attributes after a failed open; returns true to retry.  Each
 * adaptation is permanent so later opens succeed at once.
 */
static bool
adapt(struct rec_events *ev, int err)
{
	struct perf_event_attr *a = &ev->attr;

	if (a->type == PERF_TYPE_HARDWARE && !ev->opts.source_explicit &&
	    (err == ENOENT || err == EOPNOTSUPP || err == ENODEV ||
	     err == EINVAL)) {
		rec_evname_cpu_clock(&ev->opts.events[0]);
		set_source(a, &ev->opts, 0);
		ev->fell_back = true;
		return true;
	}
	/* A user-only off-CPU event would never fire: it fires in the
	 * kernel's scheduler.  Say so rather than record no waits. */
	if ((err == EACCES || err == EPERM) && !a->exclude_kernel &&
	    wants_kernel(ev)) {
		ev->offcpu_denied = true;
		return false;
	}
	if ((err == EACCES || err == EPERM) && !a->exclude_kernel) {
		a->exclude_kernel = 1;
		a->exclude_callchain_kernel = 1;
		ev->kernel_sampling = false;
		if (ev->kernel_stacks)
			ev->kernel_denied = true;
		ev->kernel_stacks = false;
		return true;
	}
	if (err == EINVAL && (a->read_format & PERF_FORMAT_LOST)) {
		a->read_format = 0;
		return true;
	}
	if (err == EOVERFLOW && a->sample_max_stack > 8) {
		a->sample_max_stack /= 2;
		return true;
	}
	return false;
}

/* Opens event `i`; with several events, learns its id. */
static int
open_one(struct rec_events *ev, size_t i, int32_t pid, int cpu)
{
	struct perf_event_attr a;
	int fd, err = EINVAL, tries;
	uint64_t id;

	ev->failed = i;
	for (tries = 0; tries < 8; tries++) {
		event_attr(ev, i, &a);
		fd = (int)syscall(SYS_perf_event_open, &a, (pid_t)pid, cpu, -1,
				  PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			break;
		err = errno;
		if (!adapt(ev, err))
			return -err;
	}
	if (fd < 0)
		return -err;
	if (ev->ids && (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0 ||
			sp_htab_put(ev->ids, &id, sizeof(id), i) < 0)) {
		close(fd);
		return -ENOMEM;
	}
	return fd;
}

static int
keep_fd(struct rec_events *ev, int fd)
{

	if (SP_GROW(ev->fds, ev->afds, ev->nfds + 1))
		return -ENOMEM;
	ev->fds[ev->nfds++] = fd;
	return 0;
}

/* Maps ring `c` over event fd, halving its size on memory limits. */
static int
map_ring(struct rec_events *ev, int c, int fd)
{
	size_t pages = ev->opts.pages;
	int rc;

	for (;;) {
		rc = rec_ring_map(&ev->rings[c], fd, pages);
		if (rc == 0)
			break;
		if ((rc != -EPERM && rc != -ENOMEM) || pages / 2 < MIN_PAGES) {
			sp_buf_reset(&ev->msg);
			sp_buf_addf(&ev->msg,
				    "mmap of a %zu KiB perf ring: %s (limits: "
				    "ulimit -l, kernel.perf_event_mlock_kb)",
				    pages * (size_t)sysconf(_SC_PAGESIZE) /
					1024,
				    strerror(-rc));
			ev->rings[c].fd = -1;
			return rc;
		}
		pages /= 2;
	}
	/* Later rings start from the size that worked. */
	ev->opts.pages = pages;
	return 0;
}

/*
 * Attaches the BPF program to event `fd`.  An event that refuses it (a
 * tracepoint takes no perf_event program) samples without it: its
 * Python stacks are read after the sample, which the summary counts.
 */
static void
attach_prog(const struct rec_events *ev, int fd)
{
	(void)ioctl(fd, PERF_EVENT_IOC_SET_BPF, ev->bpf_fd);
}

/* Opens event `i` of `pid` (-1: every task) on CPU slot `c`, routed
 * into that CPU's ring. */
static int
open_routed(struct rec_events *ev, size_t i, int c, int32_t pid, bool attach)
{
	int fd = open_one(ev, i, pid, ev->cpus[c]), rc;

	if (fd < 0) {
		rec_events_why_explain(&ev->msg, ev, -fd, pid, attach);
		return fd;
	}
	if (keep_fd(ev, fd) < 0) {
		close(fd);
		return -ENOMEM;
	}
	if (ev->bpf_fd > 0)
		attach_prog(ev, fd);
	if (ev->rings[c].fd < 0)
		return map_ring(ev, c, fd);
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ev->rings[c].fd) < 0) {
		rc = -errno;
		sp_buf_reset(&ev->msg);
		sp_buf_addf(&ev->msg, "PERF_EVENT_IOC_SET_OUTPUT: %s",
			    strerror(-rc));
		return rc;
	}
	return 0;
}

/* Opens the events of one task on every CPU; routes them to the rings. */
static int
open_task(struct rec_events *ev, int32_t pid, bool attach)
{
	size_t i;
	int c, rc;

	for (c = 0; c < ev->ncpus; c++)
		for (i = 0; i < ev->opts.nevents; i++)
			if ((rc = open_routed(ev, i, c, pid, attach)) < 0)
				return rc;
	return 0;
}

int
rec_events_select_cpus(struct rec_events *ev, const char *list)
{
	int *want, n, i, c, kept = 0;
	const char *bad;

	sp_buf_reset(&ev->msg);
	n = rec_cpus_parse(list, rec_cpus_possible(), &want, &bad);
	if (n <= 0) {
		sp_buf_reset(&ev->msg);
		sp_buf_addf(&ev->msg, "invalid CPU list '%s' (as 0-3,6)", list);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		for (c = 0; c < ev->ncpus && ev->cpus[c] != want[i]; c++)
			;
		if (c == ev->ncpus) {
			sp_buf_reset(&ev->msg);
			sp_buf_addf(&ev->msg, "CPU %d is not online", want[i]);
			free(want);
			return -EINVAL;
		}
	}
	/* Keep the online CPUs named, in order, each once. */
	for (c = 0; c < ev->ncpus; c++)
		for (i = 0; i < n; i++)
			if (want[i] == ev->cpus[c]) {
				ev->cpus[kept++] = ev->cpus[c];
				break;
			}
	ev->ncpus = kept;
	free(want);
	return 0;
}

int
rec_events_open_cpus(struct rec_events *ev)
{
	/* A CPU-wide event sees every task: nothing to inherit. */
	sp_buf_reset(&ev->msg);
	ev->attr.inherit = 0;
	return open_task(ev, -1, false);
}

int
rec_events_open_thread(struct rec_events *ev, int32_t tid)
{
	int rc;

	/* -t: that thread only, not the threads it creates. */
	sp_buf_reset(&ev->msg);
	ev->attr.inherit = 0;
	rc = open_task(ev, tid, true);
	ev->attr.inherit = 1;
	return rc;
}

void
rec_events_attach_bpf(struct rec_events *ev, int fd)
{
	size_t i;

	ev->bpf_fd = fd;
	for (i = 0; i < ev->nfds; i++)
		attach_prog(ev, ev->fds[i]);
}

void
rec_events_user_chain(struct rec_events *ev, bool on)
{
	if (ev->opts.dwarf)
		ev->attr.exclude_callchain_user = !on;
}

int
rec_events_open_launch(struct rec_events *ev, int32_t pid)
{
	int rc;

	sp_buf_reset(&ev->msg);
	ev->attr.enable_on_exec = 1;
	rc = open_task(ev, pid, false);
	ev->attr.enable_on_exec = 0;
	return rc;
}

long
rec_events_open_attach(struct rec_events *ev, int32_t pid)
{
	int32_t *tids;
	long n, i, opened = 0, added;
	int pass, rc;
	bool fresh;

	sp_buf_reset(&ev->msg);
	for (pass = 0; pass < 32; pass++) {
		n = rec_proc_tasks(pid, &tids);
		if (n < 0 && opened == 0) {
			rec_events_why_explain(&ev->msg, ev,
					       n == -ENOENT ? ESRCH : (int)-n,
					       pid, true);
			return n == -ENOENT ? -ESRCH : n;
		}
		if (n < 0)
			break;
		added = 0;
		for (i = 0; i < n; i++) {
			if (sp_htab_get(ev->tids, &tids[i], sizeof(tids[i]),
					NULL))
				continue;
			rc = open_task(ev, tids[i], true);
			if (rc == -ESRCH)
				continue; /* the thread just exited */
			if (rc < 0) {
				free(tids);
				return rc;
			}
			if (!sp_htab_slot(ev->tids, &tids[i], sizeof(tids[i]),
					  1, &fresh)) {
				free(tids);
				return -ENOMEM;
			}
			added++;
		}
		free(tids);
		opened += added;
		/* Threads created while we opened are inherited or listed. */
		if (added == 0)
			break;
	}
	if (opened == 0) {
		sp_buf_reset(&ev->msg);
		sp_buf_addf(&ev->msg, "process %d exited during attach",
			    (int)pid);
		return -ESRCH;
	}
	return opened;
}

static int
ioctl_all(struct rec_events *ev, unsigned long req)
{
	int first = 0;
	size_t i;

	for (i = 0; i < ev->nfds; i++)
		if (ioctl(ev->fds[i], req, 0) < 0 && !first)
			first = -errno;
	return first;
}

int
rec_events_enable(struct rec_events *ev)
{
	return ioctl_all(ev, PERF_EVENT_IOC_ENABLE);
}

int
rec_events_disable(struct rec_events *ev)
{
	return ioctl_all(ev, PERF_EVENT_IOC_DISABLE);
}

bool
rec_events_lost(struct rec_events *ev, uint64_t *lost)
{
	uint64_t v[2];
	size_t i;

	*lost = 0;
	if (!(ev->attr.read_format & PERF_FORMAT_LOST))
		return false;
	for (i = 0; i < ev->nfds; i++)
		if (read(ev->fds[i], v, sizeof(v)) == (ssize_t)sizeof(v))
			*lost += v[1];
	return true;
}
