#!/bin/sh
# t1012-record-python-perf.sh: CPython 3.12+ with -X perf (and 3.13's
# -X perf_jit) calls Python functions through trampolines copied into
# anonymous memory, without CFI.  At least 95% of the samples must unwind
# through them to the interpreter's entry (_start), and with -X perf the
# Python functions must be named from the perf map.
. "$(dirname "$0")/lib.sh"
need_perf

# pythons: every CPython >= 3.12 found under pyenv or on PATH, once each
# (pyenv's own first: its shim on PATH is a bash script that costs more
# CPU than the interpreter's start).
pythons() {
	for v in 3.12 3.13 3.14; do
		for p in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v".*/bin/"python$v" \
			"$(command -v "python$v" 2>/dev/null)"; do
			[ -x "$p" ] && "$p" -c 'import sys' 2>/dev/null &&
				{ echo "$v $p"; break; }
		done
	done
}

# check PY MODE: records py_work.py under -X MODE and judges it.
check() {
	# 0.5 s of CPU (not of wall time) gives about 500 samples, loaded or
	# not.
	"$SP_RECORD" -g dwarf -o "$TMP/py.spool" -- "$1" -X "$2" \
		"$PROGRAMS/py_work.py" 0.5c 2>"$TMP/err" ||
		fail "sp-record $1 -X $2 exited $?: $(cat "$TMP/err")"
	pipeline "$SP_DUMP" "$TMP/py.spool" \| "$SP_SYMBOLIZE" \| "$SP_FOLD" \
		>"$TMP/folded" || fail "pipeline failed on $1 -X $2"
	rooted "$TMP/folded" _start "$1 -X $2" 300 95
}

found=$(pythons)
if [ -z "$found" ]; then
	[ "${CI:-}" = true ] && fail "no CPython >= 3.12 (pyenv or PATH)"
	skip "no CPython >= 3.12 on PATH or under pyenv"
fi
echo "$found" | while read -r v py; do
	check "$py" perf
	for fn in main work_a work_b fib; do
		grep -q ";$fn;" "$TMP/folded" || grep -q ";$fn " "$TMP/folded" ||
			fail "$py -X perf: Python function $fn is not named"
	done
	if [ "$v" != 3.12 ]; then
		check "$py" perf_jit
	fi
done || exit 1
exit 0
