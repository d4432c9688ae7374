/* cachedir.c: the cache directory of cachedir.h. */
#include <stdio.h>
#include <stdlib.h>

#include "common/cachedir.h"
#include "common/banned.h"

char *
sp_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir = NULL;
	int n = -1;

	if (xdg && xdg[0] == '/')
		n = asprintf(&dir, "%s/stackpulse", xdg);
	else if (home && home[0] == '/')
		n = asprintf(&dir, "%s/.cache/stackpulse", home);
	return n < 0 ? NULL : dir;
}
