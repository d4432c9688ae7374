/*
 * write_pprof_proto.h: a writer of the pprof profile.proto format
 * (gzip-compressed), with a hand-written protobuf encoder.  Messages go out as
 * soon as they are made: strings, functions and locations when first used,
 * which protobuf allows since repeated fields may interleave.  Mappings go out
 * last, in the order they were made, so what they say of their locations
 * (has_filenames, has_line_numbers...) is known when they are written.
 */
#ifndef SP_FOLD_WRITE_WRITE_PPROF_PROTO_H
#define SP_FOLD_WRITE_WRITE_PPROF_PROTO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "common/htab.h"

struct fold_pprof {
	struct sp_buf out;     /* the encoded Profile */
	struct sp_htab *strs;  /* string -> index */
	struct sp_htab *funcs; /* name index, file index -> id */
	struct sp_htab *locs;  /* caller's key -> id (0: none) */
	struct sp_htab *maps;  /* caller's key -> id */
	uint64_t nstrs, nfuncs, nlocs, nmaps;
	struct fold_pprof_map *mapv; /* mapping id - 1 -> mapping */
	size_t amapv;
	struct sp_buf msg, sub, fmsg; /* scratch */
};

/* One line of a location: a function and its source position. */
struct fold_pprof_line {
	const char *name;
	const char *file; /* NULL when unknown */
	int64_t line;
	bool symbol;        /* name is a symbol's, not an address fallback */
	int64_t start_line; /* the function's first line, 0: unknown */
};

struct fold_pprof_mapping {
	uint64_t start, limit, file_offset;
	const char *path;
	const char *build_id; /* NULL when unknown */
};

/* A mapping and what its locations carry. */
struct fold_pprof_map {
	struct fold_pprof_mapping m; /* strings borrowed from the caller */
	bool functions, filenames, line_numbers, inline_frames;
};

/*
 * Both return 0 or -ENOMEM.  With `time_kind` ("cpu", "off_cpu", "wall"),
 * samples have a second value, nanoseconds of that kind, and the profile
 * a period of `period_ns`; NULL: samples are counts only.
 */
int fold_pprof_init(struct fold_pprof *p, const char *time_kind,
		    uint64_t period_ns, uint64_t time_ns, uint64_t duration_ns);
void fold_pprof_release(struct fold_pprof *p);
/* Interns a string; returns its index or -ENOMEM. */
int64_t fold_pprof_str(struct fold_pprof *p, const char *s, size_t n);
/*
 * The id of the mapping under `key`, made on first use (its strings must
 * stay valid until fold_pprof_emit); or -ENOMEM.  The first mapping made is
 * the one pprof takes for the main binary.
 */
int64_t fold_pprof_mapping(struct fold_pprof *p, const void *key, size_t klen,
			   const struct fold_pprof_mapping *m);
/*
 * The id of the location under `key`, made on first use from `lines`
 * (innermost first, the caller last); -ENOMEM on failure.
 */
int64_t fold_pprof_location(struct fold_pprof *p, const void *key, size_t klen,
			    uint64_t mapping, uint64_t address,
			    const struct fold_pprof_line *lines, size_t nlines);
/*
 * Adds a sample: location ids leaf first, one or two values, a thread
 * label (NULL for none) and pid/tid labels (negative for none).
 */
int fold_pprof_sample(struct fold_pprof *p, const uint64_t *locs, size_t nlocs,
		      const int64_t *values, size_t nvalues, const char *comm,
		      int64_t pid, int64_t tid);
/* Writes the profile gzip-compressed; returns 0 or -EIO/-ENOMEM. */
int fold_pprof_emit(struct fold_pprof *p, FILE *out);

#endif
