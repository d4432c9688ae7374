/*
 * sniff.h: an input's kind, told from its first line, for sp-fold given
 * a file without --from: folded stacks and perf script text are read as
 * such (as flamegraph.pl and difffolded.pl users type `sp-fold
 * a.folded`), a record stream as one.  The line read to tell is kept.
 */
#ifndef SP_FOLD_READ_SNIFF_H
#define SP_FOLD_READ_SNIFF_H

#include <stdio.h>

#include "common/buf.h"
#include "common/inkind.h"

/*
 * Reads the first line of `in` into `head` (reset first) and returns
 * what it says the input holds; SP_IN_UNKNOWN at the end of the input,
 * after a failed read or for a line over the record stream's cap (the
 * reader that gets the stream says what went wrong, from where).
 */
enum sp_input_kind fold_sniff(FILE *in, struct sp_buf *head);
/*
 * A stream that reads `head`'s bytes, then the rest of `in`; it takes
 * `head`'s bytes (and leaves `head` empty), even when it fails (NULL,
 * errno set).  It is to be closed before `in`, which it does not own; a
 * failed read of `in` is a failed read of it.
 */
FILE *fold_replay(FILE *in, struct sp_buf *head);

#endif
