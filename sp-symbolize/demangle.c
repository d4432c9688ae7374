/*
 * demangle.c: wraps libiberty's cplus_demangle, which tries Rust
 * demangling before the GNU v3 (Itanium C++) scheme in auto mode.
 */
#include <stddef.h>

#include <libiberty/demangle.h>

#include "sp-symbolize/demangle.h"
#include "common/banned.h"

char *
sp_demangle(const char *name)
{
	/* Only mangled names pay for a demangler call. */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
}
