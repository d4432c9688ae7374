#!/bin/sh
# A target that deletes a mapped library and leaves a FIFO named
# "LIB (deleted)" in its place (the path /proc/PID/maps shows) cannot
# stall the recorder: attaching with -d, stopping with SIGINT and --ptrace
# each end on time with a readable spool and the summary, and --ptrace
# leaves the target untraced (issue 11 item 3).  `timeout` bounds every
# run, so the old code fails here instead of hanging.
. "$(dirname "$0")/lib.sh"
need_perf
command -v timeout >/dev/null || skip "no timeout(1)"
cc_prog rec_libswap rec_libswap.c -O0 -ldl
cc_prog lib.so rec_intlib.c -O0 -shared -fPIC

"$TMP/rec_libswap" fifo 60 "$TMP/lib.so" "$TMP/ready" &
target=$!
trap 'kill $target 2>/dev/null; rm -rf "$TMP"' EXIT
wait_for_file "$TMP/ready" || fail "rec_libswap did not set up the FIFO"
[ -p "$TMP/lib.so (deleted)" ] || fail "no FIFO at the module path"

# recorded NAME STATUS: the run exited STATUS with a readable spool that
# holds samples, and printed the summary.
recorded() {
	[ "$2" -eq 0 ] || {
		cat "$TMP/$1.err" >&2
		fail "$1: sp-record exited $2 (124 or 137: it hung)"
	}
	"$SP_DUMP" "$TMP/$1.spool" >"$TMP/$1.dump" ||
		fail "$1: sp-dump rejected the spool"
	grep -q '^sample' "$TMP/$1.dump" || fail "$1: no sample recorded"
	grep -q '^sp-record: wrote ' "$TMP/$1.err" ||
		fail "$1: no summary: $(cat "$TMP/$1.err")"
}

timeout -k 5 20 "$SP_RECORD" -d 1 -p $target -o "$TMP/d.spool" \
	2>"$TMP/d.err"
recorded d $?
timeout --preserve-status -s INT -k 5 2 "$SP_RECORD" -p $target \
	-o "$TMP/int.spool" 2>"$TMP/int.err"
recorded int $?
grep -q 'stopped by signal 2' "$TMP/int.err" ||
	fail "SIGINT: $(cat "$TMP/int.err")"
if "$SP_RECORD" --ptrace -d 0.1 -o "$TMP/p0.spool" -- true 2>/dev/null; then
	timeout -k 5 20 "$SP_RECORD" --ptrace -d 1 -p $target \
		-o "$TMP/pt.spool" 2>"$TMP/pt.err"
	recorded pt $?
	sleep 0.2
	grep -q '^TracerPid:[[:space:]]*0$' /proc/$target/status ||
		fail "--ptrace left the target traced"
	grep -q '^State:[[:space:]]*[RS]' /proc/$target/status ||
		fail "--ptrace left the target $(grep State /proc/$target/status)"
fi
kill -0 $target 2>/dev/null || fail "the target died"
exit 0
