/*
 * outname.c: the format an output file's name asks for (see outname.h).
 */
#include <string.h>

#include "sp-fold/outname.h"
#include "common/banned.h"

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

bool
fold_format_of_name(const char *path, enum fold_format *format)
{
	static const struct {
		const char *suffix;
		enum fold_format format;
	} names[] = {
		{ ".svg", FOLD_SVG },         { ".pb.gz", FOLD_PPROF },
		{ ".pprof", FOLD_PPROF },     { ".pb", FOLD_PPROF },
		{ ".json", FOLD_SPEEDSCOPE }, { ".folded", FOLD_FOLDED },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ends_with(path, names[i].suffix)) {
			*format = names[i].format;
			return true;
		}
	return false;
}
