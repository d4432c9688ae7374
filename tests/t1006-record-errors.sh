#!/bin/sh
# sp-record's errors: usage mistakes exit 2, naming the value and what is
# wrong with it; a command that cannot run, a pid that does not exist, a
# full disk and a closed pipe each give one clear line and their exit
# status; a signal stops a recording cleanly
# with a readable spool.
. "$(dirname "$0")/lib.sh"

expect() {	# STATUS PATTERN CMD...: runs CMD, checks status and stderr
	_st=$1 _pat=$2
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	_rc=$?
	[ $_rc -eq "$_st" ] || { cat "$TMP/err" >&2; fail "'$*' exited $_rc, want $_st"; }
	grep -q "$_pat" "$TMP/err" || { cat "$TMP/err" >&2; fail "'$*': no '$_pat' on stderr"; }
}

# one_line STATUS LINE CMD...: CMD fails with STATUS and exactly LINE (a
# grep pattern) on stderr: no notice before the error.
one_line() {
	expect "$@"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] ||
		{ cat "$TMP/err" >&2; fail "'$*': more than one line"; }
}

expect 2 '^usage: sp-record' "$SP_RECORD"
expect 2 '^usage: sp-record' "$SP_RECORD" -p 1 -- true
expect 2 "invalid frequency 'x'" "$SP_RECORD" -F x -- true
expect 2 "invalid duration '-1'" "$SP_RECORD" -d -1 -- true
expect 2 "unknown event 'bogus'" "$SP_RECORD" -e bogus -- true
expect 2 "invalid pid 'abc'" "$SP_RECORD" -p abc
expect 2 "invalid call graph 'lbr'" "$SP_RECORD" -g lbr -- true
expect 1 "^sp-record: '$TMP/no/such': " "$SP_RECORD" -o "$TMP/no/such" -- true
# Usage errors: the value quoted and what is wrong with it, then usage.
expect 2 "^sp-record: invalid frequency '0': not a whole number from 1 to " \
	"$SP_RECORD" -F 0 -- true
expect 2 "^sp-record: invalid stack size '12345': not a multiple of 8$" \
	"$SP_RECORD" --stack-size 12345 -- true
expect 2 "^sp-record: invalid stack size '100000': above the kernel's limit of 65528 bytes$" \
	"$SP_RECORD" --stack-size 100000 -- true
expect 2 "^sp-record: invalid stack size '0': not a multiple of 8 from 8 to 65528$" \
	"$SP_RECORD" --stack-size 0 -- true
expect 2 "^sp-record: invalid --stack-read '65M': a size from 0 to 64M, with K, M or G$" \
	"$SP_RECORD" --stack-read 65M -- true
expect 2 "^sp-record: invalid --stack-read 'lots': a size from 0 to 64M" \
	"$SP_RECORD" --stack-read lots -- true
expect 2 "^sp-record: invalid frequency '20000' for --ptrace: at most 10000" \
	"$SP_RECORD" --ptrace -F 20000 -o "$TMP/x.spool" -- true
# --ptrace says the same as perf events (where ptrace is allowed).
if "$SP_RECORD" --ptrace -d 0.1 -o "$TMP/x.spool" -- true 2>/dev/null; then
	one_line 1 "^sp-record: pid '2147483646': no such process$" \
		"$SP_RECORD" --ptrace -o "$TMP/x.spool" -p 2147483646
	one_line 127 "^sp-record: 'sp-no-such-command': command not found$" \
		"$SP_RECORD" --ptrace -o "$TMP/x.spool" -- sp-no-such-command
fi

# A terminal is refused (script(1) gives the command one).
if command -v script >/dev/null; then
	script -qec "$SP_RECORD -- true; echo rc=\$?" /dev/null \
		>"$TMP/tty" 2>&1 </dev/null
	grep -q 'refusing to write a binary spool to a terminal' "$TMP/tty" ||
		{ cat "$TMP/tty" >&2; fail "a terminal was not refused"; }
	grep -q 'rc=2' "$TMP/tty" || fail "refusing a terminal is not status 2"
fi

need_perf
cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread

one_line 127 "^sp-record: '$TMP/nonexistent': No such file or directory$" \
	"$SP_RECORD" -o "$TMP/x.spool" -- "$TMP/nonexistent"
one_line 127 "^sp-record: 'sp-no-such-command': command not found$" \
	"$SP_RECORD" -o "$TMP/x.spool" -- sp-no-such-command
one_line 126 "^sp-record: '$TMP': Permission denied$" \
	"$SP_RECORD" -o "$TMP/x.spool" -- "$TMP"
one_line 1 "^sp-record: pid '2147483646': no such process$" \
	"$SP_RECORD" -o "$TMP/x.spool" -p 2147483646
expect 1 "^sp-record: '/dev/full': .*No space left on device" \
	"$SP_RECORD" -o /dev/full -d 2 -- "$TMP/rec_chain" 2

# A reader that goes away (head, the live view's q) chose to stop: the
# recording stops with status 0 and one line saying so, no "Broken pipe",
# and the launched command is not left running.
( "$SP_RECORD" -d 5 -- "$TMP/rec_chain" 5 2>"$TMP/err"; echo $? >"$TMP/rc" ) |
	head -c 64 >/dev/null
[ "$(cat "$TMP/rc")" = 0 ] || { cat "$TMP/err" >&2; fail "EPIPE gave status $(cat "$TMP/rc")"; }
grep -q "the output's reader went away after [0-9]* bytes; recording stopped" \
	"$TMP/err" || fail "the reader's going not reported: $(cat "$TMP/err")"
grep -q 'Broken pipe' "$TMP/err" && fail "EPIPE reported as an error: $(cat "$TMP/err")"
sleep 0.2
if command -v pgrep >/dev/null && pgrep -f "$TMP/rec_chain" >/dev/null; then
	pkill -f "$TMP/rec_chain"
	fail "the launched command survived the write error"
fi

# SIGTERM: events drained, spool complete (ends with the stats record).
"$SP_RECORD" -o "$TMP/x.spool" -- "$TMP/rec_chain" 10 2>"$TMP/err" &
rec=$!
# Flushed as it goes: samples are in the file while the recorder runs
# (looked for every 0.2 s while the 10 s command runs, so a loaded
# machine that is slow to give the target its CPU is waited for).
i=0
while :; do
	sleep 0.2
	cp "$TMP/x.spool" "$TMP/partial.spool"
	"$SP_DUMP" "$TMP/partial.spool" >"$TMP/partial.dump" 2>/dev/null
	grep -q '^sample' "$TMP/partial.dump" && break
	i=$((i + 1))
	[ $i -lt 40 ] && kill -0 $rec 2>/dev/null ||
		fail "no samples in the spool while recording"
done
kill -0 $rec 2>/dev/null || fail "the recorder ended before its samples showed"
kill -TERM "$rec"
wait "$rec"
rc=$?
[ $rc -eq 143 ] || fail "SIGTERM gave status $rc, want 143"
grep -q 'stopped by signal 15' "$TMP/err" || fail "no note about the signal"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "the spool is not readable"
tail -n 1 "$TMP/dump" | field 1 | grep -qx stats || fail "no closing stats"
grep -q '^sample' "$TMP/dump" || fail "no samples before the signal"
exit 0
