/*
 * read_ps_state.h: the state of sp-fold reading `perf script` text, shared by
 * its parts and private to them: read_ps_lines.c (lines to names),
 * read_ps_blocks.c (the cache of repeated blocks of frame lines) and
 * read_perfscript.c (reading).
 */
#ifndef SP_FOLD_READ_READ_PS_STATE_H
#define SP_FOLD_READ_READ_PS_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/htab.h"
#include "sp-fold/model/foldset.h"
#include "sp-fold/opts.h"
#include "sp-fold/read/read_ps_inline.h"
#include "sp-fold/read/read_ps_match.h"

#define FOLD_PS_MAX_WARN 10
/*
 * The cache of folded blocks stops growing here, so that input whose
 * blocks rarely repeat (every leaf address different) cannot make memory
 * grow with the input; such blocks are folded line by line.
 */
#define FOLD_PS_MAX_CACHE ((size_t)256 << 20)

/* Samples of a comm frame whose frame lines were in the cache. */
struct fold_ps_hit {
	uint64_t pname;
	uint64_t at; /* cdata offset */
};

struct fold_ps {
	const struct fold_opts *o;
	struct fold_set *set;
	const char *name;
	uint64_t lineno;
	bool have_pname, is_java;
	uint64_t weight; /* of the current sample */
	struct sp_buf pname;
	struct sp_buf frames; /* names of the current sample's lines */
	size_t *marks;        /* per frame line: end offset in frames */
	size_t nmarks, amarks, acounts;
	unsigned *counts;         /* per frame line: number of names */
	struct sp_buf stack;      /* the folded stack being built */
	struct sp_buf tmp;        /* one name being tidied */
	char *event;              /* the event filter, owned */
	struct sp_htab *cache[2]; /* frame lines -> cdata offset, by is_java */
	struct sp_buf cdata;   /* cached: u32 lines, u32 len, folded frames */
	struct fold_span pend; /* frame lines of the block being cached */
	size_t cached_bytes;   /* keys and data, up to FOLD_PS_MAX_CACHE */
	uint64_t pend_unrec;
	struct sp_htab *pnames; /* comm frame -> index in pnstr */
	char **pnstr;
	size_t npn, apn;
	struct sp_htab *agg; /* struct fold_ps_hit -> samples from the cache */
	bool event_defaulted, event_warned;
	uint64_t unrecognized;
	/* --srcline: names of the current frame line waiting for sources */
	struct fold_ps_pending {
		size_t off, len; /* in qbuf */
		bool wants_src;
	} * q;
	size_t nq, aq, qhead;
	unsigned qcount; /* names of the line in st->frames so far */
	struct sp_buf qbuf;
	struct fold_psinl *inl; /* --inline: addr2line's names; or NULL */
};

/* One line (no newline) of the input; 0 or -ENOMEM. */
int fold_ps_line(struct fold_ps *st, const char *s, size_t n);
/* Forgets the current sample's names. */
void fold_ps_sample_done(struct fold_ps *st);
/* Remembers the folded frames of the block in st->pend; 0 or -ENOMEM. */
int fold_ps_cache_put(struct fold_ps *st, const char *frames, size_t n);
/*
 * The frame lines after a header at p: sets *blank to the blank line that
 * ends them.  Returns 1 when found, 0 when the buffer ends first.
 */
int fold_ps_block_end(const char *p, const char *end, const char **blank);
/*
 * After a header: folds the block from the cache when it was seen before,
 * else marks it to be remembered; sets *next to the first byte not used.
 * Returns 1 when it folded the block (the sample is done: the caller
 * calls fold_ps_sample_done), 0 when not, or -ENOMEM.
 */
int fold_ps_cached_block(struct fold_ps *st, const char *p, const char *blank,
			 const char **next);
/* Adds the samples counted from the cache to the set; 0 or -ENOMEM. */
int fold_ps_flush_hits(struct fold_ps *st);

#endif
