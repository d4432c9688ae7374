/*
 * seen.h: what sp-dump has handled per process: each (stack, pid) whose
 * frames have their pframe records, and each (frame, pid) pframe
 * written.  Forgetting a process drops its keys, so a new process with
 * its pid gets its pframes again.
 */
#ifndef SP_DUMP_SEEN_H
#define SP_DUMP_SEEN_H

#include <stdbool.h>
#include <stdint.h>

/* The two sets: stack ids and frame ids, each with a pid. */
enum dump_seen_kind { DUMP_SEEN_STACK, DUMP_SEEN_FRAME };

struct dump_seen;

/* An empty table; NULL with errno on failure. */
struct dump_seen *dump_seen_new(void);
/* Frees the table; NULL is allowed. */
void dump_seen_free(struct dump_seen *s);
/*
 * Whether (id, pid) of `kind` was added and not forgotten since (the
 * answer is remembered for the next asking).
 */
bool dump_seen_has(struct dump_seen *s, enum dump_seen_kind kind, uint32_t id,
		   int32_t pid);
/* Adds (id, pid) of `kind`; returns 0 or -ENOMEM. */
int dump_seen_add(struct dump_seen *s, enum dump_seen_kind kind, uint32_t id,
		  int32_t pid);
/* Drops every key of process `pid`. */
void dump_seen_forget(struct dump_seen *s, int32_t pid);

#endif
