#!/bin/sh
# t2004-ptrace-threads.sh: --ptrace follows threads that come and go:
# four waves of eight busy threads, each wave joined before the next.
# Every thread must be sampled (its samples under its own tid), and the
# recording must end normally with the target's exit status.
. "$(dirname "$0")/lib.sh"

"$SP_RECORD" --ptrace -d 0.1 -o "$TMP/probe.spool" -- true 2>"$TMP/err"
case $? in
0) ;;
*) if grep -qi 'ptrace.*\(not permitted\|denied\)' "$TMP/err"; then
	[ "${CI:-}" = true ] && fail "ptrace refused under CI=true"
	skip "ptrace refused: $(head -n 1 "$TMP/err")"
   fi
   fail "sp-record --ptrace failed: $(cat "$TMP/err")" ;;
esac

cc_prog rec_waves rec_waves.c -O1 -pthread
"$SP_RECORD" --ptrace -F 200 -d 20 -o "$TMP/x.spool" -- \
	"$TMP/rec_waves" 4 8 0.4 2>"$TMP/err" ||
	fail "sp-record --ptrace exited $?: $(cat "$TMP/err")"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"
pid=$(awk -F'\t' '$1 == "sample" { print $3; exit }' "$TMP/dump")
# Threads with at least 3 samples, the main thread (which only joins) left
# out: 32 workers.
n=$(awk -F'\t' -v pid="$pid" '$1 == "sample" && $4 != pid { c[$4]++ }
	END { for (t in c) if (c[t] >= 3) n++; print n + 0 }' "$TMP/dump")
[ "$n" -eq 32 ] || fail "$n of 32 threads sampled: $(cat "$TMP/err")"
exits=$(awk -F'\t' '$1 == "exit" && $3 != $4 { n++ } END { print n + 0 }' \
	"$TMP/dump")
[ "$exits" -ge 32 ] || fail "only $exits thread exits recorded"
exit 0
