#!/bin/sh
# A stop request ends sp-record whatever it is doing: here it is blocked
# writing to a pipe whose reader never reads.  SIGINT ends it within the
# grace of a few seconds with a one-line notice, and the launched command
# ends with it, even stopped (issue 11 item 3: a blocked recorder ignored
# -d, SIGINT and SIGTERM; a stopped command kept its SIGTERM pending).
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread
mkfifo "$TMP/pipe" || skip "cannot make a FIFO in $TMP"

sleep 120 <"$TMP/pipe" &
reader=$!
"$SP_RECORD" -F 10000 -- "$TMP/rec_chain" 60 0 >"$TMP/pipe" 2>"$TMP/err" &
rec=$!
trap 'kill -9 $rec $reader 2>/dev/null; rm -rf "$TMP"' EXIT
i=0
until grep -q pipe "/proc/$rec/wchan" 2>/dev/null || [ $i -ge 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
grep -q pipe "/proc/$rec/wchan" ||
	skip "sp-record never blocked on the full pipe"
cmd=$(cat /proc/$rec/task/*/children | tr -d ' ')
[ -n "$cmd" ] || fail "no launched command"
# The pipe is full: the command need not spin through the grace (it is
# stopped, and SIGKILL, the recorder's last word, ends a stopped process).
kill -STOP "$cmd"
kill -INT $rec
i=0
while kill -0 $rec 2>/dev/null && [ $i -lt 150 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -0 $rec 2>/dev/null && fail "sp-record still runs 15 s after SIGINT"
grep -q '^sp-record: did not stop in time ([a-z ]*): ending at once$' "$TMP/err" ||
	fail "no notice: $(cat "$TMP/err")"
# Ended: gone, or a zombie its new parent has not reaped yet.
sleep 0.5
grep -q '^State:[[:space:]]*[RSDT]' /proc/$cmd/status 2>/dev/null &&
	fail "the launched command still runs"
exit 0
