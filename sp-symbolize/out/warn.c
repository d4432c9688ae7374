/* warn.c: formatted warnings through a caller's callback. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "sp-symbolize/out/warn.h"
#include "common/banned.h"

void
sym_warnf(sym_warn_fn *warn, void *ctx, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	if (!warn)
		return;
	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return; /* out of memory: the warning is lost, not the run */
	warn(ctx, msg);
	free(msg);
}
