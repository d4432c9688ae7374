#!/bin/sh
# tests/run.sh: runs the unit test binaries and the end-to-end tests, then
# a short fuzz run when clang can build the harnesses.  Prints one line per
# test and a closing "N passed, N failed, N skipped" line.
#   B=build/san sh tests/run.sh [tests/tNNNN-*.sh ...]
B=${B:-build/san}
export B
cd "$(dirname "$0")/.." || exit 1
pass=0 failn=0 skipn=0 failed=""
log=$(mktemp -d "${TMPDIR:-/tmp}/sp-run.XXXXXX")

run_one() {	# NAME CMD...
	name=$1
	shift
	start=$(date +%s)
	"$@" >"$log/out" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	case $rc in
	0) pass=$((pass + 1)); echo "ok    $name (${secs}s)" ;;
	77) skipn=$((skipn + 1))
	    echo "skip  $name: $(grep -h 'SKIP' "$log/out" | tail -n 1)" ;;
	*) failn=$((failn + 1)); failed="$failed $name"
	   echo "FAIL  $name (exit $rc)"; tail -n 40 "$log/out" | sed 's/^/    /' ;;
	esac
}

if [ $# -gt 0 ]; then
	for t in "$@"; do run_one "$(basename "$t")" sh "$t"; done
else
	for u in "$B"/tests/unit/check_*; do
		[ -x "$u" ] || continue
		run_one "unit/$(basename "$u")" "$u"
		grep -h '^[0-9]*%: Checks' "$log/out" | sed 's/^/      /'
	done
	run_one "source: clang-format" sh tests/check-format.sh
	run_one "source: no #include circle" sh tests/check-includes.sh
	run_one "docs: man pages lint clean" sh tests/check-man.sh
	for t in tests/t[0-9]*.sh; do
		[ -f "$t" ] || continue
		run_one "$(basename "$t")" sh "$t"
	done
	if [ -n "${FUZZ_SECONDS:-}" ] && command -v "${CLANG:-clang}" >/dev/null &&
	    [ "$FUZZ_SECONDS" != 0 ]; then
		run_one "fuzz (${FUZZ_SECONDS}s per harness)" \
			make -s fuzz FUZZ_SECONDS="$FUZZ_SECONDS"
	fi
fi
rm -rf "$log"
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $failn failed, $skipn skipped"
[ "$failn" -eq 0 ]
