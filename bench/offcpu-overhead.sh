#!/bin/sh
# bench/offcpu-overhead.sh: what --off-cpu costs, next to perf.
#
#   B=build sh bench/offcpu-overhead.sh [ROUNDS]
#
# bench/pingpong.c hands a byte between two threads pinned to one CPU,
# two context switches per round trip (about 50,000 a second here).  It
# runs alone, under `sp-record --off-cpu`, and under `perf record -e
# sched:sched_switch --call-graph dwarf` (the perf way to see where
# threads block; its stacks still need `perf script`).  For each: the
# target's rounds per second (its slowdown), the recorder's CPU time, and
# the output's size.  docs/bench-offcpu.md has the figures.
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-100000}
B=${B:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g -pthread -o "$tmp/pp" bench/pingpong.c
run() { taskset -c 0 "$tmp/pp" "$rounds"; }
# cpu OUT CMD...: the recorder's user+system seconds into OUT's .cpu
cpu() {
	out=$1
	shift
	/usr/bin/time -f '%U %S' -o "$out.time" "$@" >"$out.rate" \
		2>"$out.err" || { cat "$out.err" >&2; exit 1; }
	tail -n 1 "$out.time" | awk '{ print $1 + $2 }'
}
alone=$(run)
printf '%-44s %9s rounds/s\n' "alone" "$alone"
c=$(cpu "$tmp/sp" "$B/sp-record" -q --off-cpu -o "$tmp/x.spool" -- \
	taskset -c 0 "$tmp/pp" "$rounds")
r=$(cat "$tmp/sp.rate")
printf '%-44s %9s rounds/s  %5.1f%% slower  %6.2f s recorder CPU (with the target)  %9d bytes\n' \
	"sp-record --off-cpu" "$r" "$(echo "100 - 100 * $r / $alone" | bc -l)" \
	"$c" "$(wc -c <"$tmp/x.spool")"
if command -v perf >/dev/null; then
	c=$(cpu "$tmp/pf" perf record -q -e sched:sched_switch \
		--call-graph dwarf -o "$tmp/x.data" -- \
		taskset -c 0 "$tmp/pp" "$rounds")
	r=$(cat "$tmp/pf.rate")
	/usr/bin/time -f '%U %S' -o "$tmp/ps.time" perf script \
		-i "$tmp/x.data" >/dev/null 2>&1 || true
	s=$(tail -n 1 "$tmp/ps.time" | awk '{ print $1 + $2 }')
	printf '%-44s %9s rounds/s  %5.1f%% slower  %6.2f s recorder CPU (with the target)  %9d bytes\n' \
		"perf record -e sched:sched_switch -g dwarf" "$r" \
		"$(echo "100 - 100 * $r / $alone" | bc -l)" "$c" \
		"$(wc -c <"$tmp/x.data")"
	printf '%-44s %6.2f s CPU\n' "  + perf script to unwind" "$s"
fi
