#!/bin/sh
# A Python started with -X perf (launched) or PYTHONPERFSUPPORT=1
# (attached) gets the Python runtime marker: an exec record flagged
# "python" once its interpreter is mapped; a plain Python does not.
. "$(dirname "$0")/lib.sh"
need_perf
command -v python3 >/dev/null || skip "no python3"
# The interpreter itself, not a wrapper script (pyenv shims are).
py=$(python3 -c 'import sys; print(sys.executable)') || skip "python3 fails"
loop='import time
end = time.monotonic() + float(__import__("sys").argv[1])
while time.monotonic() < end:
    sum(range(1000))'

"$SP_RECORD" -d 10 -o "$TMP/x.spool" -- "$py" -X perf -c "$loop" 0.5 \
	2>"$TMP/err" || { cat "$TMP/err" >&2; fail "recording python failed"; }
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"
pid=$(awk -F'\t' '$1 == "exec" { print $3; exit }' "$TMP/dump")
grep -q "$(printf '^exec\t[0-9]*\t%s\tpython$' "$pid")" "$TMP/dump" ||
	fail "no Python runtime marker for python3 -X perf"

# Attached once it runs, and kept running until the recorder is done,
# however slowly a loaded machine starts it.
until_told='import os, sys, time
open(sys.argv[1], "w").close()
end = time.monotonic() + 60
while not os.path.exists(sys.argv[2]) and time.monotonic() < end:
    sum(range(1000))'
PYTHONPERFSUPPORT=1 "$py" -c "$until_told" "$TMP/ready" "$TMP/done" &
ppid=$!
wait_for_file "$TMP/ready" || fail "python did not start"
"$SP_RECORD" -d 0.4 -p "$ppid" -o "$TMP/y.spool" 2>"$TMP/err"
rc=$?
: >"$TMP/done"
wait "$ppid"
[ $rc -eq 0 ] || { cat "$TMP/err" >&2; fail "attaching to python failed"; }
"$SP_DUMP" "$TMP/y.spool" >"$TMP/y.dump" || fail "sp-dump exited $?"
grep -q "$(printf '^exec\t[0-9]*\t%s\tpython$' "$ppid")" "$TMP/y.dump" ||
	fail "no Python runtime marker for PYTHONPERFSUPPORT=1"

"$SP_RECORD" -d 10 -o "$TMP/z.spool" -- "$py" -c "$loop" 0.2 \
	2>"$TMP/err" || fail "recording plain python failed"
"$SP_DUMP" "$TMP/z.spool" >"$TMP/z.dump" || fail "sp-dump exited $?"
grep -q "$(printf '^exec\t.*\tpython$')" "$TMP/z.dump" &&
	fail "a Python runtime marker without perf support"
exit 0
