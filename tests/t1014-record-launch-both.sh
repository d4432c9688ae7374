#!/bin/sh
# t1014-record-launch-both.sh: perf and --ptrace modes start a command the
# same way: with the spool on stdout, the command's output goes to stderr
# and never into the spool, and the command runs with the signals ignored
# and blocked that it has when run without sp-record (which itself
# ignores SIGPIPE and handles others).
. "$(dirname "$0")/lib.sh"

cmd='echo hi-from-command; grep -E "^Sig(Ign|Blk)" /proc/self/status'
sh -c "$cmd" >"$TMP/plain" 2>&1
for mode in perf ptrace; do
	if [ $mode = perf ]; then
		need_perf
		set --
	else
		set -- --ptrace
	fi
	"$SP_RECORD" "$@" -- sh -c "$cmd" >"$TMP/x.spool" 2>"$TMP/err" ||
		fail "$mode: sp-record exited $?: $(cat "$TMP/err")"
	grep -q hi-from-command "$TMP/x.spool" &&
		fail "$mode: the command's output went into the spool"
	grep -q hi-from-command "$TMP/err" ||
		fail "$mode: the command's output is lost: $(cat "$TMP/err")"
	"$SP_DUMP" "$TMP/x.spool" >/dev/null 2>"$TMP/dump.err" ||
		fail "$mode: sp-dump: $(cat "$TMP/dump.err")"
	for s in SigIgn SigBlk; do
		[ "$(grep "^$s" "$TMP/err")" = "$(grep "^$s" "$TMP/plain")" ] ||
			fail "$mode: the command ran with $(grep "^$s" "$TMP/err"), not $(grep "^$s" "$TMP/plain")"
	done
done
exit 0
