/*
 * fuzz_fold.c: libFuzzer harness for sp-fold's readers and writers.  The
 * first byte picks the reader (perf script text, folded stacks or the
 * record stream) and options; the rest is the input.  The folded set then
 * goes through the folded, top, svg and pprof writers into /dev/null, and
 * a record stream through the svg writer with sources too, the pprof
 * writer with addresses and mappings, and the threads table.  Perf script
 * is read without --inline, which would run addr2line.
 *
 * tool: sp-fold
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp-fold/model/foldset.h"
#include "sp-fold/read/read_folded.h"
#include "sp-fold/read/read_perfscript.h"
#include "sp-fold/read/read_records.h"
#include "sp-fold/write/write_folded.h"
#include "sp-fold/write/write_pprof.h"
#include "sp-fold/write/write_pprof_records.h"
#include "sp-fold/write/write_svg.h"
#include "sp-fold/write/write_svg_records.h"
#include "sp-fold/write/write_threads.h"
#include "sp-fold/write/write_top.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
write_all(struct fold_set *set, const struct fold_opts *o,
	  const struct fold_meta *meta)
{
	struct fold_profile p = { .set = set, .meta = *meta };
	FILE *null = fopen("/dev/null", "w");

	if (!null)
		return;
	fold_write_folded(null, &p);
	fold_write_top(null, &p, &o->top);
	fold_write_svg(null, &p, &o->svg);
	fold_write_pprof(null, &p, o->name.no_comm);
	fclose(null);
}

/*
 * The svg of a record stream, which carries sources to the tooltips, and
 * its pprof, whose values are counts times the period (saturating), and
 * its threads table.
 */
static void
svg_records(const struct fold_profile *p, const struct fold_opts *o)
{
	FILE *null = fopen("/dev/null", "w");

	if (!null)
		return;
	fold_write_svg_records(null, p, &o->name, &o->svg);
	fold_write_pprof_records(null, p, &o->name, &o->count);
	fold_write_threads(null, p, &o->count);
	fclose(null);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fold_opts o = { .format = FOLD_FOLDED };
	struct fold_meta meta = { 0 };
	struct fold_profile p;
	struct fold_reader r;
	struct fold_set *set;
	FILE *in;
	uint8_t mode;

	if (size < 1)
		return 0;
	mode = data[0];
	o.name.pid = mode & 2;
	o.name.tid = mode & 4;
	o.name.kernel = o.name.jit = mode & 8;
	o.name.inl = o.name.addrs = mode & 16;
	/* perf script --inline runs addr2line on the input's module paths:
	 * no processes, and no files named by the input, from a fuzzer */
	if ((mode & 129) == 1)
		o.name.inl = false;
	o.name.no_comm = mode & 32;
	o.name.show_hidden = o.svg.reverse = mode & 64;
	o.name.filter.max_depth = mode & 128 ? 3 : 0;
	in = fmemopen((void *)(data + 1), size - 1 ? size - 1 : 1, "r");
	set = fold_set_new();
	if (in && set && size > 1) {
		if ((mode & 129) == 129)
			fold_read_folded(in, "", &o.name, set);
		else if (mode & 1)
			fold_read_perfscript(in, "", &o, set);
		else if (!fold_reader_init(&r, "", &o)) {
			if (!fold_reader_read(&r, in)) {
				fold_reader_profile(&r, &p);
				fold_profile_fold(&p, &o.name, set);
				svg_records(&p, &o);
			}
			meta = r.meta;
			fold_reader_release(&r);
		}
		write_all(set, &o, &meta);
	}
	if (in)
		fclose(in);
	fold_set_free(set);
	return 0;
}
