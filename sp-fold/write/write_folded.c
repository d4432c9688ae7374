/*
 * write_folded.c: --format folded, and the two-count lines of --diff
 * (write_folded.h).
 */
#include <errno.h>
#include <inttypes.h>

#include "sp-fold/write/write_folded.h"
#include "common/banned.h"

int
fold_write_folded(FILE *out, const struct fold_profile *p)
{
	const struct fold_line *l;
	size_t n, i;

	if (fold_set_lines(p->set, &l, &n))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		fwrite(l[i].stack, 1, l[i].len, out);
		fprintf(out, " %llu\n", (unsigned long long)l[i].count);
	}
	return 0;
}

int
fold_write_diff_folded(FILE *out, const struct fold_profile *p)
{
	size_t i;

	for (i = 0; i < p->ndiff; i++) {
		fwrite(p->diff[i].stack, 1, p->diff[i].len, out);
		fprintf(out, " %" PRIu64 " %" PRIu64 "\n", p->diff[i].before,
			p->diff[i].after);
	}
	return 0;
}
