#!/bin/sh
# sp-fold --live in a real terminal (a pty): the pipeline of the README
# attached to a running program shows its hot function within seconds,
# q ends the view and the pipeline, and the program keeps running,
# untraced.
. "$(dirname "$0")/lib.sh"
need_perf

cc_prog live_spin live_spin.c -O1 -g
"$TMP/live_spin" &
spin=$!
trap 'kill $spin 2>/dev/null; rm -rf "$TMP"' EXIT
python3 - "$spin" "$SP_RECORD" "$SP_DUMP" "$SP_SYMBOLIZE" "$SP_FOLD" \
	"$TMP" <<'PY' || fail "live view"
import os, pty, select, signal, sys, time
spin, rec, dump, sym, fold, tmp = sys.argv[1:]
cmd = ("%s -F 499 -p %s 2>%s/rec.err | %s | %s | %s --live --window 5"
       % (rec, spin, tmp, dump, sym, fold))
child, fd = pty.fork()
if child == 0:
    # A shell's pipeline, as a terminal runs it: SIGPIPE ends writers.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.execvp("sh", ["sh", "-c", cmd])
screen, seen, t0 = b"", None, time.time()
while time.time() - t0 < 8 and seen is None:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        screen += os.read(fd, 65536)
    if b"live_hot_spin" in screen:
        seen = time.time() - t0
if seen is None:
    sys.exit("no live_hot_spin on the screen: %r" % screen[-600:])
frame = screen.split(b"\x1b[H\x1b[2J")[-1].decode("utf-8", "replace")
assert "sp-fold --live" in frame and "1 process, 1 thread " in frame, frame
print("live_hot_spin shown after %.1f s" % seen)
# f: the busiest thread only, named in the header; f again: all again.
def frame_after(key):
    global screen
    os.write(fd, key)
    mark, t2 = len(screen), time.time()
    # The key redraws at once; a timed redraw may come first: take the
    # last whole frame after 1.5 s.
    while time.time() - t2 < 1.5:
        if select.select([fd], [], [], 0.2)[0]:
            screen += os.read(fd, 65536)
    frames = screen[mark:].split(b"\x1b[H\x1b[2J")
    return frames[-2 if len(frames) > 2 else -1].decode("utf-8", "replace")
frame = frame_after(b"f")
assert ("thread %s" % spin) in frame and "live_hot_spin" in frame, frame
frame = frame_after(b"f")
assert ("thread %s" % spin) not in frame, frame
os.write(fd, b"q")
t1 = time.time()
while time.time() - t1 < 10:
    pid, status = os.waitpid(child, os.WNOHANG)
    if pid:
        break
    try:
        if select.select([fd], [], [], 0.2)[0]:
            os.read(fd, 65536)
    except OSError:
        pass
else:
    sys.exit("the pipeline did not end after q")
print("pipeline ended %.1f s after q" % (time.time() - t1))
PY
kill -0 "$spin" || fail "the program died with the pipeline"
grep -q '^TracerPid:	0$' "/proc/$spin/status" || fail "the program is traced"
exit 0
