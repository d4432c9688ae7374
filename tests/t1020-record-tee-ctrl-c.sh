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
	python3 - "$SP_RECORD" "$spin" "$TMP" "$1" <<'PY' || fail "pty run"
import os, pty, signal, subprocess, sys, time
rec, spin, tmp, teeopt = sys.argv[1:]
child, fd = pty.fork()
if child == 0:
    # The job a shell would run, in the terminal's foreground group; this
    # process only waits (it ignores the interrupt, its children do not).
    def dfl():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    err = open(tmp + "/rec.err", "w")
    r = subprocess.Popen([rec, "-F", "499", "-p", spin], stdout=subprocess.PIPE,
                         stderr=err, preexec_fn=dfl)
    t = subprocess.Popen(["tee"] + ([teeopt] if teeopt else []) +
                         [tmp + "/x.spool"], stdin=r.stdout,
                         stdout=subprocess.DEVNULL, preexec_fn=dfl)
    r.stdout.close()
    rc = r.wait()
    t.wait()
    open(tmp + "/rec.rc", "w").write("%d\n" % rc)
    os._exit(0)
# The interrupt comes once the target has spent 2 s of CPU time while
# recorded (not after a wall-clock time: a loaded machine gives it less).
def cpu(pid):
    f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
begin = cpu(spin)
t = time.time()
while cpu(spin) - begin < 2.0 and time.time() - t < 120:
    time.sleep(0.05)
os.write(fd, b"\x03")  # the terminal sends SIGINT to the whole job
t = time.time()
while time.time() - t < 15:
    if os.waitpid(child, os.WNOHANG)[0]:
        break
    try:
        os.read(fd, 4096)
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("the pipeline did not end after Ctrl-C")
PY
}

ctrl_c ""
grep -q 'Broken pipe' "$TMP/rec.err" && fail "write error: $(cat "$TMP/rec.err")"
[ "$(cat "$TMP/rec.rc")" = 0 ] ||
	fail "sp-record exit $(cat "$TMP/rec.rc"): $(cat "$TMP/rec.err")"
grep -q 'stopped by signal 2' "$TMP/rec.err" || fail "$(cat "$TMP/rec.err")"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "the spool is not readable"
# 2 s of the target's CPU at 499 Hz: about 1000 samples.
[ "$(grep -c '^sample' "$TMP/dump")" -gt 400 ] ||
	fail "only $(grep -c '^sample' "$TMP/dump") samples in 2 s of CPU"
size=$(wc -c <"$TMP/x.spool")
if grep -q 'the output closed after the interrupt' "$TMP/rec.err"; then
	grep -q " $size bytes reached it" "$TMP/rec.err" ||
		fail "bytes counted: $(tail -n 1 "$TMP/rec.err") vs $size"
fi

ctrl_c -i
[ "$(cat "$TMP/rec.rc")" = 0 ] || fail "with tee -i: exit $(cat "$TMP/rec.rc")"
"$SP_DUMP" "$TMP/x.spool" >"$TMP/dump" || fail "tee -i: spool not readable"
grep -q '^stats' "$TMP/dump" || fail "tee -i: no stats record at the end"
exit 0
