/*
 * model.h: what sp-fold keeps of a record stream: modules, frames with
 * their symbols (and per-process overrides from pframe records), the
 * stack prefix tree and thread names.  It grows with distinct frames and
 * stacks, never with samples.  Modules, frames and stack nodes live in
 * common/ids.h's tables by owner, so a forgotten process's can go once
 * nothing will read them again (fold_model_forget, fold_model_defer).
 */
#ifndef SP_FOLD_MODEL_MODEL_H
#define SP_FOLD_MODEL_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/ext.h"
#include "common/htab.h"
#include "common/ids.h"
#include "common/idtab.h"
#include "common/records.h"
#include "common/spool.h"
#include "sp-fold/model/pytab.h"

/* A symbol flag of sp-fold's own, past enum sp_sym_flag: a Python frame. */
#define FOLD_SYM_PYTHON (1u << 16)

struct fold_sym {
	char *name;
	char *group;  /* the name grouped (group.h); NULL when the same */
	char *source; /* "file:line" or NULL */
	uint64_t offset;
	unsigned flags;      /* enum sp_sym_flag */
	unsigned start_line; /* where the function begins, 0: unknown */
};

/* The logical frames of one address, outermost first. */
struct fold_syms {
	struct fold_sym *v;
	size_t n;
};

struct fold_module {
	int32_t pid; /* the process that mapped it; -1 for the kernel */
	char *path;
	char *buildid; /* hex, or NULL */
	uint64_t start, end, file_offset;
	bool is_kernel;
};

struct fold_frame {
	enum sp_frame_mode mode;
	uint32_t module; /* SP_NONE when none */
	uint64_t abs_ip, rel_ip;
	struct fold_syms syms;
};

/* A stack node: its prefix (SP_NONE at the root) and its frame. */
struct fold_stack {
	uint32_t prefix, frame;
};

/* A pframe record: the context of a frame for one process. */
struct fold_pframe {
	uint32_t module; /* SP_NONE when none */
	uint64_t rel_ip;
	struct fold_syms syms;
};

/* A frame as a process sees it: module context and symbols. */
struct fold_view {
	enum sp_frame_mode mode;
	uint32_t frame;
	uint32_t module;
	uint64_t abs_ip, rel_ip;
	const struct fold_syms *syms; /* empty when unresolved */
};

/*
 * Off-CPU stacks with their wait state on top ("[sleep]" above the frames
 * that waited) get stack ids from FOLD_WAIT_STACK0 up and the state frame
 * id FOLD_WAIT_FRAME0 + state; a stream never has that many.
 */
#define FOLD_WAIT_STACK0 0xf0000000u
#define FOLD_WAIT_FRAME0 (SP_NONE - SP_WAIT_NSTATES)

/*
 * Frames and stacks sp-fold makes itself when it merges Python frames
 * into native stacks (pymerge.h) take ids from FOLD_X_FRAME0 and
 * FOLD_X_STACK0, below the wait ids: a Python frame is one code at one
 * line, and a merged stack a path of native and made frames.
 */
#define FOLD_X_STACK0 0xe0000000u
#define FOLD_X_FRAME0 0xe0000000u

struct fold_xframe {
	enum sp_frame_mode mode;
	struct fold_syms syms; /* one symbol, owned */
};

struct fold_model {
	struct sp_ids *ids; /* struct fold_module, fold_frame, fold_stack */
	const struct sp_idtab *mtab, *ftab, *stab; /* its tables, to look up */
	struct fold_pframe *pframes;
	size_t npframes, apframes;
	struct sp_htab *pframe_idx; /* (frame, pid) -> pframes index */
	uint32_t *pfree; /* pframes slots of forgotten processes, to reuse */
	size_t npfree, apfree;
	uint64_t start_us, interval_us;
	char **strs; /* interned names */
	size_t nstrs, astrs;
	struct sp_htab *str_idx;
	struct sp_htab *tname; /* (pid, tid) -> str id */
	struct sp_htab *pname; /* pid -> str id of its exec name */
	uint32_t *wprefix;     /* wait stack - FOLD_WAIT_STACK0 -> stack */
	uint8_t *wstate;       /* ... -> enum sp_wait_state */
	size_t nwait, awprefix, awstate;
	struct sp_htab *wait_idx;    /* (stack, state) -> wait stack */
	struct fold_xframe *xframes; /* id - FOLD_X_FRAME0 -> frame */
	size_t nxframes, axframes;
	uint32_t *xprefix, *xsframe; /* id - FOLD_X_STACK0 -> prefix, frame */
	size_t nxstacks, axprefix, axsframe;
	struct sp_htab *xstack_idx; /* (prefix, frame) -> made stack */
	struct fold_pytab py;
	char wait_names[SP_WAIT_NSTATES][16];
	struct fold_sym wait_sym[SP_WAIT_NSTATES];
	struct fold_syms wait_syms[SP_WAIT_NSTATES];
};

/*
 * Sets up an empty model; returns 0 or -ENOMEM.  fold_model_release is
 * due after either, and frees every string and array the model holds.
 */
int fold_model_init(struct fold_model *m);
void fold_model_release(struct fold_model *m);
/*
 * Each defines the next id of its kind and returns its entry, zeroed (a
 * module's strings are then the model's to free), or NULL with errno.
 * The ids referred to must be live; the decoder checked them.
 */
struct fold_module *fold_model_add_module(struct fold_model *m, int32_t pid,
					  bool is_kernel);
struct fold_frame *fold_model_add_frame(struct fold_model *m, uint32_t module);
int fold_model_add_stack(struct fold_model *m, uint32_t prefix, uint32_t frame);
/* A live module or frame; NULL for SP_NONE or an id retired or unknown. */
static inline struct fold_module *
fold_model_module(const struct fold_model *m, uint32_t id)
{
	return sp_idtab_get(m->mtab, id);
}
static inline struct fold_frame *
fold_model_frame(const struct fold_model *m, uint32_t id)
{
	return sp_idtab_get(m->ftab, id);
}
/* The module ids defined so far (retired ones included): the next id. */
uint32_t fold_model_nmodules(const struct fold_model *m);
/*
 * A forget record: retires the modules, frames and stack nodes `pid`
 * owns (ids.h) and frees their strings, at once with fold_model_forget,
 * or set apart until fold_model_forget_deferred with fold_model_defer,
 * which a profile still to be written needs.  Names and pframes have
 * calls of their own.  fold_model_defer returns 0 or -ENOMEM.
 */
void fold_model_forget(struct fold_model *m, int32_t pid);
int fold_model_defer(struct fold_model *m, int32_t pid);
void fold_model_forget_deferred(struct fold_model *m);
/* The live ids of a kind, for tests and memory checks. */
size_t fold_model_live(const struct fold_model *m, enum sp_id_kind kind);
/* Interns a string (copied); returns its id in m->strs or -ENOMEM. */
int64_t fold_model_intern(struct fold_model *m, const char *s, size_t n);
/*
 * Sets *pf to the pframe of (frame, pid), made on first use with the
 * frame's own context and no symbols; returns 0 or -ENOMEM.  The pointer
 * stays valid until the next call.
 */
int fold_model_pframe(struct fold_model *m, uint32_t frame, int32_t pid,
		      struct fold_pframe **pf);
/*
 * A forget record: drops the thread and process names of `pid`, which
 * later samples of a new process with that pid must not take (names are
 * looked up as samples are read, never after).
 */
int fold_model_forget_names(struct fold_model *m, int32_t pid);
/*
 * Drops the pframes of `pid` and frees their symbols; their slots are
 * reused.  Only once nothing will view a frame of that process again: a
 * profile whose entries name it still needs them.  Returns 0 or -ENOMEM.
 */
int fold_model_forget_pframes(struct fold_model *m, int32_t pid);
/* Sets *v to the view of a frame from process `pid`. */
void fold_model_view(const struct fold_model *m, uint32_t frame, int32_t pid,
		     struct fold_view *v);
/*
 * The id of stack `stack` with frame "[STATE]" on top (made on first use),
 * in *out; returns 0 or -ENOMEM.
 */
int fold_model_wait_stack(struct fold_model *m, uint32_t stack,
			  enum sp_wait_state state, uint32_t *out);
/*
 * Adds a frame of its own with one symbol: `s`'s strings are copied, and
 * the symbol's flags and lines kept.  Sets *out to its id; returns 0 or
 * -ENOMEM.
 */
int fold_model_xframe(struct fold_model *m, enum sp_frame_mode mode,
		      const struct fold_sym *s, uint32_t *out);
/*
 * The id of the stack `prefix` (SP_NONE at the root) with `frame` on top,
 * made on first use, in *out; returns 0 or -ENOMEM.
 */
int fold_model_xstack(struct fold_model *m, uint32_t prefix, uint32_t frame,
		      uint32_t *out);
/*
 * Appends the frames of a stack root first to `ids` (uint32_t each);
 * returns 0 or -ENOMEM.  A retired node (no caller walks one) ends the
 * walk as the root would.
 */
int fold_model_walk(const struct fold_model *m, uint32_t stack,
		    struct sp_buf *ids);
/*
 * The length of the file part of a source: "file:line" without ":line",
 * the whole of one without a line; 0 for NULL.
 */
size_t fold_source_file_len(const char *source);
/* The period of one sample in nanoseconds (1 ms when unknown). */
uint64_t fold_model_period_ns(const struct fold_model *m);
/* The name of the thread, or of its process with --process-name. */
const char *fold_model_comm(const struct fold_model *m, int32_t pid,
			    uint64_t tid, bool process);

#endif
