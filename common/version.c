/* version.c: the project's version (version.h); SP_VERSION comes from
 * the GNUmakefile, which reads it from git or the VERSION file. */
#include "common/version.h"
#include "common/banned.h"

#ifndef SP_VERSION
#define SP_VERSION "unknown"
#endif

const char *
sp_version(void)
{
	return SP_VERSION;
}
