#!/bin/sh
# sp-record -p PID: attaching to a running two-thread program records all
# of its threads, including two started after the attach, names them, and
# takes the program's modules from /proc/PID/maps.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread

# main + 1 worker from the start, 2 "late" threads from 0.8 s, each
# spinning 0.5 s of its own CPU time (however loaded the machine is),
# recorded until the process exits.
"$TMP/rec_chain" 0.5c 1 2 0.8 &
pid=$!
sleep 0.2
"$SP_RECORD" -p "$pid" >"$TMP/x.spool" 2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
wait "$pid"
prc=$?
[ $rc -eq 0 ] || fail "sp-record exited $rc"
[ $prc -eq 7 ] || fail "the target exited $prc: was it disturbed?"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "sp-dump rejected the spool"

awk -F'\t' -v p="$TMP/rec_chain" -v pid="$pid" '
	$1 == "module" && $9 == p && $3 == pid { n++ }
	END { exit n ? 0 : 1 }' "$TMP/dump" ||
	fail "no module record for the program from its maps"

awk -F'\t' '$1 == "sample" { n[$3 " " $4]++ }
	END { for (k in n) print k, n[k] }' "$TMP/dump" | sort >"$TMP/threads"
cat "$TMP/threads" >&2
[ "$(wc -l <"$TMP/threads")" -eq 4 ] ||
	fail "want samples of 4 threads (2 started after the attach)"
awk -v pid="$pid" '$1 != pid || $3 < 5 { bad = 1 } END { exit bad }' \
	"$TMP/threads" || fail "a thread has too few samples or a wrong pid"

# Names: the existing threads from /proc, the late ones from the kernel.
grep -q "$(printf '^comm\t.*\t%s\t%s\tname\trec_chain$' "$pid" "$pid")" \
	"$TMP/dump" || fail "the main thread is not named"
[ "$(grep -c "$(printf '^comm\t.*\t%s\t.*\tname\tlate$' "$pid")" \
	"$TMP/dump")" -eq 2 ] || fail "want the two late threads named"

# The late threads' samples sit under late_main.
nm -n --defined-only "$TMP/rec_chain" |
	awk -f "$PROGRAMS/rec_stacks.awk" -v prog="$TMP/rec_chain" - \
	"$TMP/dump" >"$TMP/stacks"
awk '$3 ~ /late_main;run;chain_a;chain_b;chain_c;spin$/ { t[$2]++ }
	END { for (k in t) if (t[k] > 3) n++; exit n != 2 }' "$TMP/stacks" ||
	fail "no full late_main stacks on two threads"
exit 0
