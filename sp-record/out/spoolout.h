/*
 * spoolout.h: the recorder's output part: the spool writer, the first
 * write error (sticky: once set, every writer here returns it and writes
 * nothing more), the records the recorder writes of its own (comm, exit,
 * lost, weight, wait, build ids, host, events, the kernel module), and
 * what the summary says of the output (its bytes, a cut back after an
 * error).
 *
 * Every writer returns 0 or the negative errno that stopped the output;
 * the first error is printed once (`sp-record: 'NAME': why`).  A part
 * that writes through the writer itself (the module table, a sample)
 * hands the result to rec_spoolout_wr() so the error sticks here too.
 */
#ifndef SP_RECORD_OUT_SPOOLOUT_H
#define SP_RECORD_OUT_SPOOLOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/modtab.h"
#include "common/spool.h"
#include "sp-record/perf/events.h"

struct rec_filepin;
struct rec_spoolout;

/*
 * Starts a spool on `fd` (not owned; written from its current offset,
 * which a cut back after an error keeps) with the header and the host
 * record; `name` (kept, not copied) names it in messages.  Build ids are
 * read from module files opened through `pins` (borrowed, may be NULL)
 * as a last resort.  Returns NULL with errno set.
 */
struct rec_spoolout *rec_spoolout_new(int fd, const char *name,
				      uint64_t start_us, uint64_t interval_us,
				      struct rec_filepin *pins);
void rec_spoolout_free(struct rec_spoolout *o);

/*
 * Keeps `rc` as the output's error when it is the first; returns rc when
 * negative, else 0.  A pipe whose reader went away (EPIPE) is no error:
 * the reader chose to stop (`| head`, the live view's q), or the
 * interrupt that stops us ended it too (`| tee x.spool` under Ctrl-C).
 * It is kept without a message, and rec_spoolout_reader_gone() says so.
 */
int rec_spoolout_wr(struct rec_spoolout *o, int rc);
/* The first write error, or 0. */
int rec_spoolout_error(const struct rec_spoolout *o);
/* Whether the reader went away; *at_stop: with the interrupt. */
bool rec_spoolout_reader_gone(const struct rec_spoolout *o, bool *at_stop);

/*
 * The writer, for parts that write through it (sp_modtab_intern(), a
 * sample); what they return goes to rec_spoolout_wr().
 */
struct sp_spool_writer *rec_spoolout_writer(struct rec_spoolout *o);

/*
 * The extension payload scratch, emptied: fill it, then write it with
 * rec_spoolout_ext().  Valid until the next call here.
 */
struct sp_buf *rec_spoolout_scratch(struct rec_spoolout *o);
int rec_spoolout_ext(struct rec_spoolout *o, uint8_t tag);

int rec_spoolout_comm(struct rec_spoolout *o, uint64_t ts, int32_t pid,
		      int32_t tid, bool is_exec, const char *name, size_t len);
int rec_spoolout_lost(struct rec_spoolout *o, uint64_t ts, uint64_t count);
int rec_spoolout_exit(struct rec_spoolout *o, uint64_t ts, int32_t pid,
		      int32_t tid);
/* The event and weight of the sample written next. */
int rec_spoolout_weight(struct rec_spoolout *o, uint32_t event,
			uint64_t weight);
/* Why the thread of the sample written next was off the CPU. */
int rec_spoolout_wait(struct rec_spoolout *o, enum sp_wait_state state);
/* One event record per event: the spool names what it sampled. */
int rec_spoolout_events(struct rec_spoolout *o, const struct rec_events *ev);
int rec_spoolout_flush(struct rec_spoolout *o);

/*
 * Interns module `m` in `mods`, writing its record and, when the module
 * is new, its file's build id.
 */
int rec_spoolout_intern(struct rec_spoolout *o, struct sp_modtab *mods,
			const struct sp_module *m, uint32_t *id);
/*
 * Writes the build ids of the modules `mods` interned since id `first`
 * (new files or clones): one note read per file, cached.
 */
int rec_spoolout_buildids(struct rec_spoolout *o, const struct sp_modtab *mods,
			  uint32_t first);
/*
 * The build id of user module `m`'s file, as its buildid record gives it
 * (read once per file): its length with the bytes in `out`
 * (REC_BUILDID_MAX), or 0 when it has none.
 */
size_t rec_spoolout_module_buildid(struct rec_spoolout *o,
				   const struct sp_module *m, uint8_t *out);
/*
 * Interns the kernel's text as one module "[kernel.kallsyms]" from
 * /proc/kallsyms; nothing when its addresses are hidden (kernel frames
 * then stay module-less, which readers accept).
 */
int rec_spoolout_kernel_module(struct rec_spoolout *o, struct sp_modtab *mods);

/*
 * After a write error (a full disk) the spool may end inside a record:
 * cuts it back to the last whole one, so readers take what was written
 * (says so when it cannot).  Nothing without an error, or when the
 * output closed after a stop request.
 */
void rec_spoolout_trim(struct rec_spoolout *o);
/* The bytes kept by rec_spoolout_trim(); false when it cut nothing. */
bool rec_spoolout_trimmed(const struct rec_spoolout *o, uint64_t *kept);
/* The bytes written; after a write error, those that reached the output. */
uint64_t rec_spoolout_bytes(const struct rec_spoolout *o);
/* The spool header's start time (wall-clock microseconds). */
uint64_t rec_spoolout_start_us(const struct rec_spoolout *o);

#endif
