/*
 * ext.h: the project's extension records (tags >= 16), their payloads and
 * codecs.  Each is framed in the spool as tag, varint length, payload, so
 * the reference reader's successors and older readers can skip them.
 *
 *   16 host     pairs of (len key, len value): release, bootid, hostname,
 *               arch, pagesize, clock
 *   17 comm     ts pid(s) tid is_exec(byte) len name
 *   18 lost     ts count            events the kernel or recorder lost
 *   19 stats    pairs of (len key, varint value): counters by kind
 *   20 exit     ts pid(s) tid       a thread (or, tid == pid, a process) ended
 *   21 buildid  module_id len bytes
 *   22 event    index len name period freq   an event samples come from;
 *               period 0: sampled at freq Hz
 *   23 weight   event weight        of the next sample: its event's index
 *               and how many events it stands for (the period)
 *   24 wait     state               of the next sample: why its thread was
 *               off the CPU (enum sp_wait_state), for --off-cpu stacks
 *   26-28       the Python frame records: ext_py.h
 * Decoders return 0 or -EBADMSG; strings point into the payload (not
 * NUL-terminated) and live as long as it does.
 */
#ifndef SP_EXT_H
#define SP_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/ext_py.h"

enum sp_ext_tag {
	SP_EXT_HOST = 16,
	SP_EXT_COMM = 17,
	SP_EXT_LOST = 18,
	SP_EXT_STATS = 19,
	SP_EXT_EXIT = 20,
	SP_EXT_BUILDID = 21,
	SP_EXT_EVENT = 22,
	SP_EXT_WEIGHT = 23,
	SP_EXT_WAIT = 24,
};

/*
 * Why a thread was off the CPU, as the kernel said: preempted (still
 * runnable), asleep (interruptible wait: sleep, poll, futex, pipe),
 * uninterruptible ("D", mostly disk I/O), or blocked (one of the last
 * two, where only the context-switch records were available).
 */
enum sp_wait_state {
	SP_WAIT_NONE = 0,
	SP_WAIT_PREEMPTED = 1,
	SP_WAIT_SLEEP = 2,
	SP_WAIT_IO = 3,
	SP_WAIT_BLOCKED = 4,
	SP_WAIT_NSTATES
};

/* Event indexes fit this bound; more -e events are refused. */
#define SP_EXT_EVENTS_MAX 64

struct sp_ext_comm {
	uint64_t timestamp_ns;
	int32_t pid;
	uint64_t tid;
	bool is_exec;
	const char *name;
	size_t name_len;
};

struct sp_ext_lost {
	uint64_t timestamp_ns;
	uint64_t count;
};

struct sp_ext_exit {
	uint64_t timestamp_ns;
	int32_t pid;
	uint64_t tid;
};

struct sp_ext_buildid {
	uint32_t module_id;
	const uint8_t *id;
	size_t id_len;
};

struct sp_ext_event {
	uint32_t index;
	const char *name;
	size_t name_len;
	uint64_t period; /* 0: frequency mode */
	uint64_t freq;
};

struct sp_ext_weight {
	uint32_t event;
	uint64_t weight;
};

/* Encoders append a payload (without tag and length) to `out`. */
int sp_ext_comm_encode(struct sp_buf *out, const struct sp_ext_comm *c);
int sp_ext_lost_encode(struct sp_buf *out, const struct sp_ext_lost *l);
int sp_ext_exit_encode(struct sp_buf *out, const struct sp_ext_exit *e);
int sp_ext_buildid_encode(struct sp_buf *out, const struct sp_ext_buildid *b);
int sp_ext_event_encode(struct sp_buf *out, const struct sp_ext_event *e);
int sp_ext_weight_encode(struct sp_buf *out, const struct sp_ext_weight *w);
int sp_ext_wait_encode(struct sp_buf *out, enum sp_wait_state state);
/* Appends one string pair (host) or one counter (stats). */
int sp_ext_pair_encode(struct sp_buf *out, const char *key, const char *val);
int sp_ext_counter_encode(struct sp_buf *out, const char *key, uint64_t val);

int sp_ext_comm_decode(const uint8_t *p, size_t n, struct sp_ext_comm *c);
int sp_ext_lost_decode(const uint8_t *p, size_t n, struct sp_ext_lost *l);
int sp_ext_exit_decode(const uint8_t *p, size_t n, struct sp_ext_exit *e);
int sp_ext_buildid_decode(const uint8_t *p, size_t n, struct sp_ext_buildid *b);
/* Event indexes of SP_EXT_EVENTS_MAX or more are -EBADMSG. */
int sp_ext_event_decode(const uint8_t *p, size_t n, struct sp_ext_event *e);
int sp_ext_weight_decode(const uint8_t *p, size_t n, struct sp_ext_weight *w);
/* A state of SP_WAIT_NONE or past the known ones is -EBADMSG. */
int sp_ext_wait_decode(const uint8_t *p, size_t n, enum sp_wait_state *state);

/* What a reader has defined so far, for sp_ext_check(). */
struct sp_ext_bounds {
	uint32_t nmodules; /* set by the reader before each call */
	uint32_t nevents;  /* counted by sp_ext_check() */
	/* Python records; sp_py_bounds_release() it at the end. */
	struct sp_py_bounds py;
};

/*
 * Checks an extension record as every reader of the text records would
 * (recdec.c): a payload that decodes, no NUL in names, keys or values, no
 * '=' in a key, event indexes 0, 1, 2... in order, a buildid of a defined
 * module, a weight of a defined event, and the Python records' checks
 * (ext_py.h).  Returns 0 when it is good,
 * -EBADMSG when the payload does not decode, -EINVAL when it decodes but
 * is refused; *why is then a static reason.  Counts an accepted event in
 * b->nevents; tags it does not know are good.
 */
int sp_ext_check(uint8_t tag, const uint8_t *p, size_t n,
		 struct sp_ext_bounds *b, const char **why);

/* A wait state's word in text records ("preempted"...), NULL for none. */
const char *sp_wait_state_name(enum sp_wait_state state);
/* The state a word names: SP_WAIT_NONE when it names none. */
enum sp_wait_state sp_wait_state_parse(const char *word);

/* Walks the pairs of a host or stats payload. */
struct sp_ext_iter {
	const uint8_t *p;
	const uint8_t *end;
};

/*
 * Gets the next string pair: returns 1 with key/value set, 0 at the end,
 * -EBADMSG on malformed data.
 */
int sp_ext_pair_next(struct sp_ext_iter *it, const char **key, size_t *klen,
		     const char **val, size_t *vlen);
/* Same for a counter pair. */
int sp_ext_counter_next(struct sp_ext_iter *it, const char **key, size_t *klen,
			uint64_t *val);

#endif
