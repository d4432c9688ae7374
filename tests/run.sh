#!/bin/sh
# tests/run.sh: runs the unit test binaries, the source and docs checks,
# the end-to-end tests and, when clang built them (make fuzz-build), each
# fuzz harness for FUZZ_SECONDS; JOBS at a time (default: the CPUs).
# Prints one line per test as it ends and a closing
# "N passed, N failed, N skipped" line.  O2=build/o2 adds the unit tests
# of that tree (make check's -O2 build).
#   B=build/san sh tests/run.sh [tests/tNNNN-*.sh ...]
#
# Every end-to-end test makes its own temporary directory, so tests run
# side by side.  The slowest tests of the last run (kept in
# $B/tests/times) start first, so that the run ends with short ones.
B=${B:-build/san}
export B
cd "$(dirname "$0")/.." || exit 1
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
# Check's per-test timeout guards against hangs; on a loaded machine
# under ASan its 4 s default is reached by tests that are merely slow.
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-10}

# name_of JOB: the name a job is reported under.
name_of() {
	case $1 in
	"${O2:-/}"/tests/unit/check_*) echo "unit -O2/${1##*/}" ;;
	*/tests/unit/check_*) echo "unit/${1##*/}" ;;
	tests/check-format.sh) echo "source: clang-format" ;;
	tests/check-includes.sh) echo "source: no #include circle, one guard spelling" ;;
	tests/check-calls.sh) echo "source: no circle of calls between files" ;;
	tests/check-layout.sh) echo "docs: README layout matches the tree" ;;
	tests/check-man.sh) echo "docs: man pages lint clean" ;;
	fuzz/*) echo "$1 for ${FUZZ_SECONDS}s" ;;
	*) basename "$1" ;;
	esac
}

# run_one JOB: runs one job; prints its result line (and the tail of its
# output when it failed) in one write, and leaves "STATUS SECS NAME" in
# $log/res.*.
run_one() {
	name=$(name_of "$1")
	out=$(mktemp "$log/out.XXXXXX")
	start=$(date +%s)
	case $1 in
	*/tests/unit/check_*) "$1" ;;
	fuzz/*) sh tests/fuzz/run-harness.sh "${1#fuzz/}" "$FUZZ_SECONDS" ;;
	*) sh "$1" ;;
	esac >"$out" 2>&1 </dev/null
	rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0) st=ok; msg="ok    $name (${secs}s)"
	   case $1 in */tests/unit/*) msg="$msg
$(grep -h '^[0-9]*%: Checks' "$out" | sed 's/^/      /')" ;; esac ;;
	77) st=skip; msg="skip  $name: $(grep -h 'SKIP' "$out" | tail -n 1)" ;;
	*) st=fail; msg="FAIL  $name (exit $rc)
$(tail -n 40 "$out" | sed 's/^/    /')" ;;
	esac
	printf '%s\n' "$msg"
	echo "$st $secs $1" >"$out.res"
	rm -f "$out"
}

# A job, run by xargs below: the parent's log directory is $2.
if [ "${1:-}" = --one ]; then
	log=$2 FUZZ_SECONDS=$3
	run_one "$4"
	exit 0
fi

log=$(mktemp -d "${TMPDIR:-/tmp}/sp-run.XXXXXX")
trap 'rm -rf "$log"' EXIT

jobs=$log/jobs
if [ $# -gt 0 ]; then
	for t in "$@"; do echo "$t"; done >"$jobs"
else
	{
		for u in "$B"/tests/unit/check_* ${O2:+"$O2"/tests/unit/check_*}; do
			[ -x "$u" ] && echo "$u"
		done
		echo tests/check-format.sh
		echo tests/check-includes.sh
		echo tests/check-calls.sh
		echo tests/check-layout.sh
		echo tests/check-man.sh
		for t in tests/t[0-9]*.sh; do
			[ -f "$t" ] && echo "$t"
		done
		if [ "${FUZZ_SECONDS:-0}" != 0 ] && [ -d build/fuzz ]; then
			for f in tests/fuzz/fuzz_*.c; do
				f=${f##*/}
				[ -x "build/fuzz/${f%.c}" ] && echo "fuzz/${f%.c}"
			done
		fi
	} >"$jobs"
fi
# The slowest of the last run first; new jobs (no time yet) first of all.
# A fresh tree (CI's clone) takes the order of a recorded run instead of
# the alphabet's, which left t5005 and t5007 to start last.
times=$B/tests/times
order=$times
[ -f "$order" ] || order=tests/times.default
if [ -f "$order" ]; then
	awk 'NR == FNR { t[$3] = $2; next }
	     { printf "%d %d %s\n", ($0 in t) ? t[$0] : 1000000, NR, $0 }' \
		"$order" "$jobs" | sort -k1,1nr -k2,2n | cut -d' ' -f3- \
		>"$jobs.sorted" && mv "$jobs.sorted" "$jobs"
fi

tr '\n' '\0' <"$jobs" |
	xargs -0 -n 1 -P "$JOBS" sh tests/run.sh --one "$log" "${FUZZ_SECONDS:-0}"

cat "$log"/*.res 2>/dev/null >"$log/all"
# A job that left no result (the runner itself was killed) is a failure.
awk 'NR == FNR { seen[$3] = 1; next } !($0 in seen) { print "fail 0 " $0 }' \
	"$log/all" "$jobs" >"$log/lost"
while read -r _ _ j; do echo "FAIL  $(name_of "$j"): no result"; done <"$log/lost"
cat "$log/lost" >>"$log/all"
if [ $# -eq 0 ] && [ -d "$B" ]; then
	mkdir -p "$B/tests" && cp "$log/all" "$times"
fi
awk '{ n[$1]++ } $1 == "fail" { f = f " " $3 }
     END { if (f != "") print "failed:" f
	   printf "%d passed, %d failed, %d skipped\n", n["ok"], n["fail"], n["skip"]
	   exit n["fail"] > 0 }' "$log/all"
