#!/bin/sh
# bench/unwind-cost.sh: what DWARF unwinding costs sp-record.
#
#   sh bench/unwind-cost.sh [SECONDS]
#
# 1. Unwinder alone: records tests/programs/unw_chains.c (-O2
#    -fomit-frame-pointer) with perf_event_open and unwinds each sample
#    repeatedly (tests/unit/check_record_unwind_perf.c with
#    SP_UNW_BENCH=1), once as sp-record builds it, once with Debian's
#    libunwind left to block signals around every lock, and prints warm
#    microseconds per sample.  (The libdw backend once measured here,
#    sp-record/unwind_dw.c, is in the history at 7cded20.)
# 2. Whole recorder: when build/sp-record and perf(1) exist, records the same
#    program at 1000 Hz with 32 KiB stack copies by both, and prints
#    recorder CPU per sample and output bytes per sample with the ratio
#    sp-record / perf.  docs/bench-unwind.md has the figures.
set -eu
cd "$(dirname "$0")/.."
SECS=${1:-2}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/sp-bench-unwind.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
CFLAGS="-std=gnu11 -O2 -g -I. -D_GNU_SOURCE"
LIBS="$(pkg-config --libs check libunwind-ptrace libunwind-generic) -lelf \
	-lxxhash -lm"
# Every part of the recorder but its main, so a new file is never missed.
SRCS="tests/unit/check_record_unwind_perf.c $(ls sp-record/*.c \
	sp-record/*/*.c | grep -v '^sp-record/sp-record.c$\|^sp-record/bpf/') \
	common/*.c"

# shellcheck disable=SC2086
cc $CFLAGS -o "$OUT/nosig" $SRCS $LIBS
# shellcheck disable=SC2086
cc $CFLAGS -Dsigprocmask=sp_bench_unused_sigprocmask -o "$OUT/stock" \
	$SRCS $LIBS

echo "== unwinder alone (unw_chains, ${SECS}s at 1000 Hz, warm, best of 5)"
for v in nosig stock; do
	echo "-- $v"
	SP_UNW_BENCH=1 SP_UNW_SECONDS=$SECS "$OUT/$v" | grep -E 'warm|unwound'
done

SP_RECORD=${SP_RECORD:-build/sp-record}
SP_DUMP=${SP_DUMP:-build/sp-dump}
if [ ! -x "$SP_RECORD" ] || ! command -v perf >/dev/null 2>&1; then
	echo "(no $SP_RECORD or no perf: skipping the recorder comparison)"
	exit 0
fi

echo "== recorder CPU per sample (unw_chains ${SECS}s, 1000 Hz, 32 KiB)"
cc -O2 -g -fomit-frame-pointer -fPIC -shared -o "$OUT/libunw_lib.so" \
	tests/programs/unw_lib.c
cc -O2 -g -fomit-frame-pointer -pthread -o "$OUT/unw_chains" \
	tests/programs/unw_chains.c -L"$OUT" -lunw_lib -Wl,-rpath,"$OUT"

# cpu_of CMD...: starts the workload, runs CMD (which attaches to $pid)
# and prints CMD's own user+system CPU seconds, the workload's excluded.
cpu_of() {
	"$OUT/unw_chains" $((SECS + 2)) &
	pid=$!
	export pid
	sleep 0.3
	/usr/bin/env time -f '%U %S' -o "$OUT/time" "$@" >/dev/null 2>&1 ||
		true
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	awk '{ printf "%.3f\n", $1 + $2 }' "$OUT/time"
}

sp_cpu=$(cpu_of sh -c '"$0" -g dwarf -F 1000 --stack-size 32768 -d "$1" \
	-o "$2" -p "$pid"' "$SP_RECORD" "$SECS" "$OUT/out.spool")
sp_n=$("$SP_DUMP" "$OUT/out.spool" | grep -c '^sample' || true)
sp_bytes=$(wc -c <"$OUT/out.spool")
perf_cpu=$(cpu_of sh -c 'perf record -q -F 1000 -e cpu-clock \
	--call-graph dwarf,32768 -o "$0" -p "$pid" -- sleep "$1"' \
	"$OUT/perf.data" "$SECS")
perf_n=$(perf report -D -i "$OUT/perf.data" 2>/dev/null |
	grep -c 'PERF_RECORD_SAMPLE' || true)
perf_bytes=$(wc -c <"$OUT/perf.data")
awk -v sc="$sp_cpu" -v sn="$sp_n" -v sb="$sp_bytes" \
    -v pc="$perf_cpu" -v pn="$perf_n" -v pb="$perf_bytes" 'BEGIN {
	su = sn ? sc * 1e6 / sn : 0; pu = pn ? pc * 1e6 / pn : 0
	printf "sp-record: %d samples, %.1f us CPU/sample, %.0f bytes/sample\n",
	    sn, su, sn ? sb / sn : 0
	printf "perf:      %d samples, %.1f us CPU/sample, %.0f bytes/sample\n",
	    pn, pu, pn ? pb / pn : 0
	if (pu && pb && pn)
		printf "ratio sp-record/perf: CPU %.2f, bytes %.4f\n",
		    su / pu, (sb / sn) / (pb / pn)
}'
