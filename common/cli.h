/*
 * cli.h: what every tool's main parses the same way (whole numbers in a
 * range, seconds, byte sizes, lists), and the one end-of-output check.
 *
 * Each parser takes the whole argument: no sign on unsigned values, no
 * blanks, nothing after the number.  They return 0, -EINVAL for text that
 * is not the kind asked for, or -ERANGE for a value outside [min, max];
 * the caller says which option was wrong, so these never print.
 */
#ifndef SP_CLI_H
#define SP_CLI_H

#include <stdint.h>

/* A decimal whole number from min to max. */
int sp_cli_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A finite decimal number ("0.5", "2", "1e3") from min to max. */
int sp_cli_real(const char *s, double min, double max, double *out);

/* Bytes, with an optional K, M or G suffix (powers of 1024). */
int sp_cli_size(const char *s, uint64_t *out);

/*
 * Calls each() with every token of s, split at any byte of seps (empty
 * tokens skipped), NUL-terminated in a copy each() may keep no pointer
 * into.  Returns the first nonzero return of each(), -ENOMEM, -ENODATA
 * when s holds no token, or 0.
 */
int sp_cli_each(const char *s, const char *seps,
		int (*each)(const char *tok, void *ctx), void *ctx);

/*
 * Flushes and closes standard output; 0, or the -errno of the first write
 * error (a reader that went away gives -EPIPE where SIGPIPE is ignored).
 * Every tool's main ends with it and prints "write error on standard
 * output" itself, so a full disk never ends in exit 0.
 */
int sp_cli_close_stdout(void);

#endif
