/*
 * livetab.h: the table --live draws: the samples of a sliding window,
 * each pointing at the names of its (stack, thread) worked out once, and
 * the counts of functions (self and total) or whole stacks over the
 * window, computed when the table is drawn.
 */
#ifndef SP_FOLD_LIVE_LIVETAB_H
#define SP_FOLD_LIVE_LIVETAB_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "common/htab.h"
#include "sp-fold/read/read_records.h"

/*
 * The names of one (stack, process, thread): function ids, root first,
 * and the row of its folded line "comm;frame;...;leaf" in the stacks
 * view.  Stacks of other ids, threads or processes that name the same
 * line share its row, as they share the line of folded output.
 */
struct fold_live_names {
	uint32_t *funcs;
	size_t n;
	uint32_t row; /* index in fold_live_tab.lines */
};

struct fold_live_sample {
	uint64_t ts;
	uint32_t names; /* index in names */
	int32_t pid;
	uint64_t tid;
};

struct fold_live_tab {
	struct sp_htab *keys; /* (stack, pid, tid) -> names index */
	struct fold_live_names *names;
	size_t nnames, anames;
	struct sp_htab *fidx; /* function name -> id */
	char **funcs;
	size_t nfuncs, afuncs;
	struct sp_htab *lidx; /* folded line -> id */
	char **lines;
	size_t nlines, alines;
	struct fold_live_sample *ring; /* the window, oldest at head */
	size_t head, len, cap;
	uint64_t latest; /* the latest sample's time */
	struct sp_buf tmp;
};

/* Both return 0 or -ENOMEM; release is due after init either way. */
int fold_live_tab_init(struct fold_live_tab *t);
void fold_live_tab_release(struct fold_live_tab *t);
/*
 * Adds a sample the reader streamed.  --live draws while it reads, so
 * the table takes the reader itself, whose model and counts (samples
 * lost) move on under it, rather than a fold_profile made once.
 */
int fold_live_tab_add(struct fold_live_tab *t, const struct fold_reader *r,
		      const struct fold_sample *s);
/* Drops the samples older than `window` before the latest one. */
void fold_live_tab_expire(struct fold_live_tab *t, uint64_t window);
/* What the table shows: how rows sort, what they are, whose samples. */
struct fold_live_show {
	bool by_total; /* functions by total samples, not self */
	bool stacks;   /* whole stacks, not functions */
	uint64_t tid;  /* that thread's samples only; 0: every thread */
};

/* The terminal the table is drawn on. */
struct fold_live_screen {
	int rows, cols;
};

/*
 * Prints a header and rows to fill `screen`, each cut to its width (a
 * line that wraps would scroll the header away): functions by self or
 * total samples, cut at the end, or whole stacks by samples, cut at the
 * root end so that the leaf stays in view.
 */
void fold_live_tab_print(const struct fold_live_tab *t,
			 const struct fold_reader *r, FILE *out,
			 const struct fold_live_screen *screen,
			 const struct fold_live_show *show);
/*
 * The thread to show after `tid` (0: every thread): the threads of the
 * window from the busiest down, then 0 again.
 */
uint64_t fold_live_tab_next_thread(const struct fold_live_tab *t, uint64_t tid);

#endif
