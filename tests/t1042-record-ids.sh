#!/bin/sh
# -p and -t name each process or thread once however often they are
# given: `-t T` 20,000 times opened 20,000 sets of events on one thread
# until the descriptors ran out and said "no such thread"; `-p P` 2,000
# times (or P and one of its threads) named P's threads 2,000 times.
# Running out of descriptors says so, with the count needed (issue 24
# item 17).
. "$(dirname "$0")/lib.sh"
need_perf
T='	'
cc_prog rec_idlers rec_idlers.c -O0 -pthread
# wait_tasks PID N: until PID has N threads (ten seconds at most).
wait_tasks() {
	_i=0
	while [ "$(ls /proc/$1/task 2>/dev/null | wc -l)" -lt "$2" ]; do
		_i=$((_i + 1))
		[ $_i -lt 100 ] || fail "rec_idlers did not start its threads"
		sleep 0.1
	done
}
"$TMP/rec_idlers" 120 5 sleep &
idlers=$!
trap 'kill $idlers 2>/dev/null; rm -rf "$TMP"' EXIT
wait_tasks "$idlers" 6
tid=$(ls /proc/$idlers/task | grep -vx "$idlers" | head -n 1)

# comms SPOOL: its comm records.
comms() {
	"$SP_DUMP" "$1" | grep -c '^comm'
}

# -t: one thread named 20,000 times (in four arguments, each under the
# kernel's 128 KiB per argument).
list=$(awk -v t="$tid" 'BEGIN { for (i = 1; i < 5000; i++) printf "%s,", t
	print t }')
"$SP_RECORD" -t "$list" -t "$list" -t "$list" -t "$list" -d 0.2 \
	-o "$TMP/t.spool" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] || fail "-t the same thread 20,000 times: exit $rc: $(cat "$TMP/err")"
n=$(comms "$TMP/t.spool")
[ "$n" -eq 6 ] || fail "-t: $n comm records for 6 threads"

# -p: one process named 2,000 times, and by one of its threads.
list=$(awk -v p="$idlers" 'BEGIN { for (i = 1; i < 2000; i++) printf "%s,", p
	print p }')
for args in "-p $list" "-p $idlers,$tid"; do
	# shellcheck disable=SC2086
	"$SP_RECORD" $args -d 0.2 -o "$TMP/p.spool" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 0 ] || fail "-p ${args#-p }: exit $rc: $(cat "$TMP/err")"
	n=$(comms "$TMP/p.spool")
	[ "$n" -eq 6 ] || fail "-p ${args%%,*},...: $n comm records for 6 threads"
done
kill $idlers

# Out of descriptors: 301 threads need 602 or more (one per CPU and
# event), under a limit of 256 that sp-record cannot raise.
"$TMP/rec_idlers" 120 300 sleep &
idlers=$!
wait_tasks "$idlers" 301
# -p "$(pidof app)" with two matches: pidof separates them with a space
# (issue 26); nothing found is said so.
sleep 30 &
other=$!
"$SP_RECORD" -p "$idlers $other" -d 0.2 -o "$TMP/two.spool" 2>"$TMP/err" ||
	fail "-p 'A B': exit $?: $(cat "$TMP/err")"
"$SP_DUMP" "$TMP/two.spool" >"$TMP/two.dump" || fail "sp-dump: exit $?"
for p in "$idlers" "$other"; do
	grep -q "^comm${T}[0-9]*${T}$p${T}" "$TMP/two.dump" ||
		fail "-p 'A B': no comm record of $p"
done
kill "$other"
"$SP_RECORD" -p "" -d 0.2 -o "$TMP/none.spool" 2>"$TMP/err"
[ $? -eq 2 ] || fail "-p '': exit status"
grep -q "no pid in it (did pidof or pgrep find nothing?)" "$TMP/err" ||
	fail "-p '': $(cat "$TMP/err")"

list=$(ls /proc/$idlers/task | paste -sd, -)
ncpus=$(getconf _NPROCESSORS_ONLN)
(
	ulimit -n 256 || exit 99
	exec "$SP_RECORD" -t "$list" -d 0.2 -o "$TMP/m.spool"
) 2>"$TMP/err"
rc=$?
[ $rc -ne 99 ] || skip "cannot lower the open file limit"
[ $rc -eq 1 ] || fail "out of descriptors: exit $rc: $(cat "$TMP/err")"
grep -qx "sp-record: too many open files: 301 threads need $((301 * ncpus)) descriptors (one per CPU and event); raise ulimit -n (now 256)" \
	"$TMP/err" || fail "out of descriptors: $(cat "$TMP/err")"
exit 0
