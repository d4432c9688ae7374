#!/bin/sh
# bench/pipeline-throughput.sh: samples per second of CPU (user + system)
# through the whole pipeline, `sp-dump | sp-symbolize | sp-fold`, on a
# synthetic spool of N samples (bench/synth-spool.c: two threads of one
# process on 64 stacks of 12 frames, 1 ms apart), read with sp-dump
# --runs and with a line per sample.  Prints both rates, their ratio and
# the runs rate over the issue's goal of 5 million samples a second.
# CPU is the best of 3 runs of the pipeline (its shell included), the
# symbol cache warm (a private XDG_CACHE_HOME, filled by a first run).
#   sh bench/pipeline-throughput.sh [N]     (optimized build in $B, build/)
set -e
n=${1:-10000000}
B=${B:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/xdg"
cc -O2 -I. -o "$tmp/synth-spool" bench/synth-spool.c "$B/libsp.a" -lxxhash
"$tmp/synth-spool" "$n" >"$tmp/x.spool"

. "$(dirname "$0")/cpu.sh"

pipe="'$B/sp-symbolize' | '$B/sp-fold'"
# Both give the same folded lines; the first run also fills the cache.
sh -c "'$B/sp-dump' '$tmp/x.spool' | $pipe" >"$tmp/a" 2>/dev/null
sh -c "'$B/sp-dump' --runs '$tmp/x.spool' | $pipe" >"$tmp/b" 2>/dev/null
cmp -s "$tmp/a" "$tmp/b" || { echo "outputs differ" >&2; exit 1; }
c_runs=$(cpu "'$B/sp-dump' --runs '$tmp/x.spool' | $pipe")
c_lines=$(cpu "'$B/sp-dump' '$tmp/x.spool' | $pipe")
rate() { echo "$n / $1 / 1000000" | bc -l; }
printf 'samples %d, spool %d bytes\n' "$n" "$(wc -c <"$tmp/x.spool")"
printf '%-34s %8.3f s cpu %8.2f M samples/s\n' \
	"sp-dump --runs | ... | sp-fold" "$c_runs" "$(rate "$c_runs")" \
	"sp-dump | ... | sp-fold" "$c_lines" "$(rate "$c_lines")"
printf 'throughput ratio runs / lines: %.1fx; runs / goal (5 M/s): %.2fx\n' \
	"$(echo "$c_lines / $c_runs" | bc -l)" \
	"$(echo "$n / $c_runs / 5000000" | bc -l)"
