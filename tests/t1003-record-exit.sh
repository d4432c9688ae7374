#!/bin/sh
# A process that exits in the middle of a recording is retired (exit record,
# its modules deactivated) while the other keeps being sampled; when every
# recorded process has exited, sp-record stops by itself.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread

"$TMP/rec_chain" 0.7 &
short=$!
"$TMP/rec_chain" 1.8 &
long=$!
sleep 0.1
"$SP_RECORD" -d 1.3 -p "$short,$long" -o "$TMP/x.spool" 2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
wait "$short" "$long"
[ $rc -eq 0 ] || fail "sp-record exited $rc"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"

exit_ts=$(awk -F'\t' -v p="$short" '$1 == "exit" && $3 == p && $4 == p {
	print $2 }' "$TMP/dump")
[ -n "$exit_ts" ] || fail "no exit record for the short process"
grep -qx "$(printf 'deactivate\t%s' "$short")" "$TMP/dump" ||
	fail "the short process's modules were not deactivated"
awk -F'\t' -v s="$short" -v l="$long" -v t="$exit_ts" '
	$1 == "sample" && $3 == s && $2 > t { bad++ }
	$1 == "sample" && $3 == l && $2 > t { after++ }
	$1 == "sample" && $3 == s { ns++ }
	END { printf "short %d, long after exit %d, short after exit %d\n", ns, after, bad > "/dev/stderr"
	      exit !(ns > 5 && after > 10 && !bad) }' "$TMP/dump" ||
	fail "samples do not stop and continue at the right times"
grep -q '2 processes' "$TMP/err" || fail "summary does not count 2 processes"

# Every target gone: the recording ends long before -d.
"$TMP/rec_chain" 0.8 &
pid=$!
sleep 0.1
timeout 20 "$SP_RECORD" -d 60 -p "$pid" -o "$TMP/y.spool" 2>"$TMP/err"
rc=$?
wait "$pid"
cat "$TMP/err" >&2
[ $rc -eq 0 ] || fail "sp-record did not stop when its target exited ($rc)"
"$SP_DUMP" "$TMP/y.spool" >"$TMP/y.dump" || fail "sp-dump exited $?"
grep -q "$(printf '^exit\t.*\t%s\t%s$' "$pid" "$pid")" "$TMP/y.dump" ||
	fail "no exit record"
exit 0
