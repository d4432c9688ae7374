/*
 * version.h: the project's version, one for the four tools: the VERSION
 * file at the top, or `git describe` when built from a checkout.
 */
#ifndef SP_VERSION_H
#define SP_VERSION_H

#include <stdio.h>

/* The version string, e.g. "0.6.0" or "v0.6.0-12-gabc1234-dirty". */
const char *sp_version(void);
/* Prints "TOOL VERSION" on stdout, for --version. */
void sp_print_version(const char *tool);

#endif
