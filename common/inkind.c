/*
 * inkind.c: what a text input holds, from its first line (inkind.h).
 */
#include <stdbool.h>
#include <string.h>

#include "common/inkind.h"
#include "common/spool.h"
#include "common/banned.h"

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Folded stacks: no tab, and a count after the last space, as
 * stackcollapse-perf.pl and sp-fold write them ("a;b;c 12").
 */
static bool
folded_line(const char *p, size_t n)
{
	size_t i = n;

	if (memchr(p, '\t', n))
		return false;
	if (i && p[i - 1] == '\n')
		i--;
	if (!i || !is_digit(p[i - 1]))
		return false;
	while (i && is_digit(p[i - 1]))
		i--;
	return i >= 2 && p[i - 1] == ' ' && p[i - 2] != ' ';
}

/*
 * perf script: its "# ====" header (perf script --header), or a sample
 * header line with a "SECONDS.MICROS:" timestamp ("app 7/7 1.0: 1000
 * cpu-clock:").
 */
static bool
perf_script_line(const char *p, size_t n)
{
	size_t i, j;

	if (n >= 6 && !memcmp(p, "# ====", 6))
		return true;
	if (memchr(p, '\t', n))
		return false;
	for (i = 0; i + 1 < n; i++) {
		if (p[i] != ' ' || !is_digit(p[i + 1]))
			continue;
		for (j = i + 1; j < n && is_digit(p[j]); j++)
			;
		if (j + 2 < n && p[j] == '.' && is_digit(p[j + 1])) {
			for (j++; j < n && is_digit(p[j]); j++)
				;
			if (j < n && p[j] == ':')
				return true;
		}
	}
	return false;
}

enum sp_input_kind
sp_input_kind(const char *line, size_t len)
{
	if (sp_spool_magic(line, len))
		return SP_IN_SPOOL;
	if (len >= 6 && !memcmp(line, "spool\t", 6))
		return SP_IN_RECORDS;
	if (perf_script_line(line, len))
		return SP_IN_PERF_SCRIPT;
	if (folded_line(line, len))
		return SP_IN_FOLDED;
	return SP_IN_UNKNOWN;
}

const char *
sp_input_kind_name(enum sp_input_kind k)
{
	switch (k) {
	case SP_IN_SPOOL:
		return "a spool";
	case SP_IN_RECORDS:
		return "a record stream";
	case SP_IN_FOLDED:
		return "folded stacks";
	case SP_IN_PERF_SCRIPT:
		return "perf script output";
	default:
		return "unknown input";
	}
}
