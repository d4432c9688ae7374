/*
 * handlers.h: the handlers that turn perf records (sample, mmap2, comm,
 * fork, exit, lost, switch) and the recorder's own retire events into
 * spool records, in time order, and --off-cpu's waiting stacks.
 *
 * struct rec_handlers holds what the handlers use: the parts they borrow
 * (the tracker, the output, the stacker, the record layout, the events,
 * the counters), which the caller sets and which must outlive it, and
 * what they own (the frame scratch, the waiting stacks).  Each handler
 * returns 0 or the output's negative errno; a record that does not
 * decode is counted (bad_records) and skipped.
 *
 * The Python annotator (python/reader.h), a borrowed part, reads a sampled
 * thread's Python stack before the sample reaches the handlers; here
 * rec_handlers_write_sample() writes it, tied to the unwound stack, before the
 * sample.
 */
#ifndef SP_RECORD_HANDLERS_H
#define SP_RECORD_HANDLERS_H

#include <stdbool.h>
#include <stdint.h>

#include "sp-record/capture/capture.h"
#include "sp-record/unwind/deepbpf.h"
#include "sp-record/perf/events.h"
#include "sp-record/perf/offcpu.h"
#include "sp-record/perf/perfrec.h"
#include "sp-record/opts.h"
#include "sp-record/python/reader.h"
#include "sp-record/stats.h"
#include "sp-record/perf/sorter.h"
#include "sp-record/out/spoolout.h"
#include "sp-record/unwind/stack.h"
#include "sp-record/tracking.h"

/* Kinds of sorter events: perf records, and the recorder's own. */
enum { REC_KIND_PERF, REC_KIND_RETIRE };

/* A process found dead; retired in time order once earlier events ran. */
struct rec_handlers_retire {
	int32_t pid;
	uint32_t pad;
	uint64_t start_time;
};

/*
 * How long after an exec's announcement a sample may still carry the old
 * program's registers (the kernel maps the new one, then switches).
 */
#define REC_HANDLERS_EXEC_STALE_NS 50000000ULL

struct rec_handlers {
	/* Borrowed, set by the caller. */
	struct rec_tracking *trk;
	struct rec_spoolout *out;
	struct rec_stack *stk;
	const struct rec_perfrec_layout *layout;
	const struct rec_events *ev;
	struct rec_stats *st;
	struct rec_reader *py;    /* Python stacks, or NULL (--no-python) */
	struct rec_capture *cap;  /* module files kept, or NULL */
	struct rec_deepbpf *deep; /* deep stacks copied by BPF, or NULL */
	bool ptrace; /* samples come from --ptrace: no event, no MMAP2 */
	/* Options, from rec_handlers_init(). */
	bool system_wide, follow;
	uint64_t off_cpu_min_ns;
	/* Its own. */
	struct sp_frame *frames;   /* REC_STACK_MAX */
	struct rec_offcpu *offcpu; /* --off-cpu: threads switched out */
	uint64_t offcpu_short;     /* waits under --off-cpu-min */
	bool gap;                  /* events lost; the caller clears it */
	/*
	 * A launched command: every thread's fork and exit comes as a
	 * record, until some are lost, so the last exit ends a process (as
	 * under -a) without a look in /proc.  Set by the caller.
	 */
	bool exits_whole;
};

/*
 * Sets up the handlers' own state for `cfg` (the borrowed parts are left
 * NULL for the caller to set).  Returns 0 or -ENOMEM.
 */
int rec_handlers_init(struct rec_handlers *h, const struct rec_config *cfg);
void rec_handlers_release(struct rec_handlers *h);

/* Handles one event popped from the sorter. */
int rec_handlers_handle(struct rec_handlers *h,
			const struct rec_sorter_event *e);
/*
 * Unwinds and writes one sample of tracked process `p` (perf's, or one
 * --ptrace made).
 */
int rec_handlers_write_sample(struct rec_handlers *h, struct rec_proc *p,
			      const struct rec_perfrec_sample *s);
/* --off-cpu: writes every stack still waiting, as if run again at `now`. */
int rec_handlers_offcpu_flush(struct rec_handlers *h, uint64_t now);

#endif
