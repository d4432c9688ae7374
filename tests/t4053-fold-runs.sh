#!/bin/sh
# Issue 30: sp-dump --runs writes a run record per distinct sample
# (process, thread, stack, event, weight, state) with its count instead of
# a line per sample.  sp-symbolize passes runs on, and sp-fold folds them
# to the same bytes as the samples, in every format that needs no time of
# each sample: on generated spools with threads renamed mid-stream,
# processes forgotten and their pids reused, two events with weights,
# off-CPU states and Python stacks; and on a recording when perf_event_open
# works.  What needs each sample's time refuses runs, and the run counts
# add up to the samples.
. "$(dirname "$0")/lib.sh"

gen() { python3 "$TOP/tests/spoolgen.py"; }

# mixed SEED: samples of 3 processes of 2 threads over 6 stacks, in a
# seeded random order, with renames, a forget and its pid back, lost
# records, weights of two events and off-CPU states, and Python stacks.
mixed() {
	python3 - "$1" <<'PY' | gen
import random, sys
rnd = random.Random(int(sys.argv[1]))
def uvar(v):
    out = b""
    while v >= 0x80:
        out += bytes([v & 0x7f | 0x80]); v >>= 7
    return out + bytes([v])
print("header 1700000000000000 1000")
print("module 0 -1 0xffffffff81000000 0xffffffff82000000 0 0 1 [kernel]")
print("event 0 cpu-clock 0 1000\nevent 1 off-cpu 1 0")
print("pycode 0 1 <module> /a.py\npycode 1 5 work /a.py")
print("pynode 0 - 0 3 1\npynode 1 0 1 7 0")
ids = {"m": 1, "f": 0, "s": 0, "t": 0}
def proc(pid):
    m = ids["m"]; ids["m"] += 1
    print("module %d %d 0x400000 0x480000 0 %d 0 /usr/lib/p%d.so" % (m, pid, m, m))
    frames = []
    for k in range(4):
        print("frame %d %d 0x%x" % (ids["f"], m << 1, 0x100 + 0x10 * k))
        frames.append(ids["f"]); ids["f"] += 1
    print("frame %d 0 0x100" % ids["f"])
    kf = ids["f"]; ids["f"] += 1
    stacks, prev = [], "-"
    for f in frames:
        print("stack %d %s %d" % (ids["s"], prev, f))
        stacks.append(ids["s"]); prev = str(ids["s"]); ids["s"] += 1
    print("stack %d %d %d" % (ids["s"], stacks[1], kf))
    stacks.append(ids["s"]); ids["s"] += 1
    print("stack %d %d %d" % (ids["s"], stacks[2], kf))
    stacks.append(ids["s"]); ids["s"] += 1
    threads = []
    for tid in (pid, pid + 1):
        print("thread %d %d %d" % (ids["t"], pid, tid))
        threads.append(ids["t"]); ids["t"] += 1
    print("comm 0 %d %d 1 proc%d" % (pid, pid, pid))
    print("comm 0 %d %d 0 worker" % (pid, pid + 1))
    return threads, stacks
procs = {pid: proc(pid) for pid in (100, 200, 300)}
for i in range(3000):
    pid = rnd.choice(list(procs))
    threads, stacks = procs[pid]
    t, s = rnd.choice(threads), rnd.choice(stacks)
    r = rnd.random()
    if r < 0.03:
        print("ext 18 " + (uvar(i) + uvar(2)).hex())
    if r < 0.01:
        print("comm %d %d %d 0 renamed%d" % (i, pid, pid + 1, i))
    if 0.1 < r < 0.2:
        print("weight 0 %d" % rnd.choice((1000, 2000)))
    elif 0.2 < r < 0.3:
        print("weight 1 %d" % rnd.choice((5000, 7000)))
        print("ext 24 0%d" % rnd.choice((1, 2, 3)))
    elif 0.3 < r < 0.33:
        print("pystack 1 0 3")
        s = stacks[3]
    print("sample %d %d %d" % (rnd.randrange(0, 2000000), t, s))
    if i == 1500:
        print("forget 200")
        procs[200] = proc(200)
PY
}

cat >"$TMP/formats" <<'OPTS'
folded
--tid
--pid
--process-name
--format top
--format svg
--format threads
--view off-cpu
--view wall
--weight period
--event-filter off-cpu --weight time
--comm worker
--pid=100 --kernel
--interpreter-frames
--max-depth 3
--include p1.so --reverse
OPTS

# same SPOOL NAME: the pipeline with and without --runs, every format.
same() {
	"$SP_DUMP" "$1" >"$TMP/$2.rec" || fail "$2: sp-dump"
	"$SP_DUMP" --runs "$1" >"$TMP/$2.runs" || fail "$2: sp-dump --runs"
	grep -q '^run' "$TMP/$2.runs" || fail "$2: no run records"
	grep -q '^sample' "$TMP/$2.runs" || [ "$3" = native ] ||
		fail "$2: a sample with a Python stack was not kept whole"
	# The counts add up to the samples; fewer lines than samples.
	awk -F'\t' '$1 == "sample" { n++ } $1 == "run" { n += $4; r++ }
		END { print n, r }' "$TMP/$2.runs" >"$TMP/$2.n"
	n=$(grep -c '^sample' "$TMP/$2.rec")
	read -r got runs <"$TMP/$2.n"
	[ "$got" = "$n" ] || fail "$2: runs count $got samples, not $n"
	[ "$runs" -lt "$n" ] || fail "$2: $runs runs for $n samples"
	"$SP_SYMBOLIZE" --no-cache <"$TMP/$2.rec" >"$TMP/$2.sym" \
		2>/dev/null || fail "$2: sp-symbolize"
	"$SP_SYMBOLIZE" --no-cache <"$TMP/$2.runs" >"$TMP/$2.rsym" \
		2>/dev/null || fail "$2: sp-symbolize, runs"
	[ "$(grep -c '^run' "$TMP/$2.rsym")" = "$runs" ] ||
		fail "$2: sp-symbolize did not pass every run on"
	while read -r opts; do
		[ "$opts" = folded ] && opts=""
		# shellcheck disable=SC2086
		"$SP_FOLD" $opts <"$TMP/$2.sym" >"$TMP/a" 2>"$TMP/ea" ||
			fail "$2: sp-fold $opts: $(cat "$TMP/ea")"
		# shellcheck disable=SC2086
		"$SP_FOLD" $opts <"$TMP/$2.rsym" >"$TMP/b" 2>"$TMP/eb" ||
			fail "$2: sp-fold $opts, runs: $(cat "$TMP/eb")"
		[ -s "$TMP/a" ] || [ "$3" = native ] ||
			fail "$2: sp-fold $opts: no output"
		diff -u "$TMP/a" "$TMP/b" || fail "$2: sp-fold $opts differs"
		diff -u "$TMP/ea" "$TMP/eb" || fail "$2: $opts: stderr differs"
	done <"$TMP/formats"
	"$SP_FOLD" --format pprof -o "$TMP/a.pb" <"$TMP/$2.sym" 2>/dev/null &&
		"$SP_FOLD" --format pprof -o "$TMP/b.pb" <"$TMP/$2.rsym" \
			2>/dev/null || fail "$2: pprof"
	cmp "$TMP/a.pb" "$TMP/b.pb" || fail "$2: pprof differs"
}

for seed in 1 2; do
	mixed $seed >"$TMP/m$seed.spool" || fail "spoolgen"
	same "$TMP/m$seed.spool" "m$seed"
done

# What needs each sample's time stops at the first run, and says why.
for opts in "--interval 1 -o $TMP/i%t" "--format speedscope" \
	"--flamechart --format svg" "--time 0,1" "--format perf-script"; do
	# shellcheck disable=SC2086
	"$SP_FOLD" $opts <"$TMP/m1.rsym" >/dev/null 2>"$TMP/err"
	rc=$?
	[ $rc -eq 1 ] || fail "sp-fold $opts on runs: exit $rc"
	grep -q "a run record holds no time.*without --runs" "$TMP/err" ||
		fail "sp-fold $opts on runs: $(cat "$TMP/err")"
done

# --runs and --stacks exclude each other.
"$SP_DUMP" --runs --stacks "$TMP/m1.spool" >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] || fail "--runs --stacks: not a usage error"

# A recording, where perf_event_open works.
if have_perf; then
	cc_prog rec_chain rec_chain.c -O2 -g -pthread
	"$SP_RECORD" -q -o "$TMP/r.spool" -- "$TMP/rec_chain" 0.3c 1 \
		>/dev/null 2>"$TMP/rec.err"
	[ -s "$TMP/r.spool" ] ||
		fail "sp-record wrote nothing: $(head -3 "$TMP/rec.err")"
	same "$TMP/r.spool" rec native
fi
echo ok
