#!/bin/sh
# A library the target has mapped is cut on disk while it is recorded (a
# package upgrade rewriting a file in place): sp-record skips the file
# with a counted warning instead of dying of SIGBUS, finishes the
# recording, prints the summary and writes a readable spool (issue 11
# item 2).
. "$(dirname "$0")/lib.sh"
need_perf
command -v timeout >/dev/null || skip "no timeout(1)"
cc_prog rec_libswap rec_libswap.c -O0 -ldl
cc_prog lib.so rec_intlib.c -O0 -shared -fPIC

# The test's own copy: the program cuts it half-way through the run.
# 3 s of CPU (not wall) time: about 3000 samples however loaded the
# machine; the timeout only guards against a hang.
timeout -k 5 300 "$SP_RECORD" -o "$TMP/x.spool" -- \
	"$TMP/rec_libswap" truncate 3c "$TMP/lib.so" 2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 0 ] || fail "sp-record exited $rc (135: SIGBUS)"
[ "$(wc -c <"$TMP/lib.so")" -lt 16384 ] || fail "the library was not cut"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"
grep -q '^sp-record: wrote ' "$TMP/err" || fail "no summary"
grep -q '^sp-record: 1 module file shrank on disk while mapped: skipped' \
	"$TMP/err" || fail "no warning for the cut library"
grep -q "$(printf '^stats\t.*unwind.changed_files=1')" "$TMP/dump" ||
	fail "the stats record does not count the cut library"
n=$(grep -c '^sample' "$TMP/dump")
[ "$n" -gt 1000 ] || fail "only $n samples: the recording did not finish"
exit 0
