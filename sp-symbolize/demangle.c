/*
 * demangle.c: wraps libiberty's cplus_demangle, which tries Rust
 * demangling before the GNU v3 (Itanium C++) scheme in auto mode.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "sp-symbolize/demangle.h"
#include "common/banned.h"

char *
sym_demangle(const char *name)
{
	static const char plt[] = "@plt";
	size_t n = strlen(name), pl = sizeof(plt) - 1;
	char *base, *dm, *out = NULL;

	/* Only mangled names pay for a demangler call. */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	if (n <= pl || strcmp(name + n - pl, plt) != 0)
		return cplus_demangle(name,
				      DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	/* A PLT stub: demangle the function's name, keep the suffix. */
	base = strndup(name, n - pl);
	dm = base ? sym_demangle(base) : NULL;
	if (dm && asprintf(&out, "%s%s", dm, plt) < 0)
		out = NULL;
	free(dm);
	free(base);
	return out;
}
