#!/bin/sh
# bench/symbolize-speed.sh: how fast sp-symbolize names the frames of a
# real multi-library profile (bench/symbolize-workload.py: libpython,
# libc, libz, libcrypto, libm, the kernel), next to
#   - addr2line -C -f -i on the same distinct addresses, one batch per
#     file (what a script would do with sp-dump's addresses), and
#   - perf script on a perf.data of the same workload, rate and length:
#     with its default fields (function names, no source lines), and with
#     -F +srcline --inline (names, file:line and inlined frames, the same
#     information as sp-symbolize's).
# sp-symbolize --no-lines (names only, from ELF symbol tables) is the
# like-for-like comparison with plain perf script.
# sp-symbolize runs twice over: a first run (an empty symbol cache,
# which it fills) and a repeat run (the cache it filled), each also
# with --no-kallsyms (the user addresses addr2line is given, nothing
# more); the other sp-symbolize rows use --no-cache.  The cache is a
# private XDG_CACHE_HOME under the temporary directory.
# With STACKCOLLAPSE=/path/to/stackcollapse-perf.pl, the whole pipeline
# to folded stacks, first and repeat runs, is also timed against
# `perf script | stackcollapse-perf.pl` (the issue's pipeline goals).
#   sh bench/symbolize-speed.sh [SECONDS]      (optimized build in $B,
#                                               default build/)
set -e
secs=${1:-5}
B=${B:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/xdg"
unset SP_SYMBOLIZE_CACHE_SIZE SP_SYMBOLIZE_CACHE_STATS
work="python3 bench/symbolize-workload.py $secs"

"$B/sp-record" -F 999 -o "$tmp/x.spool" -- $work >/dev/null 2>&1
"$B/sp-dump" "$tmp/x.spool" >"$tmp/x.txt"
perf record -q -F 999 -e cpu-clock -g -o "$tmp/perf.data" -- $work \
	>/dev/null 2>&1

# best COMMAND...: "WALL CPU", the best of 3 runs of each, in seconds
# (CPU is user + system time, less sensitive to a busy machine).
best() {
	python3 - "$@" <<'PY'
import os, resource, subprocess, sys, time
walls, cpus = [], []
for _ in range(3):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    walls.append(time.monotonic() - start)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpus.append(after.ru_utime - before.ru_utime +
                after.ru_stime - before.ru_stime)
print("%.3f %.3f" % (min(walls), min(cpus)))
PY
}

# The distinct user addresses with a module, as addr2line batches: one
# file per module of "PATH<TAB>VADDR" lines made from FILE_OFFSET + the
# PT_LOAD headers.
python3 - "$tmp/x.txt" "$tmp/a2l" <<'PY'
import os, subprocess, sys
mods, addrs = {}, {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if f[0] == "module" and f[7] == "user" and f[8].startswith("/"):
        mods[f[1]] = f[8]
    elif f[0] in ("frame", "pframe") and f[-2] in mods:
        addrs.setdefault(mods[f[-2]], set()).add(int(f[-1], 16))
os.makedirs(sys.argv[2])
for i, (path, offs) in enumerate(sorted(addrs.items())):
    loads = []
    for l in subprocess.run(["readelf", "-lW", path], capture_output=True,
                            text=True).stdout.splitlines():
        p = l.split()
        if p and p[0] == "LOAD":
            loads.append((int(p[1], 16), int(p[2], 16), int(p[4], 16)))
    with open(os.path.join(sys.argv[2], "%d" % i), "w") as out:
        out.write(path + "\n")
        for o in sorted(offs):
            for off, va, sz in loads:
                if off <= o < off + sz:
                    out.write("%x\n" % (o - off + va))
PY
frames=$(grep -c '^frame' "$tmp/x.txt")
pframes=$(grep -c '^pframe' "$tmp/x.txt" || true)
addrs=$(cat "$tmp"/a2l/* | grep -vc '^/')
sp_samples=$(grep -c '^sample' "$tmp/x.txt")
perf_samples=$(perf script -i "$tmp/perf.data" -F tid 2>/dev/null | wc -l)
sym="$B/sp-symbolize"
# first ARGS: an empty cache before each run (the rm costs ~1 ms).
first() {
	best sh -c "rm -rf '$XDG_CACHE_HOME'; $*"
}
# repeat ARGS: a cache filled by one run first.
repeat() {
	rm -rf "$XDG_CACHE_HOME"
	sh -c "$*" >/dev/null 2>&1
	best sh -c "$*"
}
set -- $(first "'$sym' '$tmp/x.txt'"); w_sym=$1 c_sym=$2
set -- $(repeat "'$sym' '$tmp/x.txt'"); w_rep=$1 c_rep=$2
set -- $(first "'$sym' --no-kallsyms '$tmp/x.txt'"); w_symk=$1 c_symk=$2
set -- $(repeat "'$sym' --no-kallsyms '$tmp/x.txt'"); w_repk=$1 c_repk=$2
set -- $(best "$sym" --no-cache "$tmp/x.txt"); w_nc=$1 c_nc=$2
set -- $(first "'$B/sp-dump' '$tmp/x.spool' | '$sym'"); w_pipe=$1 c_pipe=$2
set -- $(repeat "'$B/sp-dump' '$tmp/x.spool' | '$sym'")
w_prep=$1 c_prep=$2
set -- $(best "$sym" --no-cache --no-lines "$tmp/x.txt"); w_nl=$1 c_nl=$2
set -- $(best sh -c \
	"'$B/sp-dump' '$tmp/x.spool' | '$sym' --no-cache --no-lines")
w_pnl=$1 c_pnl=$2
if [ -n "${STACKCOLLAPSE:-}" ] && [ -f "$STACKCOLLAPSE" ]; then
	fold="'$B/sp-dump' '$tmp/x.spool' | '$sym' | '$B/sp-fold'"
	set -- $(first "$fold"); w_fold=$1 c_fold=$2
	set -- $(repeat "$fold"); w_frep=$1 c_frep=$2
	set -- $(best sh -c "perf script -i '$tmp/perf.data' 2>/dev/null |
		perl '$STACKCOLLAPSE'"); w_sc=$1 c_sc=$2
fi
set -- $(best sh -c "for f in '$tmp'/a2l/*; do tail -n +2 \"\$f\" |
	addr2line -C -f -i -e \"\$(head -n 1 \"\$f\")\"; done"); w_a2l=$1 c_a2l=$2
set -- $(best perf script -i "$tmp/perf.data"); w_perf=$1 c_perf=$2
set -- $(best perf script -i "$tmp/perf.data" -F +srcline --inline)
w_perfl=$1 c_perfl=$2

echo "profile: $sp_samples samples, $frames frames + $pframes pframes" \
	"($addrs user addresses in files); perf: $perf_samples samples"
echo "                                     wall s    cpu s   cpu us/sample"
row() {	# LABEL WALL CPU SAMPLES
	printf '%-36s %7.3f  %7.3f  %8.2f\n' "$1" "$2" "$3" \
		"$(echo "$3 * 1000000 / $4" | bc -l)"
}
row "sp-symbolize, first run" "$w_sym" "$c_sym" "$sp_samples"
row "sp-symbolize, repeat run" "$w_rep" "$c_rep" "$sp_samples"
row "sp-symbolize --no-kallsyms, first" "$w_symk" "$c_symk" "$sp_samples"
row "sp-symbolize --no-kallsyms, repeat" "$w_repk" "$c_repk" "$sp_samples"
row "sp-symbolize --no-cache" "$w_nc" "$c_nc" "$sp_samples"
row "sp-dump | sp-symbolize, first run" "$w_pipe" "$c_pipe" "$sp_samples"
row "sp-dump | sp-symbolize, repeat run" "$w_prep" "$c_prep" "$sp_samples"
row "sp-symbolize --no-lines" "$w_nl" "$c_nl" "$sp_samples"
row "sp-dump | sp-symbolize --no-lines" "$w_pnl" "$c_pnl" "$sp_samples"
row "addr2line -C -f -i (same addrs)" "$w_a2l" "$c_a2l" "$sp_samples"
row "perf script" "$w_perf" "$c_perf" "$perf_samples"
row "perf script +srcline --inline" "$w_perfl" "$c_perfl" "$perf_samples"
ratio() {	# LABEL SLOW_CPU SLOW_SAMPLES FAST_CPU FAST_SAMPLES
	printf '%-62s %6.1fx\n' "$1" \
		"$(echo "($2 / $3) / ($4 / $5)" | bc -l)"
}
if [ -n "${c_sc:-}" ]; then
	row "sp-dump|sp-symbolize|sp-fold, first" "$w_fold" "$c_fold" \
		"$sp_samples"
	row "sp-dump|sp-symbolize|sp-fold, repeat" "$w_frep" "$c_frep" \
		"$sp_samples"
	row "perf script | stackcollapse-perf.pl" "$w_sc" "$c_sc" \
		"$perf_samples"
fi
echo "CPU time ratios, per sample:"
ratio "addr2line / sp-symbolize, first run" "$c_a2l" 1 "$c_sym" 1
ratio "addr2line / sp-symbolize, repeat run" "$c_a2l" 1 "$c_rep" 1
ratio "addr2line / sp-symbolize --no-kallsyms, first" "$c_a2l" 1 "$c_symk" 1
ratio "addr2line / sp-symbolize --no-kallsyms, repeat" "$c_a2l" 1 \
	"$c_repk" 1
ratio "perf script / sp-dump|sp-symbolize, first" "$c_perf" \
	"$perf_samples" "$c_pipe" "$sp_samples"
ratio "perf script / sp-dump|sp-symbolize, repeat" "$c_perf" \
	"$perf_samples" "$c_prep" "$sp_samples"
ratio "perf script / sp-dump|sp-symbolize --no-lines" "$c_perf" \
	"$perf_samples" "$c_pnl" "$sp_samples"
ratio "perf script +srcline --inline / sp-dump|sp-symbolize, first" \
	"$c_perfl" "$perf_samples" "$c_pipe" "$sp_samples"
ratio "perf script +srcline --inline / sp-dump|sp-symbolize, repeat" \
	"$c_perfl" "$perf_samples" "$c_prep" "$sp_samples"
if [ -n "${c_sc:-}" ]; then
	ratio "perf script|stackcollapse-perf.pl / pipeline, first" \
		"$c_sc" "$perf_samples" "$c_fold" "$sp_samples"
	ratio "perf script|stackcollapse-perf.pl / pipeline, repeat" \
		"$c_sc" "$perf_samples" "$c_frep" "$sp_samples"
fi
