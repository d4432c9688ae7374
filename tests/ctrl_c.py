"""tests/ctrl_c.py: runs a shell command as a terminal's job and types
Ctrl-C once a process has spent some CPU time, as a person at a terminal
would; then waits for the job to end.

    python3 tests/ctrl_c.py (--pid PID | --exe PATH) --cpu SECONDS -- CMD [ARG...]

CMD runs under sh -c with its own pseudo-terminal, in that terminal's
foreground process group, so the interrupt reaches every process of the
job at once.  --pid names the process whose CPU time is watched, --exe
the process running PATH (found once it exists).  The interrupt comes
after SECONDS of that process's CPU time counted from when it is first
seen, not after a wall-clock time, so that a loaded machine delays it
rather than changing what was recorded.  Exits 0 when the job ended,
1 when it did not within two minutes (or the process never ran).
"""
import argparse
import os
import pty
import sys
import time

LIMIT = 120  # seconds: a guard against a hang, not a measurement


def cpu_seconds(pid):
    fields = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def find_exe(exe):
    for p in os.listdir("/proc"):
        try:
            if p.isdigit() and open("/proc/%s/cmdline" % p).read().startswith(exe + "\0"):
                return p
        except OSError:
            pass
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pid")
    ap.add_argument("--exe")
    ap.add_argument("--cpu", type=float, required=True)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    child, fd = pty.fork()
    if child == 0:
        os.execv("/bin/sh", ["sh", "-c"] + cmd)
    start, pid, begin = time.time(), a.pid, None
    while time.time() - start < LIMIT:
        try:
            pid = pid or find_exe(a.exe)
            if pid and begin is None:
                begin = cpu_seconds(pid)
            if pid and cpu_seconds(pid) - begin >= a.cpu:
                break
        except OSError:
            pass
        time.sleep(0.05)
    else:
        sys.exit("ctrl_c.py: the watched process did not run %.1f s" % a.cpu)
    os.write(fd, b"\x03")  # the terminal sends SIGINT to the whole job
    start = time.time()
    while time.time() - start < LIMIT:
        if os.waitpid(child, os.WNOHANG)[0]:
            return
        try:
            os.read(fd, 4096)
        except OSError:
            time.sleep(0.05)
    sys.exit("ctrl_c.py: the job did not end after Ctrl-C")


main()
