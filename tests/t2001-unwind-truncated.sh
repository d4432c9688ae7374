#!/bin/sh
# t2001-unwind-truncated.sh: a stack copy too small for unw_chains' 121-deep
# recursion (--stack-size 4096) must end those stacks with the truncated
# marker and count them in the stats record (unwind_error.stack_truncated);
# -g fp writes no unwinder counters.  Reading on from the live stack
# (issue 28, t2008) is turned off: --stack-read 0.
. "$(dirname "$0")/lib.sh"
need_perf

cc -O2 -fomit-frame-pointer -fPIC -shared -o "$TMP/libunw_lib.so" \
	"$PROGRAMS/unw_lib.c" || fail "cannot build unw_lib.c"
cc_prog unw_chains unw_chains.c -O2 -fomit-frame-pointer -pthread \
	-L"$TMP" -lunw_lib -Wl,-rpath,"$TMP"

"$SP_RECORD" -g dwarf --stack-read 0 --stack-size 4096 -d 2 -o "$TMP/small.spool" -- \
	"$TMP/unw_chains" 0.5 2>"$TMP/err" ||
	fail "sp-record exited $?: $(cat "$TMP/err")"
"$SP_DUMP" "$TMP/small.spool" >"$TMP/small" || fail "sp-dump exited $?"
marked=$(awk -F'\t' '
	$1 == "frame" && $3 == "truncated" { t[$2] = 1 }
	$1 == "stack" { prefix[$2] = $3; leaf[$2] = $4 }
	$1 == "sample" {
		for (s = $5; s != "-"; s = prefix[s])
			if (t[leaf[s]]) { n++; break }
	}
	END { print n + 0 }' "$TMP/small")
[ "$marked" -ge 10 ] || fail "only $marked samples end in the truncated marker"
# The marker is the outermost frame: a stack's root frame.
awk -F'\t' '$1 == "frame" && $3 == "truncated" { t[$2] = 1 }
	$1 == "stack" && $4 in t && $3 != "-" { bad++ }
	END { exit bad > 0 }' "$TMP/small" ||
	fail "a truncated marker is not at the root of its stack"
grep '^stats' "$TMP/small" | tr '\t' '\n' |
	grep -q '^unwind_error.stack_truncated=[1-9]' ||
	fail "no unwind_error.stack_truncated counter in the stats record"
grep -q '^sp-record: unwinding errors: .*stack_truncated [1-9]' "$TMP/err" ||
	fail "no unwinding counters in the stderr summary"

"$SP_RECORD" -g fp -d 2 -o "$TMP/fp.spool" -- "$TMP/unw_chains" 0.3 \
	2>"$TMP/err" || fail "sp-record -g fp exited $?: $(cat "$TMP/err")"
"$SP_DUMP" "$TMP/fp.spool" >"$TMP/fp" || fail "sp-dump exited $?"
if grep '^stats' "$TMP/fp" | grep -q 'unwind\.'; then
	fail "-g fp wrote unwinder counters"
fi
exit 0
