#!/bin/sh
# The README's first line under Ctrl-C in a terminal: `sp-record -p PID |
# tee x.spool`.  The interrupt reaches sp-record and tee at once; the
# spool keeps everything but the last tenth of a second, sp-record ends
# with status 0 and a note instead of a write error, and its summary
# counts only the bytes that reached tee.  With `tee -i` nothing is lost.
. "$(dirname "$0")/lib.sh"
need_perf

cc_prog live_spin live_spin.c -O1 -g
"$TMP/live_spin" &
spin=$!
trap 'kill $spin 2>/dev/null; rm -rf "$TMP"' EXIT

ctrl_c() {	# TEE-OPTIONS: records through tee in a pty, then Ctrl-C
	# The job a shell would run; its shells wait with a handler (not
	# ignoring the interrupt, which their children would inherit).
	# Ctrl-C comes once the target has spent 1 s of CPU time.
	python3 "$TOP/tests/ctrl_c.py" --pid "$spin" --cpu 1 -- \
		'trap : INT
		{ trap : INT; "$0" -F 499 -p "$1" 2>"$2/rec.err"
		  echo $? >"$2/rec.rc"; } |
			tee $3 "$2/x.spool" >/dev/null' \
		"$SP_RECORD" "$spin" "$TMP" "$1" || fail "pty run"
}

ctrl_c ""
grep -q 'Broken pipe' "$TMP/rec.err" && fail "write error: $(cat "$TMP/rec.err")"
[ "$(cat "$TMP/rec.rc")" = 0 ] ||
	fail "sp-record exit $(cat "$TMP/rec.rc"): $(cat "$TMP/rec.err")"
grep -q 'stopped by signal 2' "$TMP/rec.err" || fail "$(cat "$TMP/rec.err")"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" 2>"$TMP/dump.err" ||
	fail "the spool is not readable: $(cat "$TMP/dump.err")"
# A spool that lost its end says so, and one that did not says nothing
# (issue 39 item 9: a cut at a record boundary read as whole).
if grep -q '^stats' "$TMP/dump"; then
	[ -s "$TMP/dump.err" ] && fail "a whole spool: $(cat "$TMP/dump.err")"
else
	grep -q "without sp-record's closing stats record" "$TMP/dump.err" ||
		fail "a spool cut short, read as whole: $(cat "$TMP/dump.err")"
fi
# 1 s of the target's CPU at 499 Hz: about 500 samples.
[ "$(grep -c '^sample' "$TMP/dump")" -gt 200 ] ||
	fail "only $(grep -c '^sample' "$TMP/dump") samples in 1 s of CPU"
size=$(wc -c <"$TMP/x.spool")
if grep -q 'the output closed after the interrupt' "$TMP/rec.err"; then
	grep -q " $size bytes reached it" "$TMP/rec.err" ||
		fail "bytes counted: $(tail -n 1 "$TMP/rec.err") vs $size"
fi

ctrl_c -i
[ "$(cat "$TMP/rec.rc")" = 0 ] || fail "with tee -i: exit $(cat "$TMP/rec.rc")"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" 2>"$TMP/dump.err" ||
	fail "tee -i: spool not readable"
grep -q '^stats' "$TMP/dump" || fail "tee -i: no stats record at the end"
[ -s "$TMP/dump.err" ] && fail "tee -i: $(cat "$TMP/dump.err")"
exit 0
