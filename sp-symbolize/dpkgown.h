/*
 * dpkgown.h: the Debian packages that own a few files, read from dpkg's
 * file lists (INFODIR/PACKAGE[:ARCH].list), for the hint that names a
 * stripped file's -dbgsym package.  One bounded pass over the lists
 * answers for all the files at once: no dpkg process, no lookup per
 * frame.
 */
#ifndef SP_SYMBOLIZE_DPKGOWN_H
#define SP_SYMBOLIZE_DPKGOWN_H

#include <stddef.h>

/* dpkg's file lists. */
#define SYM_DPKG_INFO "/var/lib/dpkg/info"
/* The most bytes of lists read; past it, the files not found stay so. */
#define SYM_DPKG_MAX_BYTES (256u << 20)

/*
 * Sets owners[i] to the package owning paths[i] (malloc'ed, without its
 * ":ARCH" qualifier), or NULL when it cannot tell: no list names the
 * file, lists of two packages do, or the bound was reached.  A listed
 * path owns the file when it is the same file (device and inode), which
 * sees through symbolic links and the /usr merge.  `infodir` NULL means
 * SYM_DPKG_INFO.  Returns 0, or a negative errno (-ENOENT: no dpkg)
 * with every owners[i] NULL.
 */
int sym_dpkg_owners(const char *infodir, const char *const *paths, size_t n,
		    char **owners);

#endif
