/*
 * synth-spool.c: writes a synthetic spool to stdout for
 * bench/pipeline-throughput.sh: N samples of two threads of one process,
 * each on one of STACKS stacks of 12 frames in one module, 1 ms apart.
 * The work of reading it grows with N alone: its frames, stacks and
 * names are few.  Built against build/libsp.a:
 *
 *   cc -O2 -I. -o synth-spool bench/synth-spool.c build/libsp.a -lxxhash
 *   synth-spool N [STACKS] >x.spool
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/spool.h"

#define DEPTH 12

static int
module(struct sp_spool_writer *w)
{
	static const char path[] = "/opt/synth/libsynth.so";
	struct sp_module m = {
		.id = 0,
		.pid = 100,
		.start = 0x400000,
		.end = 0x500000,
		.inode = 1,
		.path = path,
		.path_len = sizeof(path) - 1,
	};

	return sp_spool_writer_module(w, &m);
}

int
main(int argc, char **argv)
{
	unsigned long long n, i, nstacks;
	struct sp_frame f[DEPTH];
	struct sp_spool_writer *w;
	int k, rc;

	if (argc < 2 || argc > 3) {
		fputs("usage: synth-spool N [STACKS]\n", stderr);
		return 2;
	}
	n = strtoull(argv[1], NULL, 10);
	nstacks = argc == 3 ? strtoull(argv[2], NULL, 10) : 64;
	w = sp_spool_writer_new(1, 1700000000000000ull, 1000);
	if (!w || nstacks == 0 || module(w))
		return 1;
	for (i = 0, rc = 0; i < n && !rc; i++) {
		unsigned long long s = (i * 2654435761u) % nstacks;

		/* Leaf first: the leaf names the stack, the rest is shared. */
		for (k = 0; k < DEPTH; k++) {
			uint64_t rel =
			    k ? 0x1000 + 0x40 * (uint64_t)k : 0x8000 + 0x10 * s;

			f[k] = (struct sp_frame){ 0, rel, 0x400000 + rel,
						  SP_FRAME_USER };
		}
		rc = sp_spool_writer_sample(w, 1000000 * i, 100, 100 + i % 2, f,
					    DEPTH, NULL);
	}
	if (rc || sp_spool_writer_flush(w)) {
		fprintf(stderr, "synth-spool: %s\n", sp_spool_writer_errmsg(w));
		return 1;
	}
	sp_spool_writer_free(w);
	return 0;
}
