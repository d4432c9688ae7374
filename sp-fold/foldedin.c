/* foldedin.c: reads folded stacks (foldedin.h). */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "common/buf.h"
#include "common/records.h"
#include "common/spool.h"
#include "sp-fold/filter.h"
#include "sp-fold/foldedin.h"
#include "common/banned.h"

/* Splits "STACK COUNT" at its last space; false when it is no such line. */
static bool
split_line(char *s, size_t n, size_t *stack_len, uint64_t *count)
{
	char *sp;

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = 0;
	sp = memrchr(s, ' ', n);
	if (!sp || sp == s || sp_parse_u64(sp + 1, count))
		return false;
	*stack_len = (size_t)(sp - s);
	while (*stack_len && s[*stack_len - 1] == ' ')
		(*stack_len)--;
	return *stack_len > 0;
}

static void
warn_skipped(const char *name, uint64_t first, const char *line,
	     uint64_t skipped)
{
	struct sp_buf b = SP_BUF_INIT;

	if (sp_escape(&b, line, strnlen(line, 80)) || sp_buf_addc(&b, 0))
		return;
	warnx("%sline %" PRIu64 ": not a folded stack (STACK COUNT): %s%s",
	      name, first, (char *)b.data,
	      skipped > 1 ? " (and more lines like it)" : "");
	sp_buf_release(&b);
}

int
fold_read_folded(FILE *in, const char *name, const struct fold_opts *o,
		 struct fold_set *set)
{
	char *line = NULL, *first = NULL;
	size_t cap = 0, len;
	uint64_t lineno = 0, skipped = 0, at = 0, count;
	ssize_t n;
	int rc = 0;

	while (!rc && (n = getline(&line, &cap, in)) >= 0) {
		lineno++;
		if (lineno == 1 && sp_spool_magic(line, (size_t)n)) {
			warnx("%sthis is a spool, not folded stacks: read it "
			      "with sp-dump first (sp-dump FILE | sp-fold)",
			      name);
			free(line);
			return 1;
		}
		if (n == 0 || line[0] == '\n' || line[0] == '#')
			continue;
		if (!split_line(line, (size_t)n, &len, &count)) {
			if (!skipped++ && !(first = strdup(line)))
				rc = -ENOMEM;
			at = at ? at : lineno;
			continue;
		}
		if (fold_filter_frames(o, line, &len))
			rc = fold_set_add(set, line, len, count);
	}
	if (!rc && ferror(in))
		rc = -EIO;
	if (skipped && first)
		warn_skipped(name, at, first, skipped);
	if (rc)
		warnx("%s%s", name,
		      rc == -EIO ? "read error" : "out of memory");
	free(line);
	free(first);
	return rc ? 1 : 0;
}
