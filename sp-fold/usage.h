/*
 * usage.h: sp-fold's synopsis and help, which end the program, and the
 * words of --format.
 */
#ifndef SP_FOLD_USAGE_H
#define SP_FOLD_USAGE_H

#include <stdbool.h>

#include "sp-fold/opts.h"

/* Prints `why` (when not NULL) and the synopsis on stderr; exits 2. */
__attribute__((noreturn)) void fold_usage_error(const char *why);
/* Prints the synopsis and the options on stdout; exits 0 (1 on a write
 * error). */
__attribute__((noreturn)) void fold_help(void);
/* "folded", "svg", ...: the --format word of `f`. */
const char *fold_format_name(enum fold_format f);
/* Sets *f to the format of --format's `word`; false when none is. */
bool fold_format_of_word(const char *word, enum fold_format *f);

#endif
