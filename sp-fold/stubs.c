/* stubs.c: the writers and the record stream reader still to come. */
#include "sp-fold/fold.h"
#include "common/banned.h"

int
fold_write_top(FILE *out, struct fold_set *set)
{
	(void)out;
	(void)set;
	fold_warn("--format top is not implemented yet");
	return 1;
}

int
fold_write_svg(FILE *out, struct fold_set *set, const struct fold_opts *o)
{
	(void)out;
	(void)set;
	(void)o;
	fold_warn("--format svg is not implemented yet");
	return 1;
}

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

int
fold_records(FILE *in, const char *name, const struct fold_opts *o,
	     struct fold_set *set, struct fold_meta *meta)
{
	(void)in;
	(void)o;
	(void)set;
	(void)meta;
	fold_warn("%s: record streams are not implemented yet", name);
	return 1;
}
