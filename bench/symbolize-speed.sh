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
#   sh bench/symbolize-speed.sh [SECONDS]      (optimized build in build/)
set -e
secs=${1:-5}
B=${B:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
work="python3 bench/symbolize-workload.py $secs"

"$B/sp-record" -F 999 -o "$tmp/x.spool" -- $work >/dev/null 2>&1
"$B/sp-dump" "$tmp/x.spool" >"$tmp/x.txt"
perf record -q -F 999 -e cpu-clock -g -o "$tmp/perf.data" -- $work \
	>/dev/null 2>&1

# best of 3 wall-clock seconds for a command
best() {
	b=
	for i in 1 2 3; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	echo "$b"
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
a2l() {
	for f in "$tmp"/a2l/*; do
		tail -n +2 "$f" | addr2line -C -f -i -e "$(head -n 1 "$f")"
	done
}

frames=$(grep -c '^frame' "$tmp/x.txt")
pframes=$(grep -c '^pframe' "$tmp/x.txt")
addrs=$(cat "$tmp"/a2l/* | grep -vc '^/')
sp_samples=$(grep -c '^sample' "$tmp/x.txt")
perf_samples=$(perf script -i "$tmp/perf.data" -F tid 2>/dev/null | wc -l)
t_sym=$(best "$B/sp-symbolize" "$tmp/x.txt")
t_pipe=$(best sh -c "'$B/sp-dump' '$tmp/x.spool' | '$B/sp-symbolize'")
t_a2l=$(best a2l)
t_perf=$(best perf script -i "$tmp/perf.data")
t_perfl=$(best perf script -i "$tmp/perf.data" -F +srcline --inline)
echo "profile: $sp_samples samples, $frames frames + $pframes pframes" \
	"($addrs user addresses in files); perf: $perf_samples samples"
printf 'sp-symbolize (records)          %8.3f s  %8.2f us/sample\n' \
	"$t_sym" "$(echo "$t_sym * 1000000 / $sp_samples" | bc -l)"
printf 'sp-dump | sp-symbolize          %8.3f s  %8.2f us/sample\n' \
	"$t_pipe" "$(echo "$t_pipe * 1000000 / $sp_samples" | bc -l)"
printf 'addr2line -C -f -i (same addrs) %8.3f s\n' "$t_a2l"
printf 'perf script                     %8.3f s  %8.2f us/sample\n' \
	"$t_perf" "$(echo "$t_perf * 1000000 / $perf_samples" | bc -l)"
printf 'perf script +srcline --inline   %8.3f s  %8.2f us/sample\n' \
	"$t_perfl" "$(echo "$t_perfl * 1000000 / $perf_samples" | bc -l)"
printf 'ratio addr2line / sp-symbolize:            %.1fx\n' \
	"$(echo "$t_a2l / $t_sym" | bc -l)"
printf 'ratio perf script / sp-dump|sp-symbolize:  %.1fx per sample\n' \
	"$(echo "($t_perf / $perf_samples) / ($t_pipe / $sp_samples)" | bc -l)"
printf 'ratio perf script +srcline --inline / sp-dump|sp-symbolize: %.1fx per sample\n' \
	"$(echo "($t_perfl / $perf_samples) / ($t_pipe / $sp_samples)" | bc -l)"
