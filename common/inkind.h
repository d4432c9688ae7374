/*
 * inkind.h: what a text input holds, told from its first line, so that
 * a tool given another tool's input can say which tool reads it (or, for
 * sp-fold, read it): a spool, a record stream (sp-records(5)), folded
 * stacks ("a;b;c 12") or `perf script` output.
 */
#ifndef SP_INKIND_H
#define SP_INKIND_H

#include <stddef.h>

enum sp_input_kind {
	SP_IN_UNKNOWN,
	SP_IN_SPOOL,       /* SPULSE1: sp-dump reads it */
	SP_IN_RECORDS,     /* starts with a spool record */
	SP_IN_FOLDED,      /* NAME;NAME... COUNT */
	SP_IN_PERF_SCRIPT, /* perf script's sample header or its header */
};

/*
 * The kind of input whose first line (its newline, if any, included) is
 * the `len` bytes at `line`.  Never reads past them.
 */
enum sp_input_kind sp_input_kind(const char *line, size_t len);
/* "folded stacks", "perf script output", ...: for messages. */
const char *sp_input_kind_name(enum sp_input_kind k);

#endif
