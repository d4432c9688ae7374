/*
 * summary.h: what sp-record prints on stderr about a recording: the
 * one-screen summary at the end and the status line while it runs.
 *
 * struct rec_summary lends the printers the parts they read, and the stats
 * record's writer (statsrec.h) too; nothing is kept.
 */
#ifndef SP_RECORD_SUMMARY_H
#define SP_RECORD_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "sp-record/capture/capture.h"
#include "sp-record/unwind/deepbpf.h"
#include "sp-record/perf/events.h"
#include "sp-record/files/filepin.h"
#include "sp-record/sys/proc.h"
#include "sp-record/ptrace/ptrace.h"
#include "sp-record/python/pybpf.h"
#include "sp-record/python/reader.h"
#include "sp-record/opts.h"
#include "sp-record/stats.h"
#include "sp-record/out/spoolout.h"
#include "sp-record/unwind/stack.h"

struct rec_summary {
	const struct rec_config *cfg;
	const struct rec_events *ev;
	const struct rec_stats *st;
	const struct rec_stack *stk;
	const struct rec_proc_tab *procs;
	uint32_t nmodules;
	const struct rec_spoolout *out;
	const struct rec_ptrace_summary *ptsum; /* --ptrace, else NULL */
	uint64_t offcpu_short;                  /* waits left out */
	struct rec_reader *py;                  /* or NULL: --no-python */
	const char *py_late; /* why stacks are read after the sample, "" */
	const struct rec_capture_stats *cap; /* or NULL: --no-capture */
	const struct rec_filepin_stats *pins;
	const struct rec_deepbpf_stats *deep; /* or NULL: no deep copies */
	const struct rec_pybpf_stats *pybpf;  /* or NULL: no Python BPF */
};

/* As rec_recorder_summary() and rec_recorder_status_line() (recorder.h). */
void rec_summary_print(const struct rec_summary *rp, FILE *out, double seconds);
void rec_summary_status(const struct rec_summary *rp, FILE *out,
			double seconds);

#endif
