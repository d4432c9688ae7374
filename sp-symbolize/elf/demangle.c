/*
 * demangle.c: wraps libiberty's cplus_demangle, which tries Rust
 * demangling before the GNU v3 (Itanium C++) scheme in auto mode.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "sp-symbolize/elf/demangle.h"
#include "common/banned.h"

/*
 * perf shows no return type.  libiberty cannot print the parameters of
 * some deeply nested templates (V8's
 * _ZN2v88internal11StringShape33DispatchToSpecificTypeWithoutCast...,
 * where a pack expansion in the parameters names a template parameter of
 * a local class's enclosing function) and then returns nothing at all;
 * without parameters, as perf asks for them, it prints the name.
 */
static char *
demangle_one(const char *name, bool params)
{
	const int base = DMGL_ANSI | DMGL_AUTO | DMGL_RET_DROP;
	char *dm = NULL;

	if (params)
		dm = cplus_demangle(name, base | DMGL_PARAMS);
	if (!dm)
		dm = cplus_demangle(name, base);
	return dm;
}

char *
sym_demangle(const char *name, bool params)
{
	static const char plt[] = "@plt";
	size_t n = strlen(name), pl = sizeof(plt) - 1;
	char *base, *dm, *out = NULL;

	/* Only mangled names pay for a demangler call. */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	if (n <= pl || strcmp(name + n - pl, plt) != 0)
		return demangle_one(name, params);
	/* A PLT stub: demangle the function's name, keep the suffix. */
	base = strndup(name, n - pl);
	dm = base ? sym_demangle(base, params) : NULL;
	if (dm && asprintf(&out, "%s%s", dm, plt) < 0)
		out = NULL;
	free(dm);
	free(base);
	return out;
}
