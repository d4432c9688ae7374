#!/bin/sh
# Issue 24: a deep chain of stack nodes, one sample per node, cost sp-dump
# time quadratic in the chain (each new stack walked to its root again)
# and --stacks kept every rendered stack.  Both are linear now: a 20k-node
# chain costs about what 20k one-frame stacks cost, and --stacks keeps
# nothing of what it printed.  CPU time and peak RSS, no wall clock.
. "$(dirname "$0")/lib.sh"

# chain N deep|flat: N module-less user frames and N samples, the stacks
# one chain (deep) or N roots (flat).
chain() {
	python3 - "$1" "$2" <<'PY' | python3 "$TOP/tests/spoolgen.py"
import sys
n, deep = int(sys.argv[1]), sys.argv[2] == "deep"
print("header 0 1000\nthread 0 7 7")
for i in range(n):
    print("frame %d 1 %#x" % (i, 0x400000 + 16 * i))
    print("stack %d %s %d" % (i, i - 1 if deep and i else "-", i))
    print("sample 1 0 %d" % i)
PY
}

# usage ARGS...: prints "CPU_SECONDS MAXRSS_KB" of sp-dump ARGS >/dev/null.
usage() {
	python3 - "$SP_DUMP" "$@" <<'PY'
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
if rc:
    sys.exit("sp-dump exited %d" % rc)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %d" % (u.ru_utime + u.ru_stime, u.ru_maxrss))
PY
}

chain 20000 deep >"$TMP/deep.spool"
chain 20000 flat >"$TMP/flat.spool"
# The output is right: every module-less frame gets its one pframe.
"$SP_DUMP" "$TMP/deep.spool" >"$TMP/deep.txt" || fail "sp-dump deep"
[ "$(grep -c '^pframe' "$TMP/deep.txt")" -eq 20000 ] || fail "pframes"
[ "$(grep -c '^sample' "$TMP/deep.txt")" -eq 20000 ] || fail "samples"

set -- $(usage "$TMP/deep.spool") || fail "deep run"
deep=$1
set -- $(usage "$TMP/flat.spool") || fail "flat run"
flat=$1
echo "CPU seconds: 20k-node chain $deep, 20k one-frame stacks $flat"
# Quadratic, the chain took 2*10^8 steps (minutes); linear, a few times
# the flat spool.  0.5 s of slack for a flat run too short to measure.
python3 -c "import sys; sys.exit(not $deep <= 10 * $flat + 0.5)" ||
	fail "deep chain: $deep s of CPU against $flat s for the flat spool"

# --stacks on a 3k-node chain prints 4.5 million names (about 70 MB):
# they used to stay in memory; now the peak stays near the flat spool's.
chain 3000 deep >"$TMP/deep3k.spool"
chain 3000 flat >"$TMP/flat3k.spool"
set -- $(usage -s "$TMP/deep3k.spool") || fail "deep -s run"
deep_rss=$2
set -- $(usage -s "$TMP/flat3k.spool") || fail "flat -s run"
flat_rss=$2
echo "peak RSS of -s: 3k-node chain $deep_rss KB, flat $flat_rss KB"
[ "$deep_rss" -le $((flat_rss + 20000)) ] ||
	fail "-s on a deep chain peaked at $deep_rss KB (flat: $flat_rss KB)"
# And it prints every frame of every stack, leaf first.
pipeline "$SP_DUMP" -s "$TMP/deep3k.spool" \| awk -F'\t' 'END {
	if (NR != 3000 || NF != 3004 || $5 != "[unknown]" && $5 !~ /0x4/)
		exit 1 }' || fail "-s output: $("$SP_DUMP" -s "$TMP/deep3k.spool" | tail -1 | cut -c1-200)"
exit 0
