/*
 * args.h: the values of sp-record's options, for main: each function
 * parses one option's argument and returns its value; on a bad one it
 * says why (`sp-record: invalid ...`) and exits through rec_args_usage()
 * (status 2), or with status 1 when the machine, not the command line,
 * is at fault.
 */
#ifndef SP_RECORD_ARGS_H
#define SP_RECORD_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sp-record/perf/events.h"
#include "sp-record/opts.h"
#include "sp-record/unwind/stack.h"

/* The synopsis on stderr, exit 2. */
void rec_args_usage(void) __attribute__((noreturn));
/* The synopsis and the options on stdout, exit 0 (1: write error). */
void rec_args_help(void) __attribute__((noreturn));

/* A whole number from 1 to `max`; `what` names it in the message. */
unsigned long long rec_args_number(const char *s, const char *what,
				   unsigned long long max);
/* -e: adds the events of a comma-separated list to o->events. */
void rec_args_event(const char *list, struct rec_events_opts *o);
/* --stack-size: a multiple of 8 the kernel accepts. */
uint32_t rec_args_stack_size(const char *s);
/* --stack-read: bytes read past the copy, 0 (none) to 64M. */
size_t rec_args_stack_read(const char *s);
/*
 * -p, -t: appends the ids of a list ("12,34", or "12 34" as
 * `-p "$(pidof app)"` writes it) to *pids (realloc'ed, the caller's).
 */
void rec_args_add_pids(const char *list, int32_t **pids, size_t *n);
/*
 * Drops the ids named more than once, keeping the first: `-t T` given
 * 20,000 times opened 20,000 sets of events on one thread, `-p 1` given
 * 2,000 times named its threads 2,000 times.
 */
void rec_args_unique_ids(int32_t *v, size_t *n);
/* -u: a user name or number. */
uid_t rec_args_user(const char *s);
/* -C: the list itself, once every CPU in it is one this machine can have. */
const char *rec_args_cpus(const char *s);
/* -d: seconds, above 0. */
double rec_args_duration(const char *s);
/* -g: fp or dwarf. */
enum rec_stack_callgraph rec_args_callgraph(const char *s);
/* -m: a power of two. */
size_t rec_args_pages(const char *s);
/* --capture: all or lost. */
enum rec_capture_mode rec_args_capture(const char *s);
/* --capture-max-file, --capture-max-total: bytes, K, M or G, above 0. */
uint64_t rec_args_size(const char *s, const char *what);

#endif
