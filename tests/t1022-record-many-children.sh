#!/bin/sh
# sp-record -f keeps only what live processes need: a thousand short-lived
# children must not grow its memory (issue 11: 3-4 KB per child that ever
# lived, 9 MB to 49 MB over 13,588 children).  The command reads the
# recorder's resident size itself, after 1,000 children and after 2,000:
# by the first reading the spool writer's tables have reached the size
# they are pruned at (8,192 entries; each child adds eight modules and
# the frames of its samples), so what grows after it is what children
# leave behind.
. "$(dirname "$0")/lib.sh"
need_perf
# Freed memory must be reusable for the resident size to mean anything:
# no ASan quarantine here.  Stack copies of 4 KiB (/bin/true's stacks are
# shallow): the samples waiting in the recorder's queue, more of them the
# more it lags on a loaded machine, then weigh 4 KiB each, not 32 (with
# 32, a suite run three tests at a time once left 3.4 MB of queue at the
# late reading).
export ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=0"

cat >"$TMP/churn.sh" <<'SH'
rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$PPID/status"; }
i=0
while [ $i -lt 2000 ]; do
	/bin/true
	i=$((i + 1))
	[ $i -eq 1000 ] && sleep 0.3 && rss >"$1/rss.early"
done
sleep 0.3
rss >"$1/rss.late"
SH
"$SP_RECORD" -q -f --stack-size 4096 -o "$TMP/x.spool" -- sh "$TMP/churn.sh" "$TMP" \
	2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 0 ] || fail "sp-record exited $rc"
early=$(cat "$TMP/rss.early") late=$(cat "$TMP/rss.late")
echo "recorder RSS: $early KB after 1000 children, $late KB after 2000" >&2
[ -n "$early" ] && [ -n "$late" ] || fail "no resident size read"
# Under ASan the old table grew 6.4 MB over 1,200 children (5.3 MB over
# these 1,000) and the new one 0.2-0.8 MB over 1,500 (allocator caches).
[ $((late - early)) -lt 2560 ] ||
	fail "memory grew by $((late - early)) KB over 1000 exited children"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"
n=$(grep -c '^exit' "$TMP/dump")
[ "$n" -ge 2000 ] || fail "only $n exit records for 2000 children"
exit 0
