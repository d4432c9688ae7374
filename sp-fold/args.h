/*
 * args.h: sp-fold's command line.  Usage errors print the synopsis on
 * stderr and exit 2.
 */
#ifndef SP_FOLD_ARGS_H
#define SP_FOLD_ARGS_H

#include "sp-fold/opts.h"

/*
 * Fills `o` from the options of argv and checks that they go together;
 * returns the index of the first file operand.
 */
int fold_args_parse(int argc, char **argv, struct fold_opts *o);
/* Frees what fold_args_parse allocated in `o`. */
void fold_args_release(struct fold_opts *o);

/*
 * argcheck.c: checks the options that go together once all are read, and
 * picks the format -o's name asks for; exits 2 on a usage error.
 */
void fold_args_check(struct fold_opts *o, char **files, int nfiles);
/*
 * The checks of fold_args_check for text input `from` (folded stacks or
 * perf script), for an input told to be text from its first line (no
 * --from); exits 2 on a usage error.
 */
void fold_args_check_text(const struct fold_opts *o, enum fold_input from);
/* Prints `why` (when not NULL) and the synopsis on stderr; exits 2. */
__attribute__((noreturn)) void fold_usage_error(const char *why);
/* "folded", "svg", ...: the --format word of `f`. */
const char *fold_format_name(enum fold_format f);

#endif
