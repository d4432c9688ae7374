#!/bin/sh
# bench/all.sh: runs every benchmark of bench/ this machine can run, each
# with a short workload, and prints one table of the ratios they report
# against perf, stackcollapse-perf.pl and addr2line.  A benchmark whose
# anchor is missing (perf, perf_event_open, a stackcollapse-perf.pl) is
# skipped with the reason.  Full logs go to build/bench/NAME.log.
#
#   make bench                    (builds build/ first)
#   STACKCOLLAPSE=/path/to/stackcollapse-perf.pl make bench
#
# The A/B scripts (record-ab.sh, symbolize-ab.sh, record-ptrace-threads.sh)
# compare two builds of stackpulse and are not run here.
cd "$(dirname "$0")/.." || exit 1
B=${B:-build}
export B
logs=build/bench
mkdir -p "$logs"

have_perf() {
	command -v perf >/dev/null &&
		perf stat -e task-clock -- true >/dev/null 2>&1
}

# run NAME REASON-IF-MISSING PATTERN CMD...: runs a benchmark and keeps
# the lines of its log that match PATTERN (its ratios or figures)
run() {
	name=$1 missing=$2 pattern=$3
	shift 3
	if [ -n "$missing" ]; then
		printf '%-22s skipped: %s\n' "$name" "$missing"
		return
	fi
	if ! timeout 900 "$@" >"$logs/$name.log" 2>&1; then
		printf '%-22s failed (see %s)\n' "$name" "$logs/$name.log"
		return
	fi
	grep -Ei "$pattern" "$logs/$name.log" |
		sed "s/^ */$(printf '%-22s' "$name") /" | head -n 12
}

noperf=""
have_perf || noperf="perf or perf_event_open missing"
noscript=""
[ -n "${STACKCOLLAPSE:-}" ] && [ -f "${STACKCOLLAPSE:-}" ] ||
	noscript="set STACKCOLLAPSE=/path/to/stackcollapse-perf.pl"
[ -z "$noscript" ] && [ -n "$noperf" ] && noscript=$noperf

echo "stackpulse $(cat VERSION) ($(git describe --always --dirty 2>/dev/null)) on" \
	"$(uname -srm), $(nproc) CPUs, $(date -u +%Y-%m-%d)"
ratios='ratio|[0-9.]+x( |$)|faster'
run record-overhead "$noperf" "$ratios" sh bench/record-overhead.sh 5
run record-build "$noperf" "$ratios" sh bench/record-build.sh 40 3
run dump-throughput "$noperf" "$ratios" sh bench/dump-throughput.sh 5
run symbolize-speed "$noperf" '[0-9.]+x$' sh bench/symbolize-speed.sh 5
run fold-perf-script "$noscript" "$ratios" \
	env SIZE_MB=60 sh bench/fold-perf-script.sh
run unwind-cost "$noperf" "$ratios|us/sample" sh bench/unwind-cost.sh 3
run truth "$noperf" 'complete' sh bench/truth.sh 3
run offcpu-overhead "$noperf" 'slower|CPU' sh bench/offcpu-overhead.sh 50000
run live-latency "$noperf" 'after the switch' sh bench/live-latency.sh 3
run pipeline-speed "$noscript" 'first .*repeat' sh bench/pipeline-speed.sh 3
run pipeline-throughput "" 'ratio' sh bench/pipeline-throughput.sh 5000000
run symbolize-memory "" 'MB' sh bench/symbolize-memory.sh
