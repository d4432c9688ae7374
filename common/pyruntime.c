/*
 * pyruntime.c: the Python runtime's names (pyruntime.h).
 */
#include <string.h>

#include "common/names.h"
#include "common/pyruntime.h"
#include "common/banned.h"

static bool
is_abi_flag(char c)
{
	return c == 'd' || c == 'm' || c == 'u';
}

bool
sp_pyruntime_path(const char *path, size_t len)
{
	size_t n = sp_module_path_undeleted(path, len), i = 6;
	const char *base = memrchr(path, '/', n);

	base = base ? base + 1 : path;
	n -= (size_t)(base - path);
	if (n >= 9 && memcmp(base, "libpython", 9) == 0)
		return true;
	if (n < 6 || memcmp(base, "python", 6) != 0)
		return false;
	while (i < n && ((base[i] >= '0' && base[i] <= '9') || base[i] == '.'))
		i++;
	while (i < n && is_abi_flag(base[i]))
		i++;
	return i == n;
}
