#!/bin/sh
# Without privileges: attaching to another user's process fails with one
# line naming the cause and the remedy (status 1); kernel stacks that are
# not permitted are dropped with one warning while user stacks are still
# recorded.  Runs as root, dropping to nobody with setpriv.
. "$(dirname "$0")/lib.sh"
need_perf
[ "$(id -u)" -eq 0 ] || skip "needs root to drop privileges"
command -v setpriv >/dev/null || skip "no setpriv"
cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread
chmod 755 "$TMP"
mkdir "$TMP/nobody" && chmod 777 "$TMP/nobody"
asnobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
}
# A copy nobody can reach, wherever the tree is (a home may be 0700).
cp "$SP_RECORD" "$TMP/sp-record" && chmod 755 "$TMP/sp-record" ||
	fail "cannot copy $SP_RECORD"
SP_RECORD=$TMP/sp-record
asnobody "$SP_RECORD" -h >/dev/null 2>&1
[ $? -eq 0 ] || skip "nobody cannot run $SP_RECORD"

"$TMP/rec_chain" 3 &
pid=$!
sleep 0.1
asnobody "$SP_RECORD" -d 1 -p "$pid" -o "$TMP/nobody/x.spool" 2>"$TMP/err"
rc=$?
kill "$pid"
wait "$pid" 2>/dev/null
cat "$TMP/err" >&2
[ $rc -eq 1 ] || fail "attaching to root's process exited $rc, want 1"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "want one line of error"
grep -q "^sp-record: pid '$pid': cannot attach to another user's process; run as root" \
	"$TMP/err" || grep -q "^sp-record: perf_event_open: .*perf_event_paranoid" \
	"$TMP/err" || fail "the error does not name cause and remedy"

# The same with --ptrace.
"$TMP/rec_chain" 3 &
pid=$!
sleep 0.1
asnobody "$SP_RECORD" --ptrace -d 1 -p "$pid" -o "$TMP/nobody/x.spool" \
	2>"$TMP/err"
rc=$?
kill "$pid"
wait "$pid" 2>/dev/null
cat "$TMP/err" >&2
[ $rc -eq 1 ] || fail "--ptrace attaching to root's process exited $rc"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "--ptrace: want one line of error"
grep -q "^sp-record: pid '$pid': ptrace: Operation not permitted.*; run as root or with CAP_SYS_PTRACE$" \
	"$TMP/err" || fail "--ptrace: the error does not name cause and remedy"

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$paranoid" -le 2 ] || skip "perf_event_paranoid=$paranoid: nobody cannot sample"
asnobody "$SP_RECORD" -k -d 5 -o "$TMP/nobody/y.spool" -- \
	"$TMP/rec_chain" 0.5 2>"$TMP/err"
rc=$?
cat "$TMP/err" >&2
[ $rc -eq 7 ] || fail "recording as nobody exited $rc"
if [ "$paranoid" -ge 2 ]; then
	[ "$(grep -c 'kernel stacks are not permitted' "$TMP/err")" -eq 1 ] ||
		fail "no single warning about kernel stacks"
fi
"$SP_DUMP" "$TMP/nobody/y.spool" >"$TMP/dump" || fail "unreadable spool"
[ "$(grep -c '^sample' "$TMP/dump")" -gt 10 ] || fail "no user samples"

# A tracepoint where tracefs is root's: a matter of permission, said in
# one line with exit 1, not a usage error with the synopsis (issue 26).
if [ ! -r /sys/kernel/tracing/events ] ||
	! asnobody test -r /sys/kernel/tracing/events/sched; then
	asnobody "$SP_RECORD" -e sched:sched_switch -o "$TMP/nobody/t" -- true \
		2>"$TMP/err"
	rc=$?
	[ $rc -eq 1 ] || fail "tracefs not readable: exit $rc, want 1"
	one_error sp-record "$TMP/err"
	grep -q "tracefs is not readable" "$TMP/err" ||
		fail "tracefs not readable: $(cat "$TMP/err")"
fi
exit 0
