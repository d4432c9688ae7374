/*
 * start.h: starting a recording: opening the events for a launched
 * command, attached processes, threads or whole CPUs, tracking the
 * targets and writing what the spool needs before the first sample (the
 * events, the kernel module, the targets' maps and thread names).
 *
 * struct rec_start lends these functions the recorder's parts; they
 * print their own diagnostics (`sp-record: ...`) and return 0 or an exit
 * status for sp-record (1: setup failed; 126/127: the command could not
 * be executed).
 */
#ifndef SP_RECORD_START_H
#define SP_RECORD_START_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sp-record/perf/events.h"
#include "sp-record/opts.h"
#include "sp-record/out/spoolout.h"
#include "sp-record/unwind/stack.h"
#include "sp-record/tracking.h"

struct rec_start {
	/* Borrowed, set by the caller. */
	const struct rec_config *cfg;
	struct rec_events *ev;
	struct rec_stack *stk; /* learns what the events can give */
	struct rec_tracking *trk;
	struct rec_spoolout *out;
	/* Set here: the launched command (0: none), and its wait status
	 * once `reaped` (a start that failed waits for it). */
	pid_t child;
	bool reaped;
	int status;
};

/* As rec_recorder_launch(), rec_recorder_attach(), rec_recorder_system_wide(),
 * rec_recorder_attach_threads(). */
int rec_start_launch(struct rec_start *s, char **argv);
int rec_start_attach(struct rec_start *s, int32_t *pids, size_t n);
int rec_start_system_wide(struct rec_start *s, char **argv);
int rec_start_threads(struct rec_start *s, const int32_t *tids, size_t n);

/*
 * Says why command `cmd` could not be executed (errno `e`); returns the
 * shell's status for it (127 not found, 126 not executable).
 */
int rec_start_exec_failed(const char *cmd, int e);

#endif
