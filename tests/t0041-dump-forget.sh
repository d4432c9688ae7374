#!/bin/sh
# Issue 24: a long-running pipeline needs a way to forget.  A forget
# record retires a process's threads, modules, frames and stacks; sp-dump
# prints it, refuses later references to what it retired, writes the
# pframes of a new process with the same pid again, and its peak RSS
# stays flat however many processes came and went.
. "$(dirname "$0")/lib.sh"

gen() { python3 "$TOP/tests/spoolgen.py"; }

# churn N: N processes, each with its module, frames, stacks, thread
# and samples, then forgotten; pids come back.  Their stacks grow from a
# kernel frame's node, shared, written once.  (Module-less frames are
# shared too, and stay: they are left out here.)
churn() {
	python3 - "$1" <<'PY' | gen
import sys
n = int(sys.argv[1])
print("header 0 1000")
print("module 0 -1 0xffffffff81000000 0xffffffff82000000 0 0 1 [kernel]")
print("frame 0 0 0x1234\nstack 0 - 0")
for i in range(n):
    pid, m, f, s = 1000 + i % 997, i + 1, 2 * i + 1, 2 * i + 1
    print("module %d %d 0x400000 0x480000 0 %d 0 /usr/lib/p%d.so" % (m, pid, i, i))
    print("frame %d %d 0x100\nframe %d %d 0x200" % (f, m << 1, f + 1, m << 1))
    print("stack %d 0 %d\nstack %d %d %d" % (s, f, s + 1, s, f + 1))
    print("thread %d %d %d" % (i, pid, pid))
    print("sample 10 %d %d\nsample 10 %d %d" % (i, s, i, s + 1))
    print("forget %d" % pid)
PY
}

# The records: a forget after the process, pframes again for its
# successor with the same pid.
cat >"$TMP/two.txt" <<'G'
header 0 1000
module 0 7 0x1000 0x2000 0 1 0 /a
frame 0 1 0x1010
stack 0 - 0
thread 0 7 7
sample 1 0 0
forget 7
module 1 7 0x1000 0x2000 0 2 0 /b
thread 1 7 7
sample 1 1 0
G
gen <"$TMP/two.txt" >"$TMP/two.spool"
"$SP_DUMP" "$TMP/two.spool" >"$TMP/two.out" || fail "sp-dump two"
cat >"$TMP/two.exp" <<'G'
spool	1	0	1000
module	0	7	0x1000	0x2000	0x0	1	user	/a
frame	0	user	0x1010	-	-
stack	0	-	0
thread	0	7	7
pframe	0	7	0	0x10
sample	1	7	7	0
forget	7
module	1	7	0x1000	0x2000	0x0	2	user	/b
thread	1	7	7
pframe	0	7	-	-
sample	2	7	7	0
G
diff -u "$TMP/two.exp" "$TMP/two.out" || fail "records of a forgotten pid"

# A reference to what was forgotten is refused, with its byte offset.
{ cat "$TMP/two.txt"; echo "sample 1 0 0"; } | gen >"$TMP/bad.spool"
size=$(wc -c <"$TMP/two.spool")
"$SP_DUMP" "$TMP/bad.spool" >/dev/null 2>"$TMP/err" && fail "accepted"
echo "sp-dump: '$TMP/bad.spool': sample thread references forgotten id 0 at byte $size" >"$TMP/err.exp"
diff -u "$TMP/err.exp" "$TMP/err" || fail "message"
{ cat "$TMP/two.txt"; echo "forget -7"; } | gen >"$TMP/neg.spool"
"$SP_DUMP" "$TMP/neg.spool" >/dev/null 2>"$TMP/err" && fail "forget -7"
grep -q "extension record 25: negative process id at byte $size" "$TMP/err" ||
	fail "forget -7: $(cat "$TMP/err")"

# usage ARGS...: prints the peak RSS in KB of sp-dump ARGS >/dev/null.
usage() {
	python3 - "$SP_DUMP" "$@" <<'PY'
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
if rc:
    sys.exit("sp-dump exited %d" % rc)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}

churn 2000 >"$TMP/2k.spool"
churn 20000 >"$TMP/20k.spool"
"$SP_DUMP" "$TMP/20k.spool" >"$TMP/20k.out" || fail "sp-dump 20k"
[ "$(grep -c '^forget' "$TMP/20k.out")" -eq 20000 ] || fail "forgets"
[ "$(grep -c '^sample' "$TMP/20k.out")" -eq 40000 ] || fail "samples"
# The sanitizers' quarantine would hold what was freed: none here.
ASAN_OPTIONS=$ASAN_OPTIONS:quarantine_size_mb=0
small=$(usage "$TMP/2k.spool") || fail "2k run"
big=$(usage "$TMP/20k.spool") || fail "20k run"
echo "peak RSS: 2k processes $small KB, 20k processes $big KB"
# Without forgetting, 18k more processes kept 18k modules and paths,
# 36k frames and 36k stacks: about 10 MB more.  Flat now.
[ "$big" -le $((small + 2000)) ] ||
	fail "peak RSS grew from $small KB to $big KB over 18k more processes"
exit 0
