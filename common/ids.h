/*
 * ids.h: the ids a stream defined (modules, frames, stack nodes,
 * threads), which process owns each, and what forgetting a process
 * retires.  Both readers of the formats (the spool reader and the text
 * record decoder) keep their per-id state here, so a long stream where
 * processes come and go costs memory for the live ids only.
 *
 * Owners: a user module belongs to its process, a thread to its
 * process, a frame to the owner of its module, a stack node to the owner
 * of its frame or of its prefix.  Kernel modules, frames without a module
 * or in kernel code, and stack nodes made only of those are shared and
 * never retired.  A node holding frames of two processes (no recorder
 * writes one) belongs to both and is retired with the first of them.
 */
#ifndef SP_IDS_H
#define SP_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/idtab.h"

enum sp_id_kind {
	SP_ID_MODULE,
	SP_ID_FRAME,
	SP_ID_STACK,
	SP_ID_THREAD,
	SP_ID_NKINDS
};

/*
 * Called for each id a forget retires, before its data is freed, so the
 * caller can free what the data points to.
 */
typedef void sp_ids_release_fn(void *ctx, enum sp_id_kind kind, uint32_t id,
			       void *data);

struct sp_ids;

/*
 * Creates the tables; each id of kind k carries extra[k] bytes of the
 * caller's data, aligned as malloc's.  With 0 there is none (and no
 * release call), but the define and get calls still return non-NULL for
 * a live id.  `release` may be NULL.  NULL with errno.
 */
struct sp_ids *sp_ids_new(const size_t extra[SP_ID_NKINDS],
			  sp_ids_release_fn *release, void *ctx);
/* Frees the tables (without calling `release`); NULL is allowed. */
void sp_ids_free(struct sp_ids *ids);

/*
 * Each defines the next id of its kind and returns its data, zeroed, or
 * NULL with errno (ENOMEM, EOVERFLOW).  The ids referred to must be live
 * (the caller checked them with sp_ids_get()); the data pointer stays
 * valid until the id is retired.
 */
void *sp_ids_module(struct sp_ids *ids, int32_t pid, bool is_kernel);
void *sp_ids_frame(struct sp_ids *ids, uint32_t module_id); /* or SP_NONE */
void *sp_ids_stack(struct sp_ids *ids, uint32_t prefix, uint32_t frame_id);
void *sp_ids_thread(struct sp_ids *ids, int32_t pid);

/* The data of a live id; NULL for an id retired or not defined. */
void *sp_ids_get(const struct sp_ids *ids, enum sp_id_kind kind, uint32_t id);
/*
 * The table of a kind's data (NULL where extra[kind] was 0), for lookups
 * in a reader's hot path: sp_idtab_get() on it gives what sp_ids_get()
 * gives, inline.  It stays the same table for the life of `ids`.
 */
const struct sp_idtab *sp_ids_table(const struct sp_ids *ids,
				    enum sp_id_kind kind);
/* The ids of a kind defined so far: the next id. */
uint32_t sp_ids_count(const struct sp_ids *ids, enum sp_id_kind kind);
/* The live ids of a kind, for tests and memory checks. */
size_t sp_ids_live(const struct sp_ids *ids, enum sp_id_kind kind);

/*
 * Forgets process `pid`: retires its threads, its modules, their frames
 * and every stack node holding one of them, directly or through its
 * prefix.  A process that owns nothing is no error.  It allocates
 * nothing, so it cannot fail.
 */
void sp_ids_forget(struct sp_ids *ids, int32_t pid);
/*
 * The two halves of sp_ids_forget(), for a reader that still needs a
 * forgotten process's data for a while (sp-fold until the interval that
 * used it is written).  sp_ids_defer() sets the ids `pid` owns apart:
 * they stay live, and a new process of that pid owns only what is
 * defined after the call.  sp_ids_forget_deferred() retires every id set
 * apart so far.  sp_ids_defer() returns 0 or -ENOMEM (then nothing was
 * set apart); a process that owns nothing is no error.
 */
int sp_ids_defer(struct sp_ids *ids, int32_t pid);
void sp_ids_forget_deferred(struct sp_ids *ids);

#endif
