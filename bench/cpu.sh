# bench/cpu.sh: sourced by the pipeline benchmarks.
# cpu COMMAND: the best CPU time (user + system) of 3 runs (CPU_RUNS), in
# seconds; more runs steady the best on a machine others load.
# cpu_after PREP COMMAND: the same, PREP run before each run and not
# timed (emptying a cache for a first run: the rm(1) that does it is no
# part of the command measured, and costs an exec, 3-6 ms here).
cpu() {
	cpu_after "" "$1"
}

cpu_after() {
	CPU_PREP=$1 python3 - "$2" <<'PY'
import os, resource, subprocess, sys
prep = os.environ.get("CPU_PREP", "")
best = None
for _ in range(int(os.environ.get("CPU_RUNS", "3"))):
    if prep:
        subprocess.run(["sh", "-c", prep])
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["sh", "-c", sys.argv[1]], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime
    best = t if best is None or t < best else best
print("%.4f" % best)
PY
}
