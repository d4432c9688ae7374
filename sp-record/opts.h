/*
 * opts.h: what the command line asks of the recorder (struct rec_config),
 * for the recorder and each of its parts.
 */
#ifndef SP_RECORD_OPTS_H
#define SP_RECORD_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sp-record/capture/capture.h"
#include "sp-record/perf/events.h"
#include "sp-record/unwind/stack.h"

struct rec_config {
	struct rec_events_opts ev;
	enum rec_stack_callgraph callgraph;
	bool follow;          /* -f: record processes forked later */
	bool system_wide;     /* -a: every process on the chosen CPUs */
	const char *cpu_list; /* -C: those CPUs only (with -a) */
	bool only_uid;        /* -u: one user's processes (with -a) */
	uid_t uid;
	bool off_cpu;            /* --off-cpu: the last event is "off-cpu" */
	uint64_t off_cpu_min_ns; /* shorter waits are not written */
	bool ptrace;             /* --ptrace: sample with ptrace, not perf */
	bool no_python;          /* --no-python: no Python stacks read */
	bool no_bpf;             /* --no-bpf: ... read by BPF at the sample */
	bool py_trampolines;     /* the targets run Python's perf trampolines */
	bool spool_on_stdout;    /* a launched command writes to stderr */
	bool quiet;              /* -q: no status line */
	size_t stack_read;       /* --stack-read: bytes past the copy */
	const char *output_name; /* for messages */
	enum rec_capture_mode capture;
	const char *capture_dir;    /* --capture-dir, or NULL: the default */
	uint64_t capture_max_file;  /* --capture-max-file, or 0: default */
	uint64_t capture_max_total; /* --capture-max-total, or 0: default */
	uint64_t capture_max_tree;  /* --capture-max-tree, or 0: default */
};

#endif
