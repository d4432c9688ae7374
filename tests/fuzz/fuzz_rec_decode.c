/*
 * fuzz_rec_decode.c: libFuzzer harness for sp-record's decoders: the input
 * becomes the data area of a perf ring whose records are read (wrapped
 * ones too) and decoded as samples with and without register and stack
 * copies, MMAP2, COMM, FORK/EXIT and LOST records, their callchains split;
 * the same bytes also go through the /proc/PID/maps parser.
 *
 * The decoders are compiled in directly rather than through the tool's
 * objects, which also hold the unwinder and its libraries.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp-record/sys/maps.c"
#include "sp-record/perf/perfrec.c"
#include "sp-record/perf/ring.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ST_BASE                                                                \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                 \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

static uint64_t sink;

static void
split(const struct rec_perfrec_sample *s)
{
	uint64_t i, depth = 0;

	/* What rec_stack_callchain_split reads: every entry, bounded by nchain.
	 */
	for (i = 0; i < s->nchain; i++)
		if (s->chain[i] < (uint64_t)PERF_CONTEXT_MAX)
			depth++;
	sink += depth;
	if (s->regs)
		sink += s->regs[0];
	if (s->stack && s->stack_len)
		sink += s->stack[s->stack_len - 1];
}

static void
decode(const struct rec_perfrec_layout *l, const struct perf_event_header *h)
{
	struct rec_perfrec_sample s;
	struct rec_perfrec_mmap2 m;
	struct rec_perfrec_comm c;
	struct rec_perfrec_task t;
	static uint64_t compact[REC_RING_MAX_RECORD / 8];
	struct rec_perfrec_id id;
	uint64_t v;
	size_t n;

	rec_perfrec_time_of(l, h, h->size, &v);
	rec_perfrec_id_of(l, h, h->size, &id);
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (rec_perfrec_sample_parse(l, h, h->size, &s) == 0)
			split(&s);
		n = rec_perfrec_sample_compact(l, h, h->size, compact);
		if (n && rec_perfrec_sample_parse(l, compact, n, &s) == 0)
			split(&s);
		break;
	case PERF_RECORD_MMAP2:
		if (rec_perfrec_mmap2_parse(l, h, h->size, &m) == 0)
			sink += m.path_len + (m.build_id ? m.build_id_len : 0);
		break;
	case PERF_RECORD_COMM:
		if (rec_perfrec_comm_parse(l, h, h->size, &c) == 0)
			sink += c.name_len;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (rec_perfrec_task_parse(h, h->size, &t) == 0)
			sink += t.pid;
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		if (rec_perfrec_lost_parse(h, h->size, &v) == 0)
			sink += v;
		break;
	}
}

static void
ring_pass(const uint8_t *data, size_t size, const struct rec_perfrec_layout *l)
{
	struct perf_event_mmap_page meta;
	const struct perf_event_header *h;
	struct rec_ring r;
	uint64_t cap = 8, start;
	uint8_t *area;
	size_t i;

	while (cap < size && cap < (1u << 20))
		cap <<= 1;
	area = calloc(1, cap);
	if (!area)
		return;
	/* Start somewhere in the area so records wrap around its end. */
	start = size ? (uint64_t)data[0] * 8 % cap : 0;
	memset(&meta, 0, sizeof(meta));
	for (i = 0; i < size && i < cap; i++)
		area[(start + i) % cap] = data[i];
	meta.data_tail = start;
	meta.data_head = start + (size < cap ? size : cap);
	if (rec_ring_init_mem(&r, &meta, area, cap) == 0) {
		rec_ring_begin(&r);
		while (rec_ring_next(&r, &h) == 1)
			decode(l, h);
		rec_ring_end(&r);
		rec_ring_release(&r);
	}
	free(area);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rec_perfrec_layout base, dwarf;
	struct rec_maps_entry m;
	size_t pos = 0;
	uint64_t bad = 0;

	rec_perfrec_layout_init(&base, ST_BASE, 0);
	rec_perfrec_layout_init(
	    &dwarf, ST_BASE | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
	    0xff0fffULL);
	ring_pass(data, size, &base);
	ring_pass(data, size, &dwarf);
	while (rec_maps_next((const char *)data, size, &pos, &m, &bad) == 1)
		sink += rec_maps_is_module(&m) + m.path_len;
	return 0;
}
