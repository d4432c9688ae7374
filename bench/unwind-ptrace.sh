#!/bin/sh
# bench/unwind-ptrace.sh: what ptrace sampling costs the target.
#
#   sh bench/unwind-ptrace.sh [HZ [SECONDS]]
#
# Samples tests/programs/unw_busy.c (a 30-frame stack, -O2
# -fomit-frame-pointer) for 1 and 3 threads through sp-record --ptrace
# ($SP_RECORD, default build/sp-record), printing the target's throughput
# next to running alone and the pauses per sample (median, p99), and
# under perf record --call-graph dwarf at the same rate.  Run it on an idle
# machine: the throughput figures are only as steady as the machine.
set -eu
cd "$(dirname "$0")/.."
HZ=${1:-1000}
SECS=${2:-2}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/sp-bench-ptrace.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
cc -O2 -fomit-frame-pointer -pthread -o "$OUT/unw_busy" \
	tests/programs/unw_busy.c

SP_RECORD=${SP_RECORD:-build/sp-record}
for threads in 1 3; do
	if [ -x "$SP_RECORD" ]; then
		alone=$("$OUT/unw_busy" "$SECS" "$threads" | cut -d' ' -f1)
		rec=$("$SP_RECORD" --ptrace -F "$HZ" -o "$OUT/p.spool" -- \
			"$OUT/unw_busy" "$SECS" "$threads" 2>"$OUT/err" |
			cut -d' ' -f1)
		pauses=$(sed -n 's/^sp-record: ptrace pauses: //p' "$OUT/err")
		awk -v a="$alone" -v p="$rec" -v t="$threads" -v hz="$HZ" \
		    -v pz="$pauses" 'BEGIN { printf "sp-record --ptrace %d Hz, " \
			"%d threads: target %d rounds alone, %d recorded " \
			"(%+.1f%%); pauses %s\n", hz, t, a, p,
			a ? 100 * (p - a) / a : 0, pz }'
	fi
	if command -v perf >/dev/null 2>&1; then
		alone=$("$OUT/unw_busy" "$SECS" "$threads" | cut -d' ' -f1)
		perf=$(perf record -q -F "$HZ" -e cpu-clock \
			--call-graph dwarf,32768 -o "$OUT/perf.data" -- \
			"$OUT/unw_busy" "$SECS" "$threads" 2>/dev/null |
			cut -d' ' -f1)
		awk -v a="$alone" -v p="$perf" -v t="$threads" -v hz="$HZ" \
		    'BEGIN { printf "perf   %d Hz, %d threads: target %d rounds " \
			"alone, %d recorded (%+.1f%%)\n", hz, t, a, p,
			a ? 100 * (p - a) / a : 0 }'
	fi
done
