/*
 * statsrec.h: the stats record that ends a recording, every counter of
 * the recorder's parts in one SP_EXT_STATS record (sp-records(5)).
 *
 * struct rec_statsparts lends the writer the parts it reads; nothing is
 * kept.
 */
#ifndef SP_RECORD_STATSREC_H
#define SP_RECORD_STATSREC_H

#include "sp-record/capture.h"
#include "sp-record/deepbpf.h"
#include "sp-record/filepin.h"
#include "sp-record/proc.h"
#include "sp-record/pyann.h"
#include "sp-record/pybpf.h"
#include "sp-record/spoolout.h"
#include "sp-record/stack.h"
#include "sp-record/stats.h"

struct rec_statsparts {
	const struct rec_stats *st;
	const struct rec_stacker *stk;
	const struct rec_ptab *procs;
	const struct rec_filepin *pins;
	const struct rec_capture *cap;  /* or NULL: --no-capture */
	const struct rec_deepbpf *deep; /* or NULL: no deep copies */
	const struct rec_pybpf *pybpf;  /* or NULL: no Python BPF reader */
	const struct rec_pyann *py;     /* or NULL: --no-python */
};

/*
 * Writes the stats record to `out`.  Returns 0 or what rec_out_wr()
 * keeps (-ENOMEM, or the output's error).
 */
int rec_statsrec_write(struct rec_out *out, const struct rec_statsparts *p);

#endif
