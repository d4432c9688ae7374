#!/bin/sh
# t1013-record-stopped.sh: with the default rings, a recorder kept off the
# CPU for 150 ms (as a loaded machine does; here SIGSTOP) while two
# threads are sampled at 999 Hz with 32 KiB stack copies loses no event.
# With -m 64 it does, and the summary then says why and what to change.
. "$(dirname "$0")/lib.sh"
need_perf
cc_prog rec_chain rec_chain.c -O0 -fno-omit-frame-pointer -pthread

# stopped SP-RECORD-OPTIONS...: records rec_chain (two threads, until the
# main one has used 1 s of CPU), stopping the recorder for 150 ms once
# its first samples are in the spool; the summary goes to $TMP/err.
stopped() {
	# The last run's spool must not pass for this one's first samples.
	rm -f "$TMP/x.spool"
	"$SP_RECORD" -F 999 -g dwarf -o "$TMP/x.spool" "$@" -- \
		"$TMP/rec_chain" 1c 1 2>"$TMP/err" &
	rpid=$!
	_i=0
	until "$SP_DUMP" "$TMP/x.spool" 2>/dev/null | grep -q '^sample'; do
		_i=$((_i + 1))
		[ $_i -lt 3000 ] || fail "no sample in the spool"
		sleep 0.05
	done
	kill -STOP "$rpid"
	sleep 0.15
	kill -CONT "$rpid"
	wait "$rpid"
	rc=$?
	[ $rc -eq 7 ] || fail "sp-record exited $rc: $(cat "$TMP/err")"
}

stopped
grep -q '^sp-record: lost 0 events' "$TMP/err" ||
	fail "the default rings lost events: $(cat "$TMP/err")"
stopped -m 64
grep -q '^sp-record: lost [1-9]' "$TMP/err" ||
	skip "64-page rings lost nothing either: the machine was too fast to tell"
grep -q 'ring filled before sp-record read it.*-m' "$TMP/err" ||
	fail "the summary does not say why events were lost: $(cat "$TMP/err")"
exit 0
