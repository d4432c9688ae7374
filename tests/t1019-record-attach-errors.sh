#!/bin/sh
# What sp-record says when it cannot attach, and what it leaves (issue 11
# item 10): --ptrace -p on a zombie, a kernel thread or (as root) pid 1
# names the real obstacle, not "run as root or with CAP_SYS_PTRACE"; a
# failed attach leaves no empty output file; -F max with --ptrace records
# at ptrace mode's highest rate instead of a usage error.
. "$(dirname "$0")/lib.sh"

# gone FILE: a failed start left no output file behind.
gone() {
	[ ! -e "$1" ] || fail "an empty '$1' was left behind"
}

"$SP_RECORD" -o "$TMP/a.spool" -p 2147483646 2>"$TMP/err"
[ $? -eq 1 ] || fail "attaching to no process did not fail"
gone "$TMP/a.spool"
"$SP_RECORD" -o "$TMP/b.spool" -- sp-no-such-command 2>"$TMP/err"
gone "$TMP/b.spool"

"$SP_RECORD" --ptrace -d 0.1 -o "$TMP/p.spool" -- true 2>/dev/null ||
	skip "ptrace is not allowed here"

# A zombie: a child that exited, its parent (sleep) never reaping it.
sh -c 'sleep 0.1 & exec sleep 30' &
parent=$!
trap 'kill $parent 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.5
zombie=$(cat /proc/$parent/task/*/children | tr -d ' ')
grep -q '^State:[[:space:]]*Z' /proc/$zombie/status || fail "no zombie"
"$SP_RECORD" --ptrace -o "$TMP/z.spool" -p $zombie 2>"$TMP/err"
[ $? -eq 1 ] || fail "attaching to a zombie did not fail"
one_error sp-record "$TMP/err"
grep -q "^sp-record: pid '$zombie' is a zombie" "$TMP/err" ||
	fail "zombie: $(cat "$TMP/err")"
gone "$TMP/z.spool"

kthread=$(awk '$1 == "Name:" && $2 == "kthreadd" { print FILENAME }' \
	/proc/2/status 2>/dev/null)
if [ -n "$kthread" ]; then
	"$SP_RECORD" --ptrace -o "$TMP/k.spool" -p 2 2>"$TMP/err"
	grep -q "^sp-record: pid '2' is a kernel thread" "$TMP/err" ||
		fail "kernel thread: $(cat "$TMP/err")"
fi

# As root (with CAP_SYS_PTRACE), privilege is never the advice.
if [ "$(id -u)" = 0 ]; then
	"$SP_RECORD" --ptrace -d 0.2 -o "$TMP/1.spool" -p 1 2>"$TMP/err"
	! grep -q 'run as root or with CAP_SYS_PTRACE' "$TMP/err" ||
		fail "pid 1 as root: $(cat "$TMP/err")"
fi

cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread
"$SP_RECORD" --ptrace -F max -d 10 -o "$TMP/m.spool" -- \
	"$TMP/rec_chain" 1 2>"$TMP/err"
[ $? -eq 7 ] || fail "-F max --ptrace: $(cat "$TMP/err")"
grep -q '^sp-record: ptrace at 10000 Hz' "$TMP/err" ||
	fail "-F max --ptrace is not 10000 Hz: $(cat "$TMP/err")"
"$SP_DUMP" "$TMP/m.spool" >/dev/null || fail "sp-dump rejected the spool"
exit 0
