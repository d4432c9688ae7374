#!/bin/sh
# bench/symbolize-ab.sh: CPU time of commands run in turn on a busy
# machine, for comparing two sp-symbolize builds on one recording.  Each
# command runs RUNS times, interleaved with the others, output to
# /dev/null; the best CPU time (user + system) of each is printed.
# Every run is a first run: XDG_CACHE_HOME is a private directory,
# emptied before each run, so sp-symbolize's symbol cache never answers
# (set KEEP_CACHE=1 to time repeat runs instead: the cache is then
# emptied only once, before the first command's first run).
#   sh bench/symbolize-ab.sh RUNS CMD ARGS... [-- CMD ARGS...]...
# For example, an old and a new build on the same sp-dump text:
#   sh bench/symbolize-ab.sh 5 old/sp-symbolize x.txt -- \
#	build/sp-symbolize x.txt -- build/sp-symbolize --no-lines x.txt
set -e
if [ $# -lt 2 ]; then
	echo "usage: sh bench/symbolize-ab.sh RUNS CMD ARGS... [-- CMD...]" >&2
	exit 2
fi
XDG_CACHE_HOME=$(mktemp -d)
export XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
python3 - "$@" <<'PY'
import os, resource, shutil, subprocess, sys

cache = os.environ["XDG_CACHE_HOME"] + "/stackpulse"
keep = os.environ.get("KEEP_CACHE") == "1"

runs = int(sys.argv[1])
cmds = [[]]
for a in sys.argv[2:]:
    if a == "--":
        cmds.append([])
    else:
        cmds[-1].append(a)
best = [None] * len(cmds)
for _ in range(runs):
    for i, c in enumerate(cmds):
        if not keep:
            shutil.rmtree(cache, ignore_errors=True)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(c, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        u = after.ru_utime - before.ru_utime
        s = after.ru_stime - before.ru_stime
        if best[i] is None or u + s < best[i][0]:
            best[i] = (u + s, u, s)
print("  cpu s   user s    sys s  command")
for c, b in zip(cmds, best):
    print("%7.3f  %7.3f  %7.3f  %s" % (b[0], b[1], b[2], " ".join(c)))
PY
