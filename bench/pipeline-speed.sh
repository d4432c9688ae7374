#!/bin/sh
# bench/pipeline-speed.sh: the whole pipeline from a recording to folded
# stacks, `sp-dump | sp-symbolize | sp-fold`, against perf's,
# `perf script | stackcollapse-perf.pl`, on two workloads of SECONDS each
# at 999 Hz:
#   - c:      tests/programs/rec_chain.c, two threads, built -O2 (no
#             frame pointers), its time in the program and libc;
#   - python: bench/symbolize-workload.py (libpython, libc, libz,
#             libcrypto, libm).
# perf records each workload twice: with --call-graph dwarf, the same
# stacks as sp-record's (perf script unwinds them), and with -g, frame
# pointers only (cheaper to script, but stacks through code built
# without them are cut short: docs/bench-truth.md).  sp-symbolize runs
# first (an empty symbol cache, in a private XDG_CACHE_HOME, emptied
# before each run and outside its timing) and repeat (the cache the first
# run filled).  The pipeline runs twice more with
# `sp-dump --runs` (a count per stack instead of a line per sample), the
# form for consumers that need no time of each sample.  Times are CPU
# (user + system), the best of 3 (CPU_RUNS=N: of N); ratios are per
# sample.
#   STACKCOLLAPSE=/path/to/stackcollapse-perf.pl sh bench/pipeline-speed.sh \
#       [SECONDS]      (optimized build in $B, default build/)
# WORKLOADS="c" runs the C workload only (default "c python").
set -e
secs=${1:-3}
B=${B:-build}
if [ -z "${STACKCOLLAPSE:-}" ] || [ ! -f "$STACKCOLLAPSE" ]; then
	echo "pipeline-speed.sh: set STACKCOLLAPSE to FlameGraph's" \
		"stackcollapse-perf.pl" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/xdg"
unset SP_SYMBOLIZE_CACHE_SIZE SP_SYMBOLIZE_CACHE_STATS
cc -O2 -g -pthread -o "$tmp/rec_chain" tests/programs/rec_chain.c

. "$(dirname "$0")/cpu.sh"

# one NAME COMMAND...: records COMMAND three ways and prints its rows.
one() {
	name=$1
	shift
	# rec_chain exits 7 by design.
	"$B/sp-record" -q -F 999 -o "$tmp/$name.spool" -- "$@" \
		>/dev/null 2>&1 || true
	perf record -q -F 999 -e cpu-clock --call-graph dwarf \
		-o "$tmp/$name.dw" -- "$@" >/dev/null 2>&1 || true
	perf record -q -F 999 -e cpu-clock -g -o "$tmp/$name.fp" -- "$@" \
		>/dev/null 2>&1 || true
	n_sp=$("$B/sp-dump" "$tmp/$name.spool" | grep -c '^sample')
	n_dw=$(perf script -i "$tmp/$name.dw" -F tid 2>/dev/null | wc -l)
	n_fp=$(perf script -i "$tmp/$name.fp" -F tid 2>/dev/null | wc -l)
	pipe="'$B/sp-dump' '$tmp/$name.spool' | '$B/sp-symbolize' |
		'$B/sp-fold'"
	runs="'$B/sp-dump' --runs '$tmp/$name.spool' | '$B/sp-symbolize' |
		'$B/sp-fold'"
	# The cache is emptied before each first run, outside the timing.
	c_first=$(cpu_after "rm -rf '$XDG_CACHE_HOME'" "$pipe")
	c_rfirst=$(cpu_after "rm -rf '$XDG_CACHE_HOME'" "$runs")
	rm -rf "$XDG_CACHE_HOME"
	sh -c "$pipe" >/dev/null 2>&1
	c_rep=$(cpu "$pipe")
	c_rrep=$(cpu "$runs")
	c_dw=$(cpu "perf script -i '$tmp/$name.dw' 2>/dev/null |
		perl '$STACKCOLLAPSE'")
	c_fp=$(cpu "perf script -i '$tmp/$name.fp' 2>/dev/null |
		perl '$STACKCOLLAPSE'")
	us() { echo "$1 * 1000000 / $2" | bc -l; }
	x() { echo "($1 / $2) / ($3 / $4)" | bc -l; }
	printf '%-7s %-34s %7d %8.3f %9.1f\n' "$name" \
		"sp pipeline, first run" "$n_sp" "$c_first" \
		"$(us "$c_first" "$n_sp")" \
		"" "sp pipeline, repeat run" "$n_sp" "$c_rep" \
		"$(us "$c_rep" "$n_sp")" \
		"" "sp pipeline --runs, first run" "$n_sp" "$c_rfirst" \
		"$(us "$c_rfirst" "$n_sp")" \
		"" "sp pipeline --runs, repeat run" "$n_sp" "$c_rrep" \
		"$(us "$c_rrep" "$n_sp")" \
		"" "perf --call-graph dwarf pipeline" "$n_dw" "$c_dw" \
		"$(us "$c_dw" "$n_dw")" \
		"" "perf -g (frame pointers) pipeline" "$n_fp" "$c_fp" \
		"$(us "$c_fp" "$n_fp")"
	printf '%-7s perf dwarf / sp: first %.1fx, repeat %.1fx;' "" \
		"$(x "$c_dw" "$n_dw" "$c_first" "$n_sp")" \
		"$(x "$c_dw" "$n_dw" "$c_rep" "$n_sp")"
	printf ' perf -g / sp: first %.1fx, repeat %.1fx\n' \
		"$(x "$c_fp" "$n_fp" "$c_first" "$n_sp")" \
		"$(x "$c_fp" "$n_fp" "$c_rep" "$n_sp")"
	printf '%-7s perf dwarf / sp --runs: first %.1fx, repeat %.1fx;' "" \
		"$(x "$c_dw" "$n_dw" "$c_rfirst" "$n_sp")" \
		"$(x "$c_dw" "$n_dw" "$c_rrep" "$n_sp")"
	printf ' perf -g / sp --runs: first %.1fx, repeat %.1fx\n' \
		"$(x "$c_fp" "$n_fp" "$c_rfirst" "$n_sp")" \
		"$(x "$c_fp" "$n_fp" "$c_rrep" "$n_sp")"
}

printf '%-7s %-34s %7s %8s %9s\n' workload pipeline samples "cpu s" \
	"us/sample"
for w in ${WORKLOADS:-c python}; do
	case $w in
	c) one c "$tmp/rec_chain" "$secs" 1 ;;
	python) one python python3 bench/symbolize-workload.py "$secs" ;;
	esac
done
