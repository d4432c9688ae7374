#!/bin/sh
# bench/live-latency.sh: how long a sample takes to show in sp-fold --live.
#
#   B=build sh bench/live-latency.sh [RUNS]
#
# bench/phases.c spins in phase_one for 3 s, notes the time and spins in
# phase_two.  The README's live pipeline (sp-record -p | sp-dump |
# sp-symbolize | sp-fold --live) runs attached to it in a pty, and the
# delay is from the switch to the first screen that shows phase_two.
# The goal is under 1.5 s.  docs/benchmarks.md has the figures.
set -eu
cd "$(dirname "$0")/.."
B=${B:-build}
runs=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O1 -g -o "$tmp/phases" bench/phases.c
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	rm -f "$tmp/switch"
	"$tmp/phases" 3 "$tmp/switch" &
	pid=$!
	python3 - "$B" "$pid" "$tmp" <<'PY'
import os, pty, select, signal, sys, time
b, pid, tmp = sys.argv[1:]
cmd = ("%s/sp-record -p %s 2>/dev/null | %s/sp-dump | %s/sp-symbolize | "
       "%s/sp-fold --live" % (b, pid, b, b, b))
child, fd = pty.fork()
if child == 0:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.execvp("sh", ["sh", "-c", cmd])
screen, seen, t0 = b"", None, time.monotonic()
while time.monotonic() - t0 < 12 and seen is None:
    if select.select([fd], [], [], 0.05)[0]:
        screen += os.read(fd, 65536)
        if b"phase_two" in screen.split(b"\x1b[H\x1b[2J")[-1]:
            seen = time.monotonic()
os.write(fd, b"q")
time.sleep(0.5)
if seen is None:
    sys.exit("phase_two never showed")
switch = float(open(tmp + "/switch").read())
print("phase_two on the screen %.2f s after the switch" % (seen - switch))
PY
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
done
