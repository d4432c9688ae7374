/*
 * evname.h: the events -e names, as perf names them: software events
 * (cpu-clock, page-faults...), hardware events (cycles, instructions...,
 * with :u or :k), raw PMU events (rNNNN) and tracepoints (SYS:NAME, their
 * id read from tracefs).  -l lists what this machine offers.
 */
#ifndef SP_RECORD_PERF_EVNAME_H
#define SP_RECORD_PERF_EVNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "common/ext.h"

#define REC_EVNAME_MAX 128

struct rec_evname_spec {
	char name[REC_EVNAME_MAX]; /* canonical, modifiers included */
	uint32_t type;             /* PERF_TYPE_* */
	uint64_t config;
	bool exclude_user;   /* :k */
	bool exclude_kernel; /* :u */
	bool is_time;        /* cpu-clock or task-clock: samples are time */
	bool tracepoint;     /* sampled at every hit unless -c says */
	bool every;          /* sampled at every hit, whatever -c says */
	/* --off-cpu from sched:sched_switch: where prev_state sits in the
	 * raw data (state_size 0: not recorded). */
	uint32_t state_off, state_size;
};

/*
 * Parses an -e argument.  Returns 0, or -EINVAL (no such event) or
 * -EACCES (tracefs is not readable here: a matter of permission, not of
 * spelling) with a one-line reason appended to `err` (it names the event
 * and says where to look for valid ones, or what to change).
 */
int rec_evname_parse(const char *s, struct rec_evname_spec *out,
		     struct sp_buf *err);
/* The default event: hardware cycles (cpu-clock where there are none). */
void rec_evname_default(struct rec_evname_spec *out);
/* Turns the spec into cpu-clock (the fallback for a missing PMU). */
void rec_evname_cpu_clock(struct rec_evname_spec *out);
/*
 * --off-cpu's event, named "off-cpu": every context switch, sampled in
 * the thread switched out (its stack where it blocked).  Where tracefs
 * and the privilege for raw tracepoint data allow, it is the
 * sched:sched_switch tracepoint, whose prev_state says why the thread
 * left the CPU; otherwise the context-switches software event.
 */
void rec_evname_off_cpu(struct rec_evname_spec *out);
/*
 * Why a thread left the CPU, from a sched_switch sample's raw data as
 * `spec` locates it: SP_WAIT_NONE when the sample does not say.
 */
enum sp_wait_state rec_evname_wait_state(const struct rec_evname_spec *spec,
					 const uint8_t *raw, size_t len);
/* The software events, "cpu-clock, task-clock, ...", cut to fit. */
void rec_evname_software_names(char *buf, size_t len);
/*
 * Prints every event this machine can sample, one per line with its kind
 * (hardware events only where the PMU has them).  Returns 0 or -errno of
 * the write.
 */
int rec_evname_list(FILE *out);

#endif
