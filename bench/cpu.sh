# bench/cpu.sh: sourced by the pipeline benchmarks.
# cpu COMMAND: the best CPU time (user + system) of 3 runs, in seconds.
cpu() {
	python3 - "$@" <<'PY'
import resource, subprocess, sys
best = None
for _ in range(3):
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["sh", "-c", sys.argv[1]], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime
    best = t if best is None or t < best else best
print("%.4f" % best)
PY
}
