#!/bin/sh
# While recording with stderr on a terminal, sp-record keeps a one-line
# status (elapsed time, samples, processes and threads, lost events),
# rewritten about once a second and erased before the summary; none with
# -q or when stderr is no terminal.
. "$(dirname "$0")/lib.sh"
need_perf

cc_prog live_spin live_spin.c -O1 -g
# A quarter of a CPU: enough samples to show, and the rest of the CPU
# left to the tests beside this one.
"$TMP/live_spin" 25 &
spin=$!
trap 'kill $spin 2>/dev/null; rm -rf "$TMP"' EXIT

onpty() {	# OPTIONS...: the terminal's text of a 3 s recording
	python3 - "$SP_RECORD" "$spin" "$TMP" "$@" <<'PY'
import os, pty, sys
rec, spin, tmp, opts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
child, fd = pty.fork()
if child == 0:
    os.execv(rec, [rec, "-d", "3", "-o", tmp + "/x.spool"] + opts + ["-p", spin])
out = b""
while True:
    try:
        b = os.read(fd, 4096)
    except OSError:
        break
    if not b:
        break
    out += b
_, status = os.waitpid(child, 0)
if status:
    sys.stderr.write("sp-record on the terminal: wait status %d\n" % status)
sys.stdout.write(out.decode("utf-8", "replace"))
PY
}

onpty >"$TMP/tty"
n=$(grep -o 'sp-record: [0-9]* s, [0-9]* samples, 1 process, 1 thread, lost [0-9]*' \
	"$TMP/tty" | wc -l)
[ "$n" -ge 2 ] || fail "status lines: $n in $(cat -v "$TMP/tty")"
grep -q "$(printf '\r\033\\[K')sp-record: 1 sample" "$TMP/tty" &&
	fail "the status was not erased before the summary"
grep -q 'samples in [0-9.]* s from 1 process' "$TMP/tty" ||
	fail "no summary in $(cat -v "$TMP/tty")"
onpty -q >"$TMP/tty.q"
grep -q ' s, [0-9]* samples, ' "$TMP/tty.q" && fail "-q printed a status"
"$SP_RECORD" -d 1 -o "$TMP/y.spool" -p "$spin" 2>"$TMP/err" || fail "exit $?"
grep -q ' s, [0-9]* samples, ' "$TMP/err" && fail "a status line into a file"
exit 0
