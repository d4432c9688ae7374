#!/bin/sh
# bench/record-ab.sh: recorder CPU per sample of two sp-record builds,
# run alternately on the same workload so that the machine's load hits
# both alike.  Each run attaches `sp-record -g MODE -d SECONDS` to
# tests/programs/rec_chain.c (two busy threads) and measures the recorder
# alone with `perf stat -e task-clock` (ns resolution, unlike time(1)).
#   sh bench/record-ab.sh OLD_BUILD_DIR NEW_BUILD_DIR [MODE [ROUNDS [SECONDS]]]
# MODE is dwarf (default) or fp.  Prints each run, then the medians.
# MODE build runs bench/record-build.sh's workload instead: sp-record -f
# -g dwarf -- make -j2 of SECONDS (default 40) generated C files, with
# perf stat --no-inherit, and the recorder's own sample count (the
# samples follow how much CPU the build got: per sample is what compares).
set -e
[ $# -ge 2 ] || { echo "usage: $0 old-build new-build [mode [rounds [seconds]]]" >&2; exit 2; }
old=$1 new=$2 mode=${3:-dwarf} rounds=${4:-5} secs=${5:-5}
command -v perf >/dev/null || { echo "no perf tool" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_build BUILD: run's line for make -j2 under sp-record -f, with the
# truncated stacks of the recorder's summary.
run_build() {
	rm -f "$tmp/proj"/*.o "$tmp/proj/prog"
	perf stat --no-inherit -x, -e task-clock -o "$tmp/stat" -- \
		"$1/sp-record" -f -g dwarf -o "$tmp/x.spool" -- \
		make -s -j2 -C "$tmp/proj" >/dev/null 2>"$tmp/err"
	ms=$(grep task-clock "$tmp/stat" | cut -d, -f1)
	n=$(sed -n 's/^sp-record: \([0-9]*\) samples in.*/\1/p' "$tmp/err")
	t=$(sed -n 's/.* \([0-9]*\) truncated stacks.*/\1/p' "$tmp/err")
	echo "$1 $(echo "$ms * 1000 / $n" | bc -l) $ms $n ${t:-0}"
}

if [ "$mode" = build ]; then
	[ $# -ge 5 ] || secs=40
	sh bench/gen-project.sh "$tmp/proj" "$secs" >/dev/null
else
	cc -O2 -g -fno-omit-frame-pointer -pthread -o "$tmp/work" \
		tests/programs/rec_chain.c
fi

# run BUILD: prints "BUILD us_per_sample ms samples [truncated]".
run() {
	if [ "$mode" = build ]; then
		run_build "$1"
		return
	fi
	"$tmp/work" "$((secs + 2))" 1 &
	w=$!
	sleep 0.5
	perf stat -x, -e task-clock -o "$tmp/stat" -- "$1/sp-record" \
		-g "$mode" -d "$secs" -o "$tmp/x.spool" -p "$w" 2>/dev/null
	kill "$w" 2>/dev/null || true
	wait "$w" 2>/dev/null || true
	ms=$(grep task-clock "$tmp/stat" | cut -d, -f1)
	n=$("$1/sp-dump" "$tmp/x.spool" | grep -c '^sample')
	echo "$1 $(echo "$ms * 1000 / $n" | bc -l) $ms $n"
}
i=0
while [ "$i" -lt "$rounds" ]; do
	run "$old"
	run "$new"
	i=$((i + 1))
done >"$tmp/runs"
awk '{ printf "%-28s %7.2f us/sample  (%.1f ms CPU, %d samples%s)\n",
	$1, $2, $3, $4, (NF > 4 ? ", " $5 " truncated" : "") }' "$tmp/runs"
for b in "$old" "$new"; do
	awk -v b="$b" '$1 == b { print $2 }' "$tmp/runs" | sort -n |
		awk -v b="$b" -v m="$mode" '{ v[NR] = $1 }
		END { printf "median %-21s %7.2f us/sample (-g %s, %d runs)\n",
			b, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2,
			m, NR }'
done
