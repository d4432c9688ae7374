/*
 * stats.h: the recorder's counters, which its parts add to; the summary
 * prints them and the stats record keeps them in the spool.
 */
#ifndef SP_RECORD_STATS_H
#define SP_RECORD_STATS_H

#include <stdint.h>

/* Counters for the summary and the stats extension record. */
struct rec_stats {
	uint64_t sample_events; /* PERF_RECORD_SAMPLE seen */
	uint64_t samples;       /* samples written */
	uint64_t empty_stacks;
	uint64_t stale_exec;  /* samples with the old program's registers */
	uint64_t untracked;   /* samples of processes not recorded */
	uint64_t idle;        /* samples of pid/tid 0 */
	uint64_t bad_records; /* records that did not decode */
	uint64_t lost;        /* events the kernel lost */
	uint64_t throttles;
	uint64_t mmaps;          /* module mappings seen */
	uint64_t maps_refreshes; /* /proc/PID/maps reads for a pc */
	uint64_t execs;
	uint64_t forks;
	uint64_t adopted; /* children found in /proc after losses */
	uint64_t wrapped; /* ring records copied out */
};

#endif
