#!/bin/sh
# t2002-ptrace-record.sh: sp-record --ptrace.  Records unw_chains launched
# under ptrace and checks the stacks as t2000 does (95%: a ptrace sample
# can land anywhere, start-up included); then attaches to a running
# unw_busy and stops the recorder with SIGTERM, SIGKILL and a closed
# output pipe: each time the target must be left untraced, not stopped,
# and still running.
. "$(dirname "$0")/lib.sh"

"$SP_RECORD" --ptrace -d 0.1 -o "$TMP/probe.spool" -- true 2>"$TMP/err"
case $? in
0) ;;
2) skip "sp-record has no --ptrace: $(head -n 1 "$TMP/err")" ;;
*) if grep -qi 'ptrace.*\(not permitted\|denied\)' "$TMP/err"; then
	[ "${CI:-}" = true ] && fail "ptrace refused under CI=true"
	skip "ptrace refused: $(head -n 1 "$TMP/err")"
   fi
   fail "sp-record --ptrace exited $?: $(cat "$TMP/err")" ;;
esac

cc -O2 -g -fomit-frame-pointer -fPIC -shared -o "$TMP/libunw_lib.so" \
	"$PROGRAMS/unw_lib.c" || fail "cannot build unw_lib.c"
cc_prog unw_chains unw_chains.c -O2 -g -fomit-frame-pointer -pthread \
	-L"$TMP" -lunw_lib -Wl,-rpath,"$TMP"
cc_prog unw_busy unw_busy.c -O2 -fomit-frame-pointer -pthread

for f in "$TMP/unw_chains" "$TMP/libunw_lib.so"; do
	nm -S --defined-only "$f" | awk -v p="$f" \
		'NF == 4 && ($3 == "t" || $3 == "T") {
			printf "%s\t0\t%s\t%s\t%s\n", p, $1, $2, $4 }'
done >"$TMP/syms"
"$SP_RECORD" --ptrace -F 500 -d 3 -o "$TMP/out.spool" -- \
	"$TMP/unw_chains" 1 2>"$TMP/err" ||
	fail "sp-record --ptrace exited $?: $(cat "$TMP/err")"
grep -qi 'pause' "$TMP/err" || fail "no pause figures in the summary"
"$SP_DUMP" "$TMP/out.spool" >"$TMP/dump" || fail "sp-dump exited $?"
awk -f "$PROGRAMS/unw_judge.awk" -v min_pct=95 -v min_complete=0 \
	"$TMP/syms" "$TMP/dump" ||
	fail "too few ptrace samples unwound through their chain"

# cpu PID: user+system ticks of PID.
cpu() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# untraced_and_running PID WHAT
untraced_and_running() {
	tracer=$(awk '/^TracerPid:/ { print $2 }' "/proc/$1/status")
	state=$(awk '/^State:/ { print $2 }' "/proc/$1/status")
	[ "$tracer" = 0 ] || fail "$2: target still traced by $tracer"
	case $state in
	R|S) ;;
	*) fail "$2: target left in state $state" ;;
	esac
	before=$(cpu "$1")
	sleep 0.3
	[ "$(cpu "$1")" -gt "$before" ] || fail "$2: target no longer runs"
}

"$TMP/unw_busy" 60 2 >/dev/null &
target=$!
sleep 0.2
# Attaching to a process that is not our descendant needs more rights
# (root, CAP_SYS_PTRACE, or Yama's ptrace_scope 0) than launching does.
if ! "$SP_RECORD" --ptrace -d 0.1 -p "$target" -o "$TMP/probe.spool" \
    2>"$TMP/err"; then
	kill "$target"
	grep -qi 'not permitted\|denied' "$TMP/err" &&
		skip "attach refused: $(head -n 1 "$TMP/err")"
	fail "sp-record --ptrace -p exited: $(cat "$TMP/err")"
fi
untraced_and_running "$target" "a 0.1 s recording"
for sig in TERM KILL; do
	"$SP_RECORD" --ptrace -F 1000 -p "$target" -o "$TMP/att.spool" \
		2>"$TMP/err" &
	rec=$!
	sleep 0.5
	kill -"$sig" "$rec"
	wait "$rec"
	untraced_and_running "$target" "SIG$sig"
done
"$SP_RECORD" --ptrace -F 1000 -p "$target" 2>"$TMP/err" |
	head -c 64 >/dev/null
untraced_and_running "$target" "closed output pipe"
kill "$target"
wait "$target" 2>/dev/null
exit 0
