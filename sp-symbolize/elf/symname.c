/*
 * symname.c: the names frames show for ELF symbols (see symname.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sp-symbolize/elf/demangle.h"
#include "sp-symbolize/elf/symname.h"
#include "common/banned.h"

size_t
sym_name_unversioned(const char *name)
{
	const char *at = name[0] ? strchr(name + 1, '@') : NULL;

	/* "NAME@plt" is a PLT stub (elfsym.h), not a version. */
	if (!at || strcmp(at, "@plt") == 0)
		return strlen(name);
	return (size_t)(at - name);
}

/* The length of a trailing ".DIGITS" of name[0..len), or 0. */
static size_t
number_suffix(const char *name, size_t len)
{
	size_t i = len;

	while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
		i--;
	return i < len && i > 0 && name[i - 1] == '.' ? len - i + 1 : 0;
}

/*
 * The length of one trailing clone suffix of name[0..len) (".isra" or
 * ".isra.0"), or 0.  GCC appends one per transformation, so they repeat:
 * "f.constprop.0.isra.0", "f.part.0.cold".  BOLT names the fragments it
 * splits off "f.cold" (or "f.cold.1") and "f.warm".
 */
static size_t
clone_suffix(const char *name, size_t len)
{
	static const char *const kinds[] = {
		".isra", ".constprop",  ".part", ".lto_priv",
		".cold", ".localalias", ".llvm", ".warm",
	};
	size_t num = number_suffix(name, len), i, k;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		k = strlen(kinds[i]);
		/* Keep at least one character of the function's name. */
		if (len - num > k &&
		    memcmp(name + len - num - k, kinds[i], k) == 0)
			return num + k;
	}
	return 0;
}

size_t
sym_name_unclone(const char *name, size_t len)
{
	size_t cut;

	while ((cut = clone_suffix(name, len)) > 0)
		len -= cut;
	return len;
}

char *
sym_name_show(const char *name, const struct sym_nameopts *o)
{
	size_t len;
	char *base, *dm;

	if (o->raw)
		return strdup(name);
	len = sym_name_unclone(name, sym_name_unversioned(name));
	base = strndup(name, len);
	if (!base || !o->demangle)
		return base;
	dm = sym_demangle(base, o->params);
	if (!dm)
		return base;
	free(base);
	return dm;
}
