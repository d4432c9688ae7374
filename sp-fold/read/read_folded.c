/* read_folded.c: reads folded stacks (read_folded.h). */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/records.h"
#include "common/spool.h"
#include "sp-fold/model/filter.h"
#include "sp-fold/read/read_folded.h"
#include "common/banned.h"

/* A longer line is refused: no stack is that deep, and /dev/zero or a
 * binary file would otherwise be read into memory whole. */
#define MAX_LINE (64u << 20)

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

/* Says why reading stopped at line `lineno`; returns 1. */
static int
read_failed(const char *name, uint64_t lineno, int rc)
{
	if (rc == -E2BIG)
		warnx("%sline %" PRIu64 ": longer than %u MiB, not a folded "
		      "stack",
		      name, lineno, MAX_LINE >> 20);
	else if (rc == -EIO)
		warnx("%sread error: %s", name, strerror(errno));
	else if (rc == -EOVERFLOW)
		warnx("%sline %" PRIu64 ": the counts add up past 2^64-1", name,
		      lineno);
	else
		warnx("%sline %" PRIu64 ": out of memory", name, lineno);
	return 1;
}

int
fold_read_folded(FILE *in, const char *name, const struct fold_name_opts *o,
		 struct fold_set *set)
{
	struct sp_buf b = SP_BUF_INIT;
	char *line, *first = NULL;
	size_t len;
	uint64_t lineno = 0, skipped = 0, at = 0, count;
	int rc;

	while ((rc = sp_buf_getline(&b, in, MAX_LINE)) > 0) {
		line = (char *)b.data;
		lineno++;
		if (lineno == 1 && sp_spool_magic(line, b.len)) {
			warnx("%sthis is a spool, not folded stacks: read it "
			      "with sp-dump first (sp-dump FILE | sp-fold)",
			      name);
			rc = 1;
			break;
		}
		if (line[0] == '\n' || line[0] == '#')
			continue;
		if (!split_line(line, b.len, &len, &count)) {
			if (!skipped++ && !(first = strdup(line))) {
				rc = -ENOMEM;
				break;
			}
			at = at ? at : lineno;
			continue;
		}
		if (fold_filter_frames(&o->filter, !o->no_comm, line, &len) &&
		    (rc = fold_set_add(set, line, len, count)))
			break;
	}
	if (skipped && first)
		warn_skipped(name, at, first, skipped);
	if (rc < 0)
		rc = read_failed(name, lineno + (rc == -E2BIG), rc);
	sp_buf_release(&b);
	free(first);
	return rc ? 1 : 0;
}
