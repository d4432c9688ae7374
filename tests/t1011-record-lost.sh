#!/bin/sh
# Events the kernel loses are counted and written: a one-page ring cannot
# hold a sample with an 8 KiB stack copy, so every sample is lost; the
# lost records (PERF_RECORD_LOST, then the per-event counters at the end)
# add up to the stats record's count and the summary says it.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread

"$SP_RECORD" -m 1 -g dwarf --stack-size 8192 -o "$TMP/x.spool" -- \
	"$TMP/rec_chain" 0.3 2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 7 ] || fail "exit status $rc"
grep -q 'DWARF unwinding is not available' "$TMP/err" &&
	skip "no DWARF unwinder: samples are small enough to fit"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"
lost=$(awk -F'\t' '$1 == "lost" { n += $3 } END { print n + 0 }' "$TMP/dump")
[ "$lost" -gt 10 ] || fail "only $lost events counted lost"
grep -q "$(printf '^stats\t.*\tlost=%s\t' "$lost")" "$TMP/dump" ||
	fail "the stats record does not count the $lost lost events"
grep -q "lost $lost events" "$TMP/err" || fail "the summary does not say it"
[ "$(grep -c '^sample' "$TMP/dump")" -eq 0 ] || fail "samples fit after all"
exit 0
