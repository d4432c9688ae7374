#!/bin/sh
# bench/fold-perf-script.sh: folds a large `perf script` file (real output
# repeated to SIZE_MB megabytes) with sp-fold --from perf-script and with
# FlameGraph's stackcollapse-perf.pl, checks that both print the same
# lines, and prints times, throughput and the speed ratio.  Reading the
# file with cat is timed too, as the floor.
#
#   STACKCOLLAPSE=/path/to/stackcollapse-perf.pl sh bench/fold-perf-script.sh
#
# Environment: SP_FOLD (default build/sp-fold, from `make`), SIZE_MB
# (default 300), INPUT (a perf script file to repeat; without it a short
# workload is recorded with perf record -g, which needs perf_event_open),
# OPTS (extra options for both folders, e.g. "--pid --kernel"), RUNS
# (sp-fold runs, best taken; default 10), CALL_GRAPH (perf record's
# option; default "--call-graph dwarf", long stacks; "-g" for frame
# pointers).  Nothing is downloaded: without
# STACKCOLLAPSE only sp-fold and cat are timed.
set -eu
SP_FOLD=${SP_FOLD:-build/sp-fold}
SIZE_MB=${SIZE_MB:-300}
RUNS=${RUNS:-10}
CALL_GRAPH=${CALL_GRAPH:---call-graph dwarf}
OPTS=${OPTS:-}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sp-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

[ -x "$SP_FOLD" ] || { echo "no $SP_FOLD: run make first" >&2; exit 2; }

if [ -n "${INPUT:-}" ]; then
	cp "$INPUT" "$TMP/one.txt"
else
	# shellcheck disable=SC2086 # CALL_GRAPH is options on purpose
	perf record -q -F 999 $CALL_GRAPH -o "$TMP/perf.data" -- sh -c '
		tar cf - /usr/include 2>/dev/null | gzip -1 >/dev/null
		find /usr/lib -name "*.so*" 2>/dev/null | head -n 2000 |
			xargs cat 2>/dev/null | md5sum >/dev/null
		python3 -c "import json; [json.dumps(list(range(2000))) for i in range(2000)]" ||
			true' >/dev/null 2>&1
	perf script -i "$TMP/perf.data" >"$TMP/one.txt" 2>/dev/null
fi
[ -s "$TMP/one.txt" ] || { echo "no perf script input" >&2; exit 1; }

# Repeat the sample blocks until the file is SIZE_MB large.
: >"$TMP/big.txt"
want=$((SIZE_MB * 1024 * 1024))
while [ "$(wc -c <"$TMP/big.txt")" -lt "$want" ]; do
	cat "$TMP/one.txt" "$TMP/one.txt" "$TMP/one.txt" "$TMP/one.txt" \
		>>"$TMP/big.txt"
done
bytes=$(wc -c <"$TMP/big.txt")
samples=$(grep -c '^$' "$TMP/big.txt" || true)

# best CMD...: the best wall-clock seconds of RUNS runs, start-up included
# (the best is what other load inflates least), output to $TMP/out.
# Python times the runs: a `date` before and after would add its own
# forks to runs of a few milliseconds.
best() {
	python3 - "$RUNS" "$TMP/out" "$@" <<'PY'
import subprocess, sys, time
runs, out, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
best = None
for _ in range(runs):
    with open(out, "wb") as f:
        t = time.perf_counter()
        subprocess.run(cmd, stdout=f, stderr=subprocess.DEVNULL)
        t = time.perf_counter() - t
    best = t if best is None or t < best else best
print("%.4f" % best)
PY
}
mbps() { echo "scale=1; $bytes / 1048576 / $1" | bc -l; }

cat_s=$(best cat "$TMP/big.txt")
# shellcheck disable=SC2086
sp_s=$(best "$SP_FOLD" --from perf-script $OPTS "$TMP/big.txt")
mv "$TMP/out" "$TMP/sp.folded"
printf 'input      %d MB, %d samples (%s)\n' "$((bytes / 1048576))" "$samples" \
	"${INPUT:-recorded workload}"
echo "times      wall-clock seconds, best of $RUNS (perl: one run)"
printf 'cat        %8.4f s  %8s MB/s\n' "$cat_s" "$(mbps "$cat_s")"
printf 'sp-fold    %8.4f s  %8s MB/s\n' "$sp_s" "$(mbps "$sp_s")"
if [ -z "${STACKCOLLAPSE:-}" ]; then
	echo "stackcollapse-perf.pl: set STACKCOLLAPSE to compare" >&2
	exit 0
fi
# shellcheck disable=SC2086
pl_s=$(RUNS=1 best perl "$STACKCOLLAPSE" $OPTS "$TMP/big.txt")
printf 'stackcollapse-perf.pl %8.3f s  %8s MB/s\n' "$pl_s" "$(mbps "$pl_s")"
printf 'ratio      %.1fx faster than stackcollapse-perf.pl, %.1fx the time of cat\n' \
	"$(echo "$pl_s / $sp_s" | bc -l)" "$(echo "$sp_s / $cat_s" | bc -l)"
if cmp -s "$TMP/out" "$TMP/sp.folded"; then
	echo "outputs   identical ($(wc -l <"$TMP/sp.folded") lines)"
else
	echo "outputs   DIFFER" >&2
	diff "$TMP/out" "$TMP/sp.folded" | head -n 10 >&2
	exit 1
fi
