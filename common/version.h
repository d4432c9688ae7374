/*
 * version.h: the project's version, one for the four tools: the VERSION
 * file at the top, or `git describe` when built from a checkout.
 */
#ifndef SP_VERSION_H
#define SP_VERSION_H

/*
 * The version string, e.g. "0.6.0" or "v0.6.0-12-gabc1234-dirty": static,
 * never freed.  Each tool prints "TOOL VERSION" for --version itself.
 */
const char *sp_version(void);

#endif
