#!/bin/sh
# sp-fold --live in a real terminal (a pty): the pipeline of the README
# attached to a running program shows its hot function within seconds,
# q ends the view and the pipeline, and the program keeps running,
# untraced.
. "$(dirname "$0")/lib.sh"
need_perf

cc_prog live_spin live_spin.c -O1 -g
# A quarter of a CPU: enough samples to show, and the rest of the CPU
# left to the tests beside this one.
"$TMP/live_spin" 25 &
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
grep -q "the output's reader went away after" "$TMP/rec.err" ||
	fail "sp-record did not say its reader went away: $(cat "$TMP/rec.err")"
grep -q 'Broken pipe' "$TMP/rec.err" && fail "q gave: $(cat "$TMP/rec.err")"

# A 70-column terminal whose recording ends (-d 2): every line of the view
# fits, the view says the input ended and stays until q, and after q the
# terminal is as it was (line editing on, the shell's screen back) with
# sp-record's summary on it, not on the vanished view.
python3 - "$spin" "$SP_RECORD" "$SP_DUMP" "$SP_SYMBOLIZE" "$SP_FOLD" \
	<<'PY' || fail "live view in a narrow terminal"
import fcntl, os, pty, re, select, signal, struct, sys, termios, time
spin, rec, dump, sym, fold = sys.argv[1:]
cmd = ("%s -F 499 -d 2 -p %s | %s | %s | %s --live" % (rec, spin, dump, sym, fold))
child, fd = pty.fork()
if child == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 70, 0, 0))
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.execvp("sh", ["sh", "-c", cmd])
def read_for(secs, until=None):
    out, t0 = b"", time.time()
    while time.time() - t0 < secs:
        try:
            if select.select([fd], [], [], 0.2)[0]:
                out += os.read(fd, 65536)
        except OSError:
            break
        if until and until in out:
            break
    return out
screen = read_for(60, b"the input ended")
assert b"the input ended" in screen, screen[-800:]
assert b"\x1b[?1049h" in screen, "no alternate screen"
frame = screen.split(b"\x1b[H\x1b[2J")[-1].decode("utf-8", "replace")
for line in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "\n", frame).split("\n"):
    assert len(line.rstrip("\r")) <= 70, "wider than 70: %r" % line
assert "call stack" in frame or "function" in frame, frame
assert termios.tcgetattr(fd)[3] & termios.ICANON == 0, "not in key mode"
os.write(fd, b"q")
rest = read_for(10, b"per sample")
assert b"\x1b[?1049l" in rest, rest
after = rest.split(b"\x1b[?1049l")[-1]
assert b"sp-record: wrote" in after, "summary not on the shell's screen: %r" % rest
assert termios.tcgetattr(fd)[3] & termios.ICANON, "line editing not back"
os.waitpid(child, 0)
print("narrow view ended, terminal restored, summary shown")
PY
kill -0 "$spin" || fail "the program died with the pipeline"
grep -q '^TracerPid:	0$' "/proc/$spin/status" || fail "the program is traced"
exit 0
