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
 * hands the result to rec_out_wr() so the error sticks here too.
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
struct rec_out;

/*
 * Starts a spool on `fd` (not owned; written from its current offset,
 * which a cut back after an error keeps) with the header and the host
 * record; `name` (kept, not copied) names it in messages.  Build ids are
 * read from module files opened through `pins` (borrowed, may be NULL)
 * as a last resort.  Returns NULL with errno set.
 */
struct rec_out *rec_out_new(int fd, const char *name, uint64_t start_us,
			    uint64_t interval_us, struct rec_filepin *pins);
void rec_out_free(struct rec_out *o);

/*
 * Keeps `rc` as the output's error when it is the first; returns rc when
 * negative, else 0.  A pipe whose reader went away (EPIPE) is no error:
 * the reader chose to stop (`| head`, the live view's q), or the
 * interrupt that stops us ended it too (`| tee x.spool` under Ctrl-C).
 * It is kept without a message, and rec_out_reader_gone() says so.
 */
int rec_out_wr(struct rec_out *o, int rc);
/* The first write error, or 0. */
int rec_out_error(const struct rec_out *o);
/* Whether the reader went away; *at_stop: with the interrupt. */
bool rec_out_reader_gone(const struct rec_out *o, bool *at_stop);

/*
 * The writer, for parts that write through it (sp_modtab_intern(), a
 * sample); what they return goes to rec_out_wr().
 */
struct sp_spool_writer *rec_out_writer(struct rec_out *o);

/*
 * The extension payload scratch, emptied: fill it, then write it with
 * rec_out_ext().  Valid until the next call here.
 */
struct sp_buf *rec_out_scratch(struct rec_out *o);
int rec_out_ext(struct rec_out *o, uint8_t tag);

int rec_out_comm(struct rec_out *o, uint64_t ts, int32_t pid, int32_t tid,
		 bool is_exec, const char *name, size_t len);
int rec_out_lost(struct rec_out *o, uint64_t ts, uint64_t count);
int rec_out_exit(struct rec_out *o, uint64_t ts, int32_t pid, int32_t tid);
/* The event and weight of the sample written next. */
int rec_out_weight(struct rec_out *o, uint32_t event, uint64_t weight);
/* Why the thread of the sample written next was off the CPU. */
int rec_out_wait(struct rec_out *o, enum sp_wait_state state);
/* One event record per event: the spool names what it sampled. */
int rec_out_events(struct rec_out *o, const struct rec_events *ev);
int rec_out_flush(struct rec_out *o);

/*
 * Interns module `m` in `mods`, writing its record and, when the module
 * is new, its file's build id.
 */
int rec_out_intern(struct rec_out *o, struct sp_modtab *mods,
		   const struct sp_module *m, uint32_t *id);
/*
 * Writes the build ids of the modules `mods` interned since id `first`
 * (new files or clones): one note read per file, cached.
 */
int rec_out_buildids(struct rec_out *o, const struct sp_modtab *mods,
		     uint32_t first);
/*
 * The build id of user module `m`'s file, as its buildid record gives it
 * (read once per file): its length with the bytes in `out`
 * (REC_BUILDID_MAX), or 0 when it has none.
 */
size_t rec_out_module_buildid(struct rec_out *o, const struct sp_module *m,
			      uint8_t *out);
/*
 * Interns the kernel's text as one module "[kernel.kallsyms]" from
 * /proc/kallsyms; nothing when its addresses are hidden (kernel frames
 * then stay module-less, which readers accept).
 */
int rec_out_kernel_module(struct rec_out *o, struct sp_modtab *mods);

/*
 * After a write error (a full disk) the spool may end inside a record:
 * cuts it back to the last whole one, so readers take what was written
 * (says so when it cannot).  Nothing without an error, or when the
 * output closed after a stop request.
 */
void rec_out_trim(struct rec_out *o);
/* The bytes kept by rec_out_trim(); false when it cut nothing. */
bool rec_out_trimmed(const struct rec_out *o, uint64_t *kept);
/* The bytes written; after a write error, those that reached the output. */
uint64_t rec_out_bytes(const struct rec_out *o);
/* The spool header's start time (wall-clock microseconds). */
uint64_t rec_out_start_us(const struct rec_out *o);

#endif
