/* stubs.c: the writers still to come. */
#include "sp-fold/fold.h"
#include "common/banned.h"

int
fold_write_pprof(FILE *out, struct fold_set *set, const struct fold_opts *o,
		 const struct fold_meta *m)
{
	(void)out;
	(void)set;
	(void)o;
	(void)m;
	fold_warn("--format pprof is not implemented yet");
	return 1;
}
