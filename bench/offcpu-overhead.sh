#!/bin/sh
# bench/offcpu-overhead.sh: what --off-cpu costs, next to perf.
#
#   B=build sh bench/offcpu-overhead.sh [ROUNDS]
#
# bench/pingpong.c hands a byte between two threads pinned to one CPU,
# two context switches per round trip, twice: as fast as it goes (nothing
# but switches), and paced by work between handoffs to 50,000 switches a
# second (a program that computes and blocks, the rate a busy server
# sees).  Each runs alone, under `sp-record --off-cpu`, and under `perf
# record -e sched:sched_switch --call-graph dwarf` (the perf way to see
# where threads block; its stacks still need `perf script`), and under
# sp-record copying perf's default 8 KiB of stack per sample, not 32.  For each:
# the target's rounds per second (its slowdown), the recorder's own CPU
# (everything but the target's, whose CPU includes the stack copies the
# kernel makes at each sample), the output's size and sp-record's lost
# events.
# docs/bench-offcpu.md has the figures.
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-100000}
B=${B:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g -pthread -o "$tmp/pp" bench/pingpong.c
spin50k=$(taskset -c 0 "$tmp/pp" --calibrate 50000)

# measure NAME CMD...: runs CMD (which runs the target), then prints
# NAME, the target's rounds/s and its slowdown against $alone, the CPU
# of everything but the target, and the size of $tmp/out.
measure() {
	name=$1
	shift
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >"$tmp/rate" \
		2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	read -r r tcpu <"$tmp/rate"
	all=$(tail -n 1 "$tmp/time" | awk '{ print $1 + $2 }')
	lost=$(sed -n 's/^sp-record: lost \([0-9]*\) event.*/\1/p' "$tmp/err")
	printf '  %-40s %8s rounds/s %6.1f%% slower %6.2f s recorder CPU %10d bytes%s\n' \
		"$name" "$r" "$(echo "100 - 100 * $r / $alone" | bc -l)" \
		"$(echo "$all - $tcpu" | bc -l)" "$(wc -c <"$tmp/out")" \
		"${lost:+, $lost events lost}"
}

for pace in unpaced 50k; do
	spin=0
	[ $pace = 50k ] && spin=$spin50k
	set -- taskset -c 0 "$tmp/pp" "$rounds" "$spin"
	read -r alone acpu <<-EOT
	$("$@")
	EOT
	printf '%s: %s rounds/s alone (%s switches/s), %s s target CPU\n' \
		"$pace" "$alone" "$((alone * 2))" "$acpu"
	measure "sp-record --off-cpu" "$B/sp-record" --off-cpu \
		-o "$tmp/out" -- "$@"
	measure "sp-record --off-cpu --stack-size 8192" "$B/sp-record" \
		--off-cpu --stack-size 8192 -o "$tmp/out" -- "$@"
	command -v perf >/dev/null || continue
	measure "perf record -e sched:sched_switch -g dwarf" perf record -q \
		-e sched:sched_switch --call-graph dwarf -o "$tmp/out" -- "$@"
	/usr/bin/time -f '%U %S' -o "$tmp/ps.time" perf script \
		-i "$tmp/out" >/dev/null 2>&1 || true
	printf '  %-40s %6.2f s CPU\n' "+ perf script to unwind" \
		"$(tail -n 1 "$tmp/ps.time" | awk '{ print $1 + $2 }')"
done
