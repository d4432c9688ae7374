#!/bin/sh
# bench/record-build.sh: what recording a many-process command costs:
# sp-record -f next to perf record --call-graph dwarf on `make -j2` of a
# generated C project (NFILES files, each compiled by cc: about 2-3
# processes per file, each mapping its own libraries).  Prints the
# recorder's own CPU time (user + system, read from /proc/PID/stat once
# the build is over, so the build's CPU is not counted) and the ratio.
#   sh bench/record-build.sh [NFILES] [ROUNDS]   (optimized build in $B)
set -e
nfiles=${1:-40}
rounds=${2:-3}
B=${B:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "no perf tool" >&2; exit 77; }

sh bench/gen-project.sh "$tmp/proj" "$nfiles"

# measure RECORDER...: runs RECORDER -- make -j2 on a clean tree and
# prints the recorder's own CPU seconds: perf stat --no-inherit counts
# the task-clock of that one process, not of the build it launches.
measure() {
	rm -f "$tmp/proj"/*.o "$tmp/proj/prog"
	perf stat --no-inherit -x, -e task-clock -o "$tmp/stat" -- \
		"$@" -- make -s -j2 -C "$tmp/proj" >/dev/null 2>"$tmp/err"
	awk -F, '/task-clock/ { printf "%.3f\n", $1 / 1000 }' "$tmp/stat"
}

echo "make -j2 of $nfiles C files, recorder CPU in seconds (best of $rounds):"
best() { sort -n | head -n 1; }
sp=$(for r in $(seq "$rounds"); do
	measure "$B/sp-record" -f -g dwarf -o "$tmp/x.spool"; done | best)
grep -E 'processes|modules' "$tmp/err" | sed 's/^/  /'
pf=$(for r in $(seq "$rounds"); do
	measure perf record -q --call-graph dwarf -F 999 -e cpu-clock \
		-o "$tmp/x.data"; done | best)
printf '  sp-record -f -g dwarf          %6.2f s\n' "$sp"
printf '  perf record --call-graph dwarf %6.2f s\n' "$pf"
printf 'sp-record / perf record CPU: %.2fx\n' "$(echo "$sp / $pf" | bc -l)"
