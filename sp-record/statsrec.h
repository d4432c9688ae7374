/*
 * statsrec.h: the stats record that ends a recording, every counter of
 * the recorder's parts in one SP_EXT_STATS record (sp-records(5)).
 */
#ifndef SP_RECORD_STATSREC_H
#define SP_RECORD_STATSREC_H

#include "sp-record/out/spoolout.h"
#include "sp-record/summary.h"

/*
 * Writes the stats record of the parts `rp` lends to `out`.  Returns 0
 * or what rec_spoolout_wr() keeps (-ENOMEM, or the output's error).
 */
int rec_statsrec_write(struct rec_spoolout *out, const struct rec_summary *rp);

#endif
