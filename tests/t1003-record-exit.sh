#!/bin/sh
# A process that exits in the middle of a recording is retired (exit record,
# its modules deactivated) while the other keeps being sampled; when every
# recorded process has exited, sp-record stops by itself.  The targets run
# until killed, and each step waits for samples in the growing spool, so a
# slow attach on a loaded machine cannot race a target's end.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread

"$TMP/rec_chain" 600c &
short=$!
"$TMP/rec_chain" 600c &
long=$!
trap 'kill $short $long 2>/dev/null; rm -rf "$TMP"' EXIT
"$SP_RECORD" -p "$short,$long" -o "$TMP/x.spool" 2>"$TMP/err" &
rec=$!
wait_samples "$TMP/x.spool" "$short" 20
kill "$short"
wait "$short"
# The exit record comes once the kernel reports it; then the long one
# goes on being sampled.
i=0
until exit_ts=$("$SP_DUMP" "$TMP/x.spool" 2>/dev/null | awk -F'\t' -v p="$short" \
	'$1 == "exit" && $3 == p && $4 == p { print $2; exit }') && [ -n "$exit_ts" ]; do
	i=$((i + 1))
	[ $i -lt 1500 ] || fail "no exit record for the short process"
	sleep 0.2
done
wait_samples "$TMP/x.spool" "$long" 20 "$exit_ts"
kill "$long"
wait "$long"
# Every target gone: the recording ends by itself.
i=0
while kill -0 "$rec" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 600 ] || { kill "$rec"; fail "sp-record went on with no target"; }
	sleep 0.2
done
wait "$rec"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 0 ] || fail "sp-record exited $rc when its targets were gone"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"
grep -qx "$(printf 'deactivate\t%s' "$short")" "$TMP/dump" ||
	fail "the short process's modules were not deactivated"
awk -F'\t' -v s="$short" -v l="$long" -v t="$exit_ts" '
	$1 == "sample" && $3 == s && $2 > t { bad++ }
	$1 == "sample" && $3 == l && $2 > t { after++ }
	$1 == "sample" && $3 == s { ns++ }
	END { printf "short %d, long after exit %d, short after exit %d\n", ns, after, bad > "/dev/stderr"
	      exit !(ns >= 20 && after >= 20 && !bad) }' "$TMP/dump" ||
	fail "samples do not stop and continue at the right times"
grep -q '2 processes' "$TMP/err" || fail "summary does not count 2 processes"
exit 0
