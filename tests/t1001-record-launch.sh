#!/bin/sh
# sp-record -- COMMAND: a three-thread program with known call chains is
# recorded from its first instruction; its exit status becomes ours, every
# thread is sampled with the right pid and tid, stacks resolve against the
# program's module, and thread names arrive as comm records.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread

"$SP_RECORD" -F 999 -d 10 -o "$TMP/x.spool" -- "$TMP/rec_chain" 1 2 \
	2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 7 ] || fail "exit status $rc, want the command's 7"
grep -q 'samples in' "$TMP/err" || fail "no summary on stderr"
# Without hardware cycles (a VM), the fall back to cpu-clock is said once
# in the summary, not as a warning on every run (issue 26).
grep -q 'not supported here' "$TMP/err" && fail "a warning for the fall back"
if grep -q '^sp-record: cpu-clock at' "$TMP/err"; then
	grep -q '^sp-record: cpu-clock at 999 Hz (no hardware cycles here)' \
		"$TMP/err" || fail "the summary does not say why cpu-clock"
fi
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"

# The first records: spool header, host, then the exec of the command.
head -n 1 "$TMP/dump" | field 1 | grep -qx spool || fail "no spool line"
sed -n 2p "$TMP/dump" | field 1 | grep -qx host || fail "host is not first"
grep -q "$(printf '^host\t.*clock=monotonic')" "$TMP/dump" ||
	fail "host record lacks the clock"

pid=$(awk -F'\t' '$1 == "exec" { print $3; exit }' "$TMP/dump")
[ -n "$pid" ] || fail "no exec record"
awk -F'\t' -v p="$TMP/rec_chain" -v pid="$pid" '
	$1 == "module" && $9 == p && $3 == pid { n++ }
	END { exit n ? 0 : 1 }' "$TMP/dump" ||
	fail "no module record for the program"

# The program's build id follows its module record.
want=$(readelf -n "$TMP/rec_chain" 2>/dev/null | awk '/Build ID/ { print $3 }')
if [ -n "$want" ]; then
	awk -F'\t' -v p="$TMP/rec_chain" -v id="$want" '
		$1 == "module" && $9 == p { m[$2] = 1 }
		$1 == "buildid" && ($2 in m) && $3 == id { ok = 1 }
		END { exit !ok }' "$TMP/dump" || fail "no build id $want"
fi

# Three threads of one process, each busy for about a second.
awk -F'\t' '$1 == "sample" { n[$3 " " $4]++ }
	END { for (k in n) print k, n[k] }' "$TMP/dump" | sort >"$TMP/threads"
cat "$TMP/threads" >&2
[ "$(wc -l <"$TMP/threads")" -eq 3 ] || fail "want samples of 3 threads"
awk -v pid="$pid" '$1 != pid || $3 < 10 { bad = 1 } END { exit bad }' \
	"$TMP/threads" || fail "a thread has too few samples or a wrong pid"
[ "$(grep -c "$(printf '^comm\t.*\tname\tworker$')" "$TMP/dump")" -eq 2 ] ||
	fail "want two comm records naming the workers"
grep -q "$(printf '^comm\t.*\t%s\t%s\texec\trec_chain$' "$pid" "$pid")" \
	"$TMP/dump" || fail "no exec comm record for the command"

# Stacks ending in spin() hold the whole chain down from the thread's root.
nm -n --defined-only "$TMP/rec_chain" |
	awk -f "$PROGRAMS/rec_stacks.awk" -v prog="$TMP/rec_chain" - \
	"$TMP/dump" >"$TMP/stacks"
awk '$3 ~ /;spin$/ { n++
	if ($3 ~ /;(main|worker_main);run;chain_a;chain_b;chain_c;spin$/) ok++ }
	END { printf "%d of %d spin stacks complete\n", ok, n > "/dev/stderr"
	      exit !(n > 30 && ok >= 0.9 * n) }' "$TMP/stacks" ||
	fail "call chains are not resolved to the program's functions"

# The stats record closes the spool and agrees with the samples.
total=$(grep -c '^sample' "$TMP/dump")
tail -n 1 "$TMP/dump" | grep -q "$(printf '^stats\t.*samples=%s\t' "$total")" ||
	fail "last record is not stats with samples=$total"
exit 0
