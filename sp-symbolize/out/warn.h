/*
 * warn.h: formatted warnings for sp-symbolize's parts, which report
 * through a caller's callback rather than print, so that the tool decides
 * the prefix and the fuzz harness can stay quiet.
 */
#ifndef SP_SYMBOLIZE_OUT_WARN_H
#define SP_SYMBOLIZE_OUT_WARN_H

/* Receives one warning without the program name. */
typedef void sym_warn_fn(void *ctx, const char *msg);

/* Formats a warning and hands it to WARN; does nothing when WARN is NULL. */
void sym_warnf(sym_warn_fn *warn, void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
