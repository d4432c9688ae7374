#!/bin/sh
# bench/dump-throughput.sh: how fast sp-dump turns a recording into text,
# next to `perf script` printing raw addresses (-F tid,time,ip) for a
# perf.data of the same workload, rate and length, and the file size per
# sample of each format.
#   sh bench/dump-throughput.sh [SECONDS]     (optimized build in build/)
set -e
secs=${1:-10}
B=${B:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -g -pthread -o "$tmp/demo" tests/programs/demo.c
"$B/sp-record" -F 999 -o "$tmp/x.spool" -- "$tmp/demo" "$secs" >/dev/null
perf record -q -F 999 -e cpu-clock --call-graph dwarf -o "$tmp/perf.data" \
	-- "$tmp/demo" "$secs" >/dev/null 2>&1

# best of 3 wall-clock seconds for a command
best() {
	b=
	for i in 1 2 3; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}
sp_samples=$("$B/sp-dump" "$tmp/x.spool" | grep -c '^sample')
perf_samples=$(perf script -i "$tmp/perf.data" -F tid 2>/dev/null | wc -l)
t_dump=$(best "$B/sp-dump" "$tmp/x.spool")
t_stacks=$(best "$B/sp-dump" --stacks "$tmp/x.spool")
t_perf=$(best perf script -i "$tmp/perf.data" -F tid,time,ip)
sp_bytes=$(wc -c <"$tmp/x.spool")
perf_bytes=$(wc -c <"$tmp/perf.data")
echo "samples: sp-record $sp_samples, perf record $perf_samples"
printf 'sp-dump (records)   %8.3f s  %7.2f us/sample\n' "$t_dump" \
	"$(echo "$t_dump * 1000000 / $sp_samples" | bc -l)"
printf 'sp-dump --stacks    %8.3f s  %7.2f us/sample\n' "$t_stacks" \
	"$(echo "$t_stacks * 1000000 / $sp_samples" | bc -l)"
printf 'perf script (ip)    %8.3f s  %7.2f us/sample\n' "$t_perf" \
	"$(echo "$t_perf * 1000000 / $perf_samples" | bc -l)"
printf 'speed ratio perf script / sp-dump --stacks: %.1fx\n' \
	"$(echo "($t_perf / $perf_samples) / ($t_stacks / $sp_samples)" | bc -l)"
printf 'bytes/sample: spool %.1f, perf.data %.1f (ratio %.1fx)\n' \
	"$(echo "$sp_bytes / $sp_samples" | bc -l)" \
	"$(echo "$perf_bytes / $perf_samples" | bc -l)" \
	"$(echo "($perf_bytes / $perf_samples) / ($sp_bytes / $sp_samples)" | bc -l)"
