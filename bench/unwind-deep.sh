#!/bin/sh
# bench/unwind-deep.sh: what reading past the stack copy costs sp-record
# (issue 28), and what it gains.
#
#   sh bench/unwind-deep.sh [SECONDS]
#
# Records two programs by attaching to them for SECONDS (default 4) at
# 999 Hz with the default 32 KiB stack copy, once with the reads past the
# copy off (--stack-read 0) and once as sp-record runs by default
# (2097152 bytes past the copy at most),
# and prints for each: samples, the share ending in the truncated marker,
# frames per sample, the recorder's own CPU (user + system) per sample
# and per frame, the share of samples whose outer frames came from an
# earlier sample's (deepcache.h) and the KiB read from the process per
# sample:
#   - tests/programs/unw_deep.c: 40 to 400 KiB deep, changing depth;
#   - tests/programs/unw_segs.rs (when rustc is here): the same depths
#     over 128 KiB stack segments, switched to as rustc's stacker does;
#   - tests/programs/unw_chains.c: stacks that fit the copy (the cost the
#     reads add where they are not needed: none).
# docs/bench-truth.md has the figures.
set -eu
cd "$(dirname "$0")/.."
SECS=${1:-4}
SP_RECORD=${SP_RECORD:-build/sp-record}
SP_DUMP=${SP_DUMP:-build/sp-dump}
OUT=$(mktemp -d "${TMPDIR:-/tmp}/sp-bench-deep.XXXXXX")
trap 'rm -rf "$OUT"' EXIT

cc -O2 -g -fomit-frame-pointer -o "$OUT/unw_deep" tests/programs/unw_deep.c
cc -O2 -g -fomit-frame-pointer -fPIC -shared -o "$OUT/libunw_lib.so" \
	tests/programs/unw_lib.c
cc -O2 -g -fomit-frame-pointer -pthread -o "$OUT/unw_chains" \
	tests/programs/unw_chains.c -L"$OUT" -lunw_lib -Wl,-rpath,"$OUT"

# run NAME READ PROGRAM ARGS...: attaches to PROGRAM for $SECS seconds.
run() {
	name=$1 read=$2
	shift 2
	"$@" &
	pid=$!
	sleep 0.3
	/usr/bin/env time -f '%U %S' -o "$OUT/time" "$SP_RECORD" \
		-g dwarf --stack-read "$read" -F 999 -d "$SECS" \
		-o "$OUT/out.spool" -p "$pid" >/dev/null 2>&1 || true
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	"$SP_DUMP" "$OUT/out.spool" >"$OUT/dump"
	n=$(grep -c '^sample' "$OUT/dump" || true)
	stat() {
		grep '^stats' "$OUT/dump" | tr '\t' '\n' |
			awk -F= -v k="$1" '$1 == k { v = $2 } END { print v + 0 }'
	}
	awk -v name="$name" -v read="$read" -v n="$n" \
	    -v t="$(stat truncated_markers)" -v f="$(stat unwind.frames)" \
	    -v k="$(stat unwind_deep.cached)" -v b="$(stat unwind_deep.bytes)" '{
		c = $1 + $2
		printf "%-10s read %-6s %5d samples %6.2f%% truncated " \
		    "%5.1f frames %6.1f us/sample %5.2f us/frame " \
		    "%5.1f%% cached %6.1f KiB\n", name, read,
		    n, n ? 100 * t / n : 0, n ? f / n : 0,
		    n ? c * 1e6 / n : 0, f ? c * 1e6 / f : 0,
		    n ? 100 * k / n : 0, n ? b / n / 1024 : 0 }' "$OUT/time"
}

for read in 0 2097152; do
	run unw_deep "$read" "$OUT/unw_deep" $((SECS * 3))
done
if command -v rustc >/dev/null; then
	rustc -O -g -o "$OUT/unw_segs" tests/programs/unw_segs.rs
	for read in 0 2097152; do
		run unw_segs "$read" "$OUT/unw_segs" $((SECS * 3))
	done
fi
for read in 0 2097152; do
	run unw_chains "$read" "$OUT/unw_chains" $((SECS + 2))
done
