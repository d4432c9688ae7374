#!/bin/sh
# A recording that fills its disk ends on a record boundary: sp-record
# says what failed, exits 1, cuts the spool back to its last whole record
# and says how much it kept; sp-dump reads what was written and exits 0
# (issue 11 item 10).  The full disk is a 64 KiB tmpfs (root only).
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread
full_disk "$TMP/full"

"$SP_RECORD" -F 5000 -o "$TMP/full/x.spool" -- "$TMP/rec_chain" 20 1 \
	2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 1 ] || fail "sp-record exited $rc, want 1"
grep -q "^sp-record: '$TMP/full/x.spool': write: No space left on device$" \
	"$TMP/err" || fail "the write error is not said"
"$SP_DUMP" "$TMP/full/x.spool" >"$TMP/dump" 2>"$TMP/dump.err" ||
	fail "the spool ends inside a record: $(cat "$TMP/dump.err")"
grep -q "^sp-record: kept [0-9]* bytes of '$TMP/full/x.spool', up to the last whole record" \
	"$TMP/err" || fail "the summary does not say what was kept"
n=$(grep -c '^sample' "$TMP/dump")
[ "$n" -gt 1000 ] || fail "only $n samples kept"
exit 0
