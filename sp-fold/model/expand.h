/*
 * expand.h: the folded stack of a sample of the record stream, as the
 * model names its frames: comm frame, symbol names or address fallbacks
 * (grouped unless --addrs), annotations, hidden frames left out, the
 * truncated marker first.
 */
#ifndef SP_FOLD_MODEL_EXPAND_H
#define SP_FOLD_MODEL_EXPAND_H

#include <stdbool.h>
#include <stdint.h>

#include "common/buf.h"
#include "sp-fold/model/foldset.h"
#include "sp-fold/model/model.h"
#include "sp-fold/model/model_opts.h"

/*
 * Sets `out` to the folded stack of a sample, comm first unless
 * --no-comm (":TID" when `comm` is NULL), and *keep to whether it
 * passes the frame filters (which may shorten it).  Returns 0 or
 * -ENOMEM.
 */
int fold_model_folded(const struct fold_model *m,
		      const struct fold_name_opts *o, const char *comm,
		      int32_t pid, uint64_t tid, uint32_t stack,
		      struct sp_buf *out, bool *keep);
/*
 * fold_model_folded, and each name's source ("file:line", or NULL) in
 * `srcs` as an array of const char * (comm frame first, unless
 * --no-comm), and when `lines` is not NULL, the first line of each
 * name's function there as an array of unsigned: a Python frame's, 0
 * for other frames.  --max-depth may keep fewer names than sources.
 */
int fold_model_sourced(const struct fold_model *m,
		       const struct fold_name_opts *o, const char *comm,
		       int32_t pid, uint64_t tid, uint32_t stack,
		       struct sp_buf *out, struct sp_buf *srcs,
		       struct sp_buf *lines, bool *keep);
/*
 * Adds `count` to the folded stack of a sample in `set`, if it passes
 * the frame filters; `tmp` is scratch space the caller keeps between
 * calls (its release is the caller's).  Returns 0 or -ENOMEM.
 */
int fold_model_add(const struct fold_model *m, const struct fold_name_opts *o,
		   struct fold_set *set, const char *comm, int32_t pid,
		   uint64_t tid, uint32_t stack, uint64_t count,
		   struct sp_buf *tmp);

/*
 * What --max-depth keeps of the frames `ids` (root first) in outputs
 * that write frames rather than names (pprof, perf script): returns the
 * number of whole frames kept (`n` without a limit), and sets *upto to
 * the number of symbols, outermost first, kept of the next frame when
 * its inline chain crosses the limit (0 for none).
 */
size_t fold_depth_keep(const struct fold_model *m,
		       const struct fold_name_opts *o, const uint32_t *ids,
		       size_t n, int32_t pid, size_t *upto);

#endif
