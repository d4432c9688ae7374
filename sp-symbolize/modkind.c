/*
 * modkind.c: what a module's path says of it (see modkind.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "common/names.h"
#include "sp-symbolize/modkind.h"
#include "common/banned.h"

static bool
has_prefix(const char *s, size_t n, const char *p)
{
	size_t pl = strlen(p);

	return n >= pl && memcmp(s, p, pl) == 0;
}

bool
sym_perf_map_may_override(const char *path)
{
	size_t n = sp_module_path_undeleted(path, strlen(path)), blen;
	const char *base;

	if (sp_module_path_anonymous(path, n))
		return true;
	base = memrchr(path, '/', n);
	base = base ? base + 1 : path;
	blen = n - (size_t)(base - path);
	return has_prefix(base, blen, "perf-") && blen > 4 &&
	       memcmp(base + blen - 4, ".map", 4) == 0;
}
