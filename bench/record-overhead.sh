#!/bin/sh
# bench/record-overhead.sh: what recording costs, sp-record next to
# `perf record`, on the same CPU-bound workload (tests/programs/rec_chain.c,
# two threads) at the same rate and length:
#   - the recorder's own CPU time (user + system) per sample, attached
#     with -p so the workload's time is not counted,
#   - the output's bytes per sample,
# with frame-pointer stacks (sp-record -g fp, perf record -g) and with DWARF
# stacks (sp-record -g dwarf, which unwinds while recording, against perf
# record --call-graph dwarf plus the `perf script` run that unwinds later).
# Then system-wide (-a) while the same workload runs next to a loop of
# compilers: recorder CPU per sample against perf record -a -g and -a
# --call-graph dwarf (+ perf script), bytes per sample and lost events.
#   sh bench/record-overhead.sh [SECONDS]     (optimized build in $B)
set -e
secs=${1:-5}
B=${B:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "no perf tool" >&2; exit 77; }
cc -O2 -g -fno-omit-frame-pointer -pthread -o "$tmp/work" \
	tests/programs/rec_chain.c

# cpu CMD...: runs CMD, prints its user+system CPU seconds.
cpu() {
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" ||
		true
	tail -n 1 "$tmp/time" | awk '{ print $1 + $2 }'
}
# attach NAME OUTPUT RECORDER...: runs the workload for the duration plus
# a margin and measures the recorder attached to it for SECONDS.
attach() {
	"$tmp/work" "$((secs + 2))" 1 &
	wpid=$!
	sleep 0.5
	eval "set -- $*"
	c=$(cpu "$@")
	kill "$wpid" 2>/dev/null || true
	wait "$wpid" 2>/dev/null || true
	echo "$c"
}
sp_count() { "$B/sp-dump" "$1" | grep -c '^sample'; }
perf_count() { perf script -i "$1" -F tid 2>/dev/null | wc -l; }
row() {	# NAME CPU SAMPLES BYTES
	printf '%-32s %6.3f s CPU %6d samples %6.2f us/sample %7.1f B/sample\n' \
		"$1" "$2" "$3" "$(echo "$2 * 1000000 / $3" | bc -l)" \
		"$(echo "$4 / $3" | bc -l)"
}
size() { wc -c <"$1"; }

echo "recorder CPU while attached to 2 busy threads for $secs s at 999 Hz"
c=$(attach '"$B/sp-record" -g fp -d "$secs" -o "$tmp/fp.spool" -p "$wpid"')
row "sp-record -g fp" "$c" "$(sp_count "$tmp/fp.spool")" "$(size "$tmp/fp.spool")"
sp_fp=$c n_sp_fp=$(sp_count "$tmp/fp.spool")
c=$(attach 'perf record -q -g -F 999 -e cpu-clock -o "$tmp/fp.data" -p "$wpid" -- sleep "$secs"')
row "perf record -g" "$c" "$(perf_count "$tmp/fp.data")" "$(size "$tmp/fp.data")"
perf_fp=$c n_perf_fp=$(perf_count "$tmp/fp.data")

c=$(attach '"$B/sp-record" -g dwarf -d "$secs" -o "$tmp/dw.spool" -p "$wpid"')
row "sp-record -g dwarf" "$c" "$(sp_count "$tmp/dw.spool")" "$(size "$tmp/dw.spool")"
sp_dw=$c n_sp_dw=$(sp_count "$tmp/dw.spool")
c=$(attach 'perf record -q --call-graph dwarf -F 999 -e cpu-clock -o "$tmp/dw.data" -p "$wpid" -- sleep "$secs"')
n_perf_dw=$(perf_count "$tmp/dw.data")
row "perf record --call-graph dwarf" "$c" "$n_perf_dw" "$(size "$tmp/dw.data")"
s=$(cpu perf script -i "$tmp/dw.data" -F ip,sym)
perf_dw=$(echo "$c + $s" | bc -l)
row "  + perf script to unwind" "$perf_dw" "$n_perf_dw" "$(size "$tmp/dw.data")"

ratio() { echo "($1) / ($2)" | bc -l; }
printf 'CPU per sample, perf / sp-record: fp %.2fx, dwarf (with perf script) %.2fx\n' \
	"$(ratio "$perf_fp / $n_perf_fp" "$sp_fp / $n_sp_fp")" \
	"$(ratio "$perf_dw / $n_perf_dw" "$sp_dw / $n_sp_dw")"
printf 'bytes per sample, perf.data / spool: fp %.1fx, dwarf %.1fx\n' \
	"$(ratio "$(size "$tmp/fp.data") / $n_perf_fp" "$(size "$tmp/fp.spool") / $n_sp_fp")" \
	"$(ratio "$(size "$tmp/dw.data") / $n_perf_dw" "$(size "$tmp/dw.spool") / $n_sp_dw")"

# System-wide: the 2-thread workload plus a compile loop on the machine.
busy() {
	"$tmp/work" "$((secs + 2))" 1 &
	wpid=$!
	( end=$(($(date +%s) + secs + 2))
	  while [ "$(date +%s)" -lt "$end" ]; do
		cc -O2 -c -o "$tmp/x.o" tests/programs/rec_chain.c
	  done ) &
	cpid=$!
	sleep 0.5
}
quiet() { wait "$wpid" "$cpid" 2>/dev/null || true; }
perf_lost() {
	perf report -i "$1" --stats 2>/dev/null |
		awk '/LOST events:/ { n += $NF } END { print n + 0 }'
}
echo "system-wide (-a) for $secs s at 999 Hz per CPU, 2 busy threads and a compile loop"
busy
c=$(cpu "$B/sp-record" -a -d "$secs" -o "$tmp/a.spool")
quiet
lost=$("$B/sp-dump" "$tmp/a.spool" | awk -F'\t' '$1 == "lost" { n += $3 } END { print n + 0 }')
n_sp_a=$(sp_count "$tmp/a.spool") sp_a=$c
row "sp-record -a" "$c" "$n_sp_a" "$(size "$tmp/a.spool")"
echo "  lost $lost"
busy
c=$(cpu perf record -q -a -g -F 999 -e cpu-clock -o "$tmp/a.data" -- sleep "$secs")
quiet
n_perf_a=$(perf_count "$tmp/a.data") perf_a=$c
row "perf record -a -g" "$c" "$n_perf_a" "$(size "$tmp/a.data")"
echo "  lost $(perf_lost "$tmp/a.data")"
busy
c=$(cpu perf record -q -a --call-graph dwarf -F 999 -e cpu-clock -o "$tmp/ad.data" -- sleep "$secs")
quiet
n_perf_ad=$(perf_count "$tmp/ad.data")
s=$(cpu perf script -i "$tmp/ad.data" -F ip,sym)
row "perf record -a --call-graph dwarf" "$c" "$n_perf_ad" "$(size "$tmp/ad.data")"
echo "  lost $(perf_lost "$tmp/ad.data")"
perf_ad=$(echo "$c + $s" | bc -l)
row "  + perf script to unwind" "$perf_ad" "$n_perf_ad" "$(size "$tmp/ad.data")"
printf 'system-wide CPU per sample: (perf -a -g) / (sp-record -a) %.2fx, (perf -a dwarf + script) / (sp-record -a) %.2fx\n' \
	"$(ratio "$perf_a / $n_perf_a" "$sp_a / $n_sp_a")" \
	"$(ratio "$perf_ad / $n_perf_ad" "$sp_a / $n_sp_a")"
